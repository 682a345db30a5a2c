; Scala definitions. Captures: see src/lang/lang_int.h. A package clause without braces
; prefixes the rest of the file; with braces it contains its members. The hook
; (lang_scala.c) turns defs in templates into methods, drops local vals, reads modifiers.

(package_clause
  name: (package_identifier) @name
  body: (template_body)? @body) @definition.package

(class_definition
  name: [(identifier) (operator_identifier)] @name
  body: (template_body)? @body) @definition.class

(object_definition
  name: [(identifier) (operator_identifier)] @name
  body: (template_body)? @body) @definition.object

(trait_definition
  name: [(identifier) (operator_identifier)] @name
  body: (template_body)? @body) @definition.trait

(enum_definition
  name: (identifier) @name
  body: (enum_body) @body) @definition.enum

(simple_enum_case
  name: (identifier) @name) @definition.enum_member

(full_enum_case
  name: (identifier) @name) @definition.enum_member

(function_definition
  name: [(identifier) (operator_identifier)] @name
  body: (_) @body) @definition.function

(function_declaration
  name: [(identifier) (operator_identifier)] @name) @definition.function

(val_definition
  pattern: (identifier) @name
  value: (_)? @value) @definition.constant

(var_definition
  pattern: (identifier) @name
  value: (_)? @value) @definition.variable

(val_declaration
  name: (identifier) @name) @definition.constant

(var_declaration
  name: (identifier) @name) @definition.variable

(type_definition
  name: (type_identifier) @name
  type: (_)? @value) @definition.type_alias

(given_definition
  name: (identifier) @name
  body: (_)? @value) @definition.constant
