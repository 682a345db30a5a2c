; C++ definitions (the C ones plus namespaces, classes, templates, aliases). Captures: see
; src/lang/lang_int.h. The hook (lang_cpp.c) splits qualified names (Foo::bar defined out
; of class belongs to Foo), reads access sections, and treats template<> wrappers as part
; of the definition.

(function_definition
  declarator: (_) @name
  body: (_) @body) @definition.function

; prototypes, in-class constructor/destructor declarations, globals: one per declarator
(declaration
  [(identifier) (init_declarator) (pointer_declarator) (array_declarator)
   (function_declarator) (parenthesized_declarator) (attributed_declarator)
   (reference_declarator) (qualified_identifier) (operator_cast)] @definition.variable)

(namespace_definition
  name: (_)? @name
  body: (declaration_list) @body) @definition.namespace

(class_specifier
  name: (_)? @name
  body: (field_declaration_list) @body) @definition.class

(struct_specifier
  name: (_)? @name
  body: (field_declaration_list) @body) @definition.struct

(union_specifier
  name: (_)? @name
  body: (field_declaration_list) @body) @definition.union

(enum_specifier
  name: (_)? @name
  body: (enumerator_list) @body) @definition.enum

(enumerator
  name: (identifier) @name) @definition.enum_member

; members: fields and method declarations, one per declarator
(field_declaration
  [(field_identifier) (pointer_declarator) (array_declarator) (function_declarator)
   (parenthesized_declarator) (attributed_declarator) (reference_declarator)
   (operator_name)] @definition.field)

(type_definition
  declarator: (_) @definition.type_alias)

(alias_declaration
  name: (type_identifier) @name
  type: (_) @value) @definition.type_alias

(preproc_def
  name: (identifier) @name
  value: (_)? @value) @definition.macro

(preproc_function_def
  name: (identifier) @name
  value: (_)? @value) @definition.macro
