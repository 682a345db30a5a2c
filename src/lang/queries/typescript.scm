; TypeScript and TSX definitions (one file for both grammars). Captures: see
; src/lang/lang_int.h. The hook (lang_js.c) reads export/default/declare wrappers,
; modifiers, and keeps plain variables only at module or namespace level.

(function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function

(generator_function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function

; overload signatures and `declare function`
(function_signature
  name: (identifier) @name) @definition.function

(class_declaration
  name: (type_identifier) @name
  body: (class_body) @body) @definition.class

(abstract_class_declaration
  name: (type_identifier) @name
  body: (class_body) @body) @definition.class

(method_definition
  name: (_) @name
  body: (statement_block) @body) @definition.method

(method_signature
  name: (_) @name) @definition.method

(abstract_method_signature
  name: (_) @name) @definition.method

; interface ErrorCtor { new (message: string): Error } (named "new" by the hook)
(construct_signature) @definition.constructor

(public_field_definition
  name: (_) @name
  value: (_)? @value) @definition.field

(property_signature
  name: (_) @name) @definition.property

(interface_declaration
  name: (type_identifier) @name
  body: (interface_body) @body) @definition.interface

(type_alias_declaration
  name: (type_identifier) @name
  value: (_) @value) @definition.type_alias

(enum_declaration
  name: (identifier) @name
  body: (enum_body) @body) @definition.enum

(enum_body
  (property_identifier) @definition.enum_member)

(enum_assignment
  name: (property_identifier) @name
  value: (_)? @value) @definition.enum_member

(internal_module
  name: (_) @name
  body: (statement_block) @body) @definition.namespace

(module
  name: (_) @name
  body: (statement_block)? @body) @definition.module

; const f = () => {}, const f = function () {}, const C = class {}, const x = 1
; const f = () => {}, const f = function () {}, const C = class {}, const x = 1
(variable_declarator
  name: (identifier) @name
  value: [
    (arrow_function body: (_) @body)
    (function_expression body: (_) @body)
    (generator_function body: (_) @body)
  ] @value) @definition.function

(variable_declarator
  name: (identifier) @name
  value: (class body: (class_body) @body)) @definition.class

(variable_declarator
  name: (identifier) @name
  value: (_)? @value) @definition.variable

; Foo.prototype.bar = function () {}, exports.baz = () => {}
(assignment_expression
  left: (member_expression
    object: (_) @qualifier
    property: (property_identifier) @name)
  right: [
    (arrow_function body: (_) @body)
    (function_expression body: (_) @body)
  ] @value) @definition.method

; object literal members: { get() {}, put: function () {}, del: () => 0 }
(pair
  key: [(property_identifier) (string)] @name
  value: [
    (arrow_function body: (_) @body)
    (function_expression body: (_) @body)
  ] @value) @definition.method

; export default function () {} / export default class {}
(export_statement
  value: [
    (function_expression body: (_) @body)
    (arrow_function body: (_) @body)
  ] @value) @definition.function

(export_statement
  value: (class body: (class_body) @body)) @definition.class
