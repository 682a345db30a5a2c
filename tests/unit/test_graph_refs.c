/*
 * test_graph_refs.c: reference extraction (src/lang refs*.c): what each language's hook
 * records, and the file-local flags (shadowed, typed, untyped, self, complex) the resolver
 * relies on.
 */
#include "t.h"

#include "lang/lang.h"

typedef struct parsed {
    lp_arena arena;
    lp_parse_result pr;
} parsed;

static lp_status parse(parsed *p, lp_lang lang, const char *src, lp_error *err)
{
    lp_arena_init(&p->arena, 0);
    return lp_parse(lang, lp_str_c(src), NULL, &p->arena, &p->pr, err);
}

/* The first reference of this kind and name (qual may be NULL: any). */
static const lp_ref *find(const parsed *p, lp_refkind kind, const char *name, const char *qual)
{
    for (size_t i = 0; i < p->pr.nrefs; i++) {
        const lp_ref *r = &p->pr.refs[i];
        if (r->kind == kind && !strcmp(r->name, name) && (!qual || !strcmp(r->qual, qual)))
            return r;
    }
    return NULL;
}

static const char *owner_of(const parsed *p, const lp_ref *r)
{
    return r->owner >= 0 ? p->pr.symbols[r->owner].qname : "-";
}

T_TEST(graph_refs_python_flags)
{
    lp_error err;
    parsed p = {0};
    const char *src = "import os.path as osp\n"
                      "from ..pkg.mod import f as g, h\n"
                      "from . import sib\n"
                      "class A(Base, metaclass=M):\n"
                      "    def m(self, helper, typed: Foo):\n"
                      "        helper(1)\n"
                      "        typed.go()\n"
                      "        x = Bar()\n"
                      "        x.run()\n"
                      "        y = make()\n"
                      "        y = other()\n"
                      "        y.stop()\n"
                      "        self.k(2)\n"
                      "        self.items.append(3)\n"
                      "        g()\n"
                      "    @staticmethod\n"
                      "    def s(first):\n"
                      "        first.x()\n"
                      "def test_m():\n"
                      "    pass\n";
    T_CHECK_OK(parse(&p, LP_LANG_PYTHON, src, &err), &err);
    const lp_ref *r = find(&p, LP_REF_IMPORT, "", "os.path");
    T_CHECK(r && !strcmp(r->alias, "osp"));
    r = find(&p, LP_REF_IMPORT, "f", NULL);
    T_CHECK(r && !strcmp(r->qual, "..pkg.mod") && !strcmp(r->alias, "g") &&
            (r->flags & LP_REFF_RELATIVE));
    r = find(&p, LP_REF_IMPORT, "sib", ".");
    T_CHECK(r && (r->flags & LP_REFF_RELATIVE));
    r = find(&p, LP_REF_BASE, "Base", NULL);
    T_CHECK(r && !strcmp(owner_of(&p, r), "A"));
    T_CHECK(!find(&p, LP_REF_BASE, "M", NULL)); /* keyword argument, not a base */
    r = find(&p, LP_REF_CALL, "helper", NULL);
    T_CHECK(r && (r->flags & LP_REFF_SHADOWED) && !strcmp(owner_of(&p, r), "A.m"));
    r = find(&p, LP_REF_CALL, "go", "typed");
    T_CHECK(r && (r->flags & LP_REFF_TYPED) && !strcmp(r->rtype, "Foo"));
    r = find(&p, LP_REF_CALL, "run", "x");
    T_CHECK(r && (r->flags & LP_REFF_TYPED) && (r->flags & LP_REFF_RTYPE_CALL) &&
            !strcmp(r->rtype, "Bar"));
    r = find(&p, LP_REF_CALL, "stop", "y"); /* two different bindings: no type */
    T_CHECK(r && (r->flags & LP_REFF_UNTYPED) && !(r->flags & LP_REFF_TYPED));
    r = find(&p, LP_REF_CALL, "k", "self");
    T_CHECK(r && (r->flags & LP_REFF_SELF) && !strcmp(r->rtype, "A") && r->nargs == 1 &&
            !strcmp(r->args, "(2)"));
    r = find(&p, LP_REF_CALL, "append", NULL);
    T_CHECK(r && (r->flags & LP_REFF_COMPLEX) && !(r->flags & LP_REFF_SELF));
    r = find(&p, LP_REF_CALL, "x", "first"); /* a static method has no receiver */
    T_CHECK(r && (r->flags & LP_REFF_UNTYPED) && !(r->flags & LP_REFF_SELF));
    r = find(&p, LP_REF_CALL, "g", NULL);
    T_CHECK(r && !(r->flags & (LP_REFF_SHADOWED | LP_REFF_COMPLEX)));
    r = find(&p, LP_REF_TESTNAME, "m", NULL);
    T_CHECK(r && !strcmp(owner_of(&p, r), "test_m"));
    /* references come out in source order */
    for (size_t i = 1; i < p.pr.nrefs; i++)
        T_CHECK(p.pr.refs[i - 1].span.start_byte <= p.pr.refs[i].span.start_byte);
done:
    lp_arena_release(&p.arena);
}

