; Rust definitions. Captures: see src/lang/lang_int.h. impl blocks are scopes: the items
; inside are qualified by (and belong to) the implemented type. The hook (lang_rust.c)
; reads visibility, async, static/const, #[test] and #[cfg(test)].

(function_item
  name: (identifier) @name
  body: (block) @body) @definition.function

; trait method signatures and extern "C" declarations
(function_signature_item
  name: (identifier) @name) @definition.function

(struct_item
  name: (type_identifier) @name
  body: (field_declaration_list)? @body) @definition.struct

(union_item
  name: (type_identifier) @name
  body: (field_declaration_list) @body) @definition.union

(enum_item
  name: (type_identifier) @name
  body: (enum_variant_list) @body) @definition.enum

(enum_variant
  name: (identifier) @name) @definition.enum_member

(trait_item
  name: (type_identifier) @name
  body: (declaration_list) @body) @definition.trait

(mod_item
  name: (identifier) @name
  body: (declaration_list)? @body) @definition.module

(macro_definition
  name: (identifier) @name) @definition.macro

(const_item
  name: (identifier) @name
  value: (_)? @value) @definition.constant

(static_item
  name: (identifier) @name
  value: (_)? @value) @definition.variable

(type_item
  name: (type_identifier) @name
  type: (_) @value) @definition.type_alias

; `type Output;` in a trait
(associated_type
  name: (type_identifier) @name) @definition.type_alias

(field_declaration
  name: (field_identifier) @name) @definition.field

(impl_item
  type: (_) @name
  body: (declaration_list) @body) @scope
