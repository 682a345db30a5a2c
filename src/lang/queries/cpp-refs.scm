; C++ references (see src/lang/refs_int.h; the hook is in src/lang/refs_static.c): calls
; (ns::f, Foo::bar, obj.m, p->m, this->m, templates), `new`, `Foo f(1);`, #include,
; using declarations and directives, base classes, and the bindings inside functions.

(call_expression
  function: (_) @ref.callee
  arguments: (_) @ref.args) @reference.call

(new_expression
  type: (_)) @reference.new

(preproc_include) @reference.import
(using_declaration) @reference.import

(base_class_clause) @reference.base

(parameter_list) @reference.local
(declaration) @reference.local
(for_range_loop declarator: (_) @ref.name) @reference.local
(catch_clause parameters: (_) @ref.name) @reference.local
