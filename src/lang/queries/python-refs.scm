; Python references (see src/lang/refs_int.h; the hook is in src/lang/refs_dyn.c):
; calls, decorators, imports, base classes, and the bindings inside functions that shadow
; names or type receivers.

(call
  function: (_) @ref.callee
  arguments: (_) @ref.args) @reference.call

(decorator (identifier) @ref.callee) @reference.call
(decorator (attribute) @ref.callee) @reference.call

(import_statement) @reference.import
(import_from_statement) @reference.import

(class_definition
  superclasses: (argument_list) @ref.args) @reference.base

(parameters) @reference.local
(lambda_parameters) @reference.local
(assignment) @reference.local
(augmented_assignment left: (_) @ref.name) @reference.local
(for_statement left: (_) @ref.name) @reference.local
(for_in_clause left: (_) @ref.name) @reference.local
(with_item) @reference.local
(except_clause) @reference.local
(named_expression name: (_) @ref.name) @reference.local