T_TEST(graph_refs_js_imports_and_exports)
{
    lp_error err;
    parsed p = {0};
    const char *src = "import def, { a, b as c } from './m';\n"
                      "import * as ns from '../n';\n"
                      "const { x, y: z } = require('./r');\n"
                      "const whole = require('pkg');\n"
                      "export { a as aa } from './m';\n"
                      "export * from './all';\n"
                      "class K extends Base { run(p) { this.go(); super.run(); "
                      "const s = new Store(); s.put(); p.q(); } }\n"
                      "function f() { const inner = () => 1; inner(); }\n";
    T_CHECK_OK(parse(&p, LP_LANG_JAVASCRIPT, src, &err), &err);
    const lp_ref *r = find(&p, LP_REF_IMPORT, "default", "./m");
    T_CHECK(r && !strcmp(r->alias, "def") && (r->flags & LP_REFF_DEFAULT));
    r = find(&p, LP_REF_IMPORT, "b", "./m");
    T_CHECK(r && !strcmp(r->alias, "c"));
    r = find(&p, LP_REF_IMPORT, "*", "../n");
    T_CHECK(r && !strcmp(r->alias, "ns") && (r->flags & LP_REFF_NAMESPACE));
    r = find(&p, LP_REF_IMPORT, "y", "./r");
    T_CHECK(r && !strcmp(r->alias, "z"));
    r = find(&p, LP_REF_IMPORT, "", "pkg");
    T_CHECK(r && !strcmp(r->alias, "whole") && !(r->flags & LP_REFF_RELATIVE));
    T_CHECK(!find(&p, LP_REF_CALL, "require", NULL)); /* require() is an import */
    r = find(&p, LP_REF_EXPORT, "a", "./m");
    T_CHECK(r && !strcmp(r->alias, "aa"));
    r = find(&p, LP_REF_EXPORT, "*", "./all");
    T_CHECK(r && (r->flags & LP_REFF_WILDCARD));
    r = find(&p, LP_REF_CALL, "go", "this");
    T_CHECK(r && (r->flags & LP_REFF_SELF) && !strcmp(r->rtype, "K"));
    r = find(&p, LP_REF_CALL, "run", "super");
    T_CHECK(r && (r->flags & LP_REFF_SUPER));
    r = find(&p, LP_REF_NEW, "Store", NULL);
    T_CHECK(r != NULL);
    r = find(&p, LP_REF_CALL, "put", "s");
    T_CHECK(r && (r->flags & LP_REFF_TYPED) && !strcmp(r->rtype, "Store"));
    r = find(&p, LP_REF_CALL, "q", "p");
    T_CHECK(r && (r->flags & LP_REFF_UNTYPED));
    r = find(&p, LP_REF_CALL, "inner", NULL); /* a nested function symbol, not a local */
    T_CHECK(r && !(r->flags & LP_REFF_SHADOWED));
    r = find(&p, LP_REF_BASE, "Base", NULL);
    T_CHECK(r && !strcmp(owner_of(&p, r), "K"));
done:
    lp_arena_release(&p.arena);
}

