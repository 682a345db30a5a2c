; Go references (see src/lang/refs_int.h; the hook is in src/lang/refs_dyn.c): calls,
; imports, embedded fields (method promotion), and the bindings inside functions
; (parameters and the receiver are typed, so are `x := T{}` / `&T{}` / `new(T)`).

(call_expression
  function: (_) @ref.callee
  arguments: (_) @ref.args) @reference.call

(import_spec path: (_)) @reference.import

(field_declaration type: (_)) @reference.base

(parameter_list) @reference.local
(short_var_declaration) @reference.local
(var_spec) @reference.local
(range_clause left: (_) @ref.name) @reference.local
