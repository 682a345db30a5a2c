; Python definitions. Captures: see src/lang/lang_int.h. The hook (lang_python.c) turns
; functions inside classes into methods, keeps assignments only at module and class level,
; and reads decorators and docstrings.

(function_definition
  name: (identifier) @name
  body: (block) @body) @definition.function

(class_definition
  name: (identifier) @name
  body: (block) @body) @definition.class

(assignment
  left: (identifier) @name
  right: (_)? @value) @definition.variable