T_TEST(graph_refs_go_receiver_and_imports)
{
    lp_error err;
    parsed p = {0};
    const char *src = "package main\n"
                      "import (\n\th \"net/http\"\n\t. \"strings\"\n)\n"
                      "type A struct {\n\tB\n\tx int\n}\n"
                      "func (s *Server) Start(c *Conf) {\n"
                      "\ts.run()\n\tc.load()\n\tv := &Thing{}\n\tv.do()\n\th.Get(1)\n"
                      "\tw := NewW()\n\tw.walk()\n}\n"
                      "func TestStart(t *testing.T) {}\n";
    T_CHECK_OK(parse(&p, LP_LANG_GO, src, &err), &err);
    const lp_ref *r = find(&p, LP_REF_IMPORT, "", "net/http");
    T_CHECK(r && !strcmp(r->alias, "h"));
    r = find(&p, LP_REF_IMPORT, "", "strings");
    T_CHECK(r && (r->flags & LP_REFF_WILDCARD));
    r = find(&p, LP_REF_BASE, "B", NULL);
    T_CHECK(r && !strcmp(owner_of(&p, r), "main.A"));
    T_CHECK(!find(&p, LP_REF_BASE, "int", NULL));
    r = find(&p, LP_REF_CALL, "run", "s");
    T_CHECK(r && (r->flags & LP_REFF_SELF) && !strcmp(r->rtype, "Server"));
    r = find(&p, LP_REF_CALL, "load", "c");
    T_CHECK(r && (r->flags & LP_REFF_TYPED) && !strcmp(r->rtype, "Conf"));
    r = find(&p, LP_REF_CALL, "do", "v");
    T_CHECK(r && (r->flags & LP_REFF_TYPED) && !strcmp(r->rtype, "Thing"));
    r = find(&p, LP_REF_CALL, "walk", "w"); /* from a function call: unknown type */
    T_CHECK(r && (r->flags & LP_REFF_UNTYPED));
    r = find(&p, LP_REF_TESTNAME, "Start", NULL);
    T_CHECK(r && !strcmp(owner_of(&p, r), "main.TestStart"));
done:
    lp_arena_release(&p.arena);
}

