; C references (see src/lang/refs_int.h; the hook is in src/lang/refs_static.c): calls,
; #include directives, and the parameters and locals of functions (they shadow names).

(call_expression
  function: (_) @ref.callee
  arguments: (_) @ref.args) @reference.call

(preproc_include) @reference.import

(parameter_list) @reference.local
(declaration) @reference.local
