; C# definitions. Captures: see src/lang/lang_int.h. A file-scoped namespace qualifies
; the rest of the file. The hook (lang_csharp.c) reads modifiers and attributes, names
; destructors (~T) and operators, and keeps auto-property accessors in the class text.

(namespace_declaration
  name: (_) @name
  body: (declaration_list) @body) @definition.namespace

(file_scoped_namespace_declaration
  name: (_) @name) @definition.namespace

(class_declaration
  name: (identifier) @name
  body: (declaration_list) @body) @definition.class

(interface_declaration
  name: (identifier) @name
  body: (declaration_list) @body) @definition.interface

(struct_declaration
  name: (identifier) @name
  body: (declaration_list) @body) @definition.struct

(record_declaration
  name: (identifier) @name
  body: (declaration_list)? @body) @definition.record

(enum_declaration
  name: (identifier) @name
  body: (enum_member_declaration_list) @body) @definition.enum

(enum_member_declaration
  name: (identifier) @name) @definition.enum_member

(delegate_declaration
  name: (identifier) @name) @definition.type_alias

(method_declaration
  name: (identifier) @name
  body: (_)? @body) @definition.method

(constructor_declaration
  name: (identifier) @name
  body: (_)? @body) @definition.constructor

(destructor_declaration
  name: (identifier) @name
  body: (_)? @body) @definition.method

(operator_declaration
  body: (_)? @body) @definition.method

(property_declaration
  name: (identifier) @name
  accessors: (accessor_list)? @body) @definition.property

(property_declaration
  name: (identifier) @name
  value: (arrow_expression_clause) @body) @definition.property

(indexer_declaration
  accessors: (accessor_list)? @body) @definition.property

(event_declaration
  name: (identifier) @name
  accessors: (accessor_list)? @body) @definition.property

; one symbol per declarator: `public int X, Y;` declares two fields
(field_declaration
  (variable_declaration
    (variable_declarator
      name: (identifier) @definition.field)))

(event_field_declaration
  (variable_declaration
    (variable_declarator
      name: (identifier) @definition.field)))
