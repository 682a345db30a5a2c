; Scala references (see src/lang/refs_int.h; the hook is in src/lang/refs_static.c):
; calls (Foo(x) may be a case class or companion apply), `new`, imports with selectors,
; extends/with clauses, and the bindings inside defs.

(call_expression
  function: (_) @ref.callee
  arguments: (_) @ref.args) @reference.call

(instance_expression) @reference.new

(import_declaration) @reference.import

(extends_clause) @reference.base

(parameters) @reference.local
(val_definition) @reference.local
(var_definition) @reference.local
(lambda_expression parameters: (_) @ref.name) @reference.local
(case_clause pattern: (_) @ref.name) @reference.local
(enumerator (_) @ref.name) @reference.local
