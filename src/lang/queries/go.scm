; Go definitions. Captures: see src/lang/lang_int.h. The hook (lang_go.c) qualifies
; methods by their receiver type, widens single specs to their declaration (`type X ...`,
; `const X = ...`), keeps consts and vars at package level only, and reads visibility from
; capitalization.

(package_clause
  (package_identifier) @name) @definition.package

(function_declaration
  name: (identifier) @name
  body: (block)? @body) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: (_) @qualifier))
  name: (field_identifier) @name
  body: (block)? @body) @definition.method

(type_spec
  name: (type_identifier) @name
  type: (struct_type
    (field_declaration_list) @body)) @definition.struct

(type_spec
  name: (type_identifier) @name
  type: (interface_type) @body) @definition.interface

; defined types (type Celsius float64) and aliases (type A = B)
(type_spec
  name: (type_identifier) @name
  type: (_) @value) @definition.type_alias

(type_alias
  name: (type_identifier) @name
  type: (_) @value) @definition.type_alias

; one symbol per name: `X, Y int` declares two fields (no field name in these patterns:
; with `name:` tree-sitter reports only the first of several names)
(field_declaration
  (field_identifier) @definition.field)

(method_elem
  name: (field_identifier) @name) @definition.method

(const_spec
  (identifier) @definition.constant)

(var_spec
  (identifier) @definition.variable)
