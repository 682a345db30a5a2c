; Java references (see src/lang/refs_int.h; the hook is in src/lang/refs_static.c):
; method invocations, `new`, imports, extends/implements, and the bindings inside methods
; (declared types type their receivers; `var x = new T()` too).

(method_invocation
  name: (identifier)) @reference.call

(object_creation_expression
  type: (_)) @reference.new

(import_declaration) @reference.import

(superclass) @reference.base
(super_interfaces) @reference.base
(extends_interfaces) @reference.base

(formal_parameters) @reference.local
(local_variable_declaration) @reference.local
(resource name: (_)) @reference.local
(enhanced_for_statement) @reference.local
(catch_formal_parameter) @reference.local
(lambda_expression) @reference.local
