; Java definitions. Captures: see src/lang/lang_int.h. The hook (lang_java.c) reads
; modifiers (visibility, static, abstract, final), @Test annotations, and names anonymous
; classes "<anonymous>" (their signature shows `new Type()`).

(package_declaration
  [(scoped_identifier) (identifier)] @name) @definition.package

(class_declaration
  name: (identifier) @name
  body: (class_body) @body) @definition.class

(interface_declaration
  name: (identifier) @name
  body: (interface_body) @body) @definition.interface

(annotation_type_declaration
  name: (identifier) @name
  body: (annotation_type_body) @body) @definition.interface

(enum_declaration
  name: (identifier) @name
  body: (enum_body) @body) @definition.enum

(record_declaration
  name: (identifier) @name
  body: (class_body) @body) @definition.record

(method_declaration
  name: (identifier) @name
  body: (block)? @body) @definition.method

(annotation_type_element_declaration
  name: (identifier) @name) @definition.method

(constructor_declaration
  name: (identifier) @name
  body: (constructor_body) @body) @definition.constructor

(compact_constructor_declaration
  name: (identifier) @name
  body: (block) @body) @definition.constructor

; one symbol per declarator: `int a, b;` declares two fields
(field_declaration
  (variable_declarator
    name: (identifier) @definition.field))

(constant_declaration
  (variable_declarator
    name: (identifier) @definition.constant))

(enum_constant
  name: (identifier) @name
  body: (class_body)? @body) @definition.enum_member

; anonymous classes: new Runnable() { ... }
(object_creation_expression
  type: (_) @name
  (class_body) @body) @definition.class