T_TEST(graph_refs_static_languages)
{
    lp_error err;
    parsed j = {0}, c = {0}, rs = {0}, cs = {0};
    T_CHECK_OK(parse(&j, LP_LANG_JAVA,
                     "package a;\nimport static a.b.U.up;\nimport a.c.*;\n"
                     "class K extends B implements I { void m(Foo f) { var g = new Bar(); "
                     "g.x(); f.y(); this.z(); up(); } }\n",
                     &err),
               &err);
    const lp_ref *r = find(&j, LP_REF_IMPORT, "up", "a.b.U");
    T_CHECK(r && (r->flags & LP_REFF_STATIC));
    r = find(&j, LP_REF_IMPORT, "*", "a.c");
    T_CHECK(r && (r->flags & LP_REFF_WILDCARD));
    T_CHECK(find(&j, LP_REF_BASE, "B", NULL) && find(&j, LP_REF_BASE, "I", NULL));
    r = find(&j, LP_REF_CALL, "x", "g");
    T_CHECK(r && (r->flags & LP_REFF_TYPED) && !strcmp(r->rtype, "Bar"));
    r = find(&j, LP_REF_CALL, "y", "f");
    T_CHECK(r && !strcmp(r->rtype, "Foo"));
    T_CHECK_OK(parse(&c, LP_LANG_C,
                     "#include <stdio.h>\n#include \"a/b.h\"\n"
                     "int f(int (*cb)(int)) { int helper = 1; cb(helper); return g(2); }\n",
                     &err),
               &err);
    r = find(&c, LP_REF_IMPORT, "", "stdio.h");
    T_CHECK(r && (r->flags & LP_REFF_SYSTEM));
    r = find(&c, LP_REF_IMPORT, "", "a/b.h");
    T_CHECK(r && !(r->flags & LP_REFF_SYSTEM));
    r = find(&c, LP_REF_CALL, "cb", NULL);
    T_CHECK(r && (r->flags & LP_REFF_SHADOWED));
    r = find(&c, LP_REF_CALL, "g", NULL);
    T_CHECK(r && !(r->flags & LP_REFF_SHADOWED) && r->nargs == 1);
    T_CHECK_OK(parse(&rs, LP_LANG_RUST,
                     "use crate::a::{b, c as d, e::*};\nmod m;\n"
                     "impl T { fn f(&self) { self.g(); Self::h(); crate::x::y(); z!(); } }\n",
                     &err),
               &err);
    r = find(&rs, LP_REF_IMPORT, "c", "crate.a");
    T_CHECK(r && !strcmp(r->alias, "d"));
    r = find(&rs, LP_REF_IMPORT, "*", "crate.a.e");
    T_CHECK(r && (r->flags & LP_REFF_WILDCARD));
    r = find(&rs, LP_REF_IMPORT, "m", NULL);
    T_CHECK(r && (r->flags & LP_REFF_MODDECL));
    r = find(&rs, LP_REF_CALL, "g", "self");
    T_CHECK(r && (r->flags & LP_REFF_SELF) && !strcmp(r->rtype, "T"));
    r = find(&rs, LP_REF_CALL, "h", "Self");
    T_CHECK(r && (r->flags & LP_REFF_SELF) && (r->flags & LP_REFF_PATH));
    r = find(&rs, LP_REF_CALL, "y", "crate.x");
    T_CHECK(r && (r->flags & LP_REFF_PATH) && !(r->flags & LP_REFF_SELF));
    r = find(&rs, LP_REF_CALL, "z", NULL);
    T_CHECK(r && (r->flags & LP_REFF_MACRO));
    T_CHECK_OK(parse(&cs, LP_LANG_CSHARP,
                     "using X = A.B.C;\nusing A.D;\nclass K : Base { void M() { var o = new "
                     "Obj(); o.Go(); base.M(); } }\n",
                     &err),
               &err);
    r = find(&cs, LP_REF_IMPORT, "C", "A.B");
    T_CHECK(r && !strcmp(r->alias, "X"));
    r = find(&cs, LP_REF_IMPORT, "*", "A.D");
    T_CHECK(r && (r->flags & LP_REFF_WILDCARD));
    r = find(&cs, LP_REF_CALL, "Go", "o");
    T_CHECK(r && !strcmp(r->rtype, "Obj"));
    r = find(&cs, LP_REF_CALL, "M", NULL);
    T_CHECK(r && (r->flags & LP_REFF_SUPER));
done:
    lp_arena_release(&j.arena);
    lp_arena_release(&c.arena);
    lp_arena_release(&rs.arena);
    lp_arena_release(&cs.arena);
}

T_TEST(graph_refs_disabled_and_text)
{
    lp_error err;
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_parse_result pr;
    lp_parse_opts o = {.no_refs = true};
    T_CHECK_OK(lp_parse(LP_LANG_PYTHON, LP_STR("def f():\n    g()\n"), &o, &a, &pr, &err), &err);
    T_CHECK_INT(pr.nrefs, 0);
    T_CHECK_INT(pr.nsymbols, 1);
    T_CHECK_OK(lp_parse(LP_LANG_TEXT, LP_STR("call f() here"), NULL, &a, &pr, &err), &err);
    T_CHECK_INT(pr.nrefs, 0);
    /* arguments are bounded and whitespace-collapsed */
    lp_buf src;
    lp_buf_init(&src, 0);
    lp_buf_puts(&src, "def f():\n    g(");
    for (int i = 0; i < 200; i++)
        lp_buf_puts(&src, "a,   ");
    lp_buf_puts(&src, "b)\n");
    T_CHECK_OK(lp_parse(LP_LANG_PYTHON, lp_buf_str(&src), NULL, &a, &pr, &err), &err);
    lp_buf_release(&src);
    T_CHECK_INT(pr.nrefs, 1);
    T_CHECK(strlen(pr.refs[0].args) <= LP_REF_ARGS_MAX);
    T_CHECK(!strstr(pr.refs[0].args, "  "));
    T_CHECK_INT(pr.refs[0].nargs, 201);
done:
    lp_arena_release(&a);
}
