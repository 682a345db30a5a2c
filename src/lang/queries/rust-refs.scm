; Rust references (see src/lang/refs_int.h; the hook is in src/lang/refs_static.c):
; calls (paths a::b::f, methods x.f(), Self::f), macro invocations, use trees, `mod x;`
; declarations, and the bindings inside functions (annotated and struct-literal lets type
; their receivers; patterns only shadow).

(call_expression
  function: (_) @ref.callee
  arguments: (_) @ref.args) @reference.call

(macro_invocation
  macro: (_)) @reference.call

(use_declaration) @reference.import
(mod_item) @reference.import

(parameters) @reference.local
(let_declaration) @reference.local
(closure_parameters) @reference.local
(for_expression pattern: (_) @ref.name) @reference.local
(match_arm pattern: (_) @ref.name) @reference.local
(let_condition pattern: (_) @ref.name) @reference.local
