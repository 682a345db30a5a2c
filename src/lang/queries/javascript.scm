; JavaScript (and JSX) definitions. Captures: see
; src/lang/lang_int.h. The hook (lang_js.c) reads export/default/declare wrappers,
; modifiers, and keeps plain variables only at module or namespace level.

(function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function

(generator_function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function

(class_declaration
  name: (identifier) @name
  body: (class_body) @body) @definition.class

(method_definition
  name: (_) @name
  body: (statement_block) @body) @definition.method

(field_definition
  property: (_) @name
  value: (_)? @value) @definition.field

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

; exports.timeoutProvider = { setTimeout: function () {} }: the exported object holds its
; methods (the hook keeps only exports.* at the top level)
(assignment_expression
  left: (member_expression
    object: (_) @qualifier
    property: (property_identifier) @name)
  right: (object) @value) @definition.variable

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
