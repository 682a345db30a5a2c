; JavaScript (JSX) references (see src/lang/refs_int.h; the hook is in
; src/lang/refs_dyn.c): calls (require() becomes an import), new, ES imports and exports,
; class heritage, and the bindings inside functions that shadow names or type receivers.

(call_expression
  function: (_) @ref.callee
  arguments: (_) @ref.args) @reference.call

(new_expression
  constructor: (_) @ref.callee
  arguments: (_)? @ref.args) @reference.new

(import_statement) @reference.import
(export_statement) @reference.export

(class_heritage) @reference.base

(formal_parameters) @reference.local
(arrow_function parameter: (identifier)) @reference.local
(variable_declarator) @reference.local
(catch_clause parameter: (_) @ref.name) @reference.local
(for_in_statement left: (_) @ref.name) @reference.local
