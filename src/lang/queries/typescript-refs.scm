; TypeScript and TSX references (one file for both grammars; see src/lang/refs_int.h; the
; hook is in src/lang/refs_dyn.c): calls (require() becomes an import), new, ES imports
; and exports, extends/implements, and the bindings inside functions (annotated ones type
; their receivers).

(call_expression
  function: (_) @ref.callee
  arguments: (_) @ref.args) @reference.call

(new_expression
  constructor: (_) @ref.callee
  arguments: (_)? @ref.args) @reference.new

(import_statement) @reference.import
(export_statement) @reference.export

(class_heritage) @reference.base
(interface_declaration (extends_type_clause) @ref.args) @reference.base

(formal_parameters) @reference.local
(arrow_function parameter: (identifier)) @reference.local
(variable_declarator) @reference.local
(catch_clause parameter: (_) @ref.name) @reference.local
(for_in_statement left: (_) @ref.name) @reference.local
