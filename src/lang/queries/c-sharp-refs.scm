; C# references (see src/lang/refs_int.h; the hook is in src/lang/refs_static.c):
; invocations, `new`, using directives, base lists, and the bindings inside members
; (declared types type their receivers; `var x = new T()` too).

(invocation_expression
  function: (_) @ref.callee
  arguments: (_) @ref.args) @reference.call

(object_creation_expression
  type: (_)) @reference.new

(using_directive) @reference.import

(base_list) @reference.base

(parameter_list) @reference.local
(variable_declaration) @reference.local
(foreach_statement) @reference.local
(catch_declaration) @reference.local
(lambda_expression) @reference.local
(declaration_expression) @reference.local
