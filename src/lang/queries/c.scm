; C definitions. Captures: see src/lang/lang_int.h. The hook (lang_c.c) finds names inside
; declarator chains, tells prototypes (declarations of functions) from variables, drops
; locals, names anonymous structs after their typedef, and reads `static` / `extern`.

(function_definition
  declarator: (_) @name
  body: (compound_statement) @body) @definition.function

; prototypes and globals: one symbol per declarator (`int a, *b;` declares two)
(declaration
  [(identifier) (init_declarator) (pointer_declarator) (array_declarator)
   (function_declarator) (parenthesized_declarator) (attributed_declarator)] @definition.variable)

(struct_specifier
  name: (type_identifier)? @name
  body: (field_declaration_list) @body) @definition.struct

(union_specifier
  name: (type_identifier)? @name
  body: (field_declaration_list) @body) @definition.union

(enum_specifier
  name: (type_identifier)? @name
  body: (enumerator_list) @body) @definition.enum

(enumerator
  name: (identifier) @name) @definition.enum_member

(field_declaration
  [(field_identifier) (pointer_declarator) (array_declarator) (function_declarator)
   (parenthesized_declarator) (attributed_declarator)] @definition.field)

(type_definition
  declarator: (_) @definition.type_alias)

(preproc_def
  name: (identifier) @name
  value: (_)? @value) @definition.macro

(preproc_function_def
  name: (identifier) @name
  value: (_)? @value) @definition.macro
