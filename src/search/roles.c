/*
 * roles.c: the role a result's file plays (contract in search.h, "File roles"), and what
 * the runtime scope does with it.
 *
 * Three sources, OR-ed: the path (well-known test, vendored, build-output, locale, example
 * and project-meta names: lp_search_path_roles), the blob's content flags stored at
 * extraction (LP_BLOB_GENERATED, LP_BLOB_MINIFIED), and the publication's .gitattributes
 * files (linguist-generated, linguist-vendored; deeper files and later lines win, as in
 * git). Everything is read from the pinned publication, so a role never mixes two.
 *
 * Invariants: path rules are exact segment and suffix comparisons (no guessing from words
 * inside names); a folder name that is also a common package name (build, target, out) is
 * a role only at the top of the tree.
 */
#include "search/search_int.h"

#include "index/index.h"
#include "scan/scan.h"

#include <pthread.h>
#include <stddef.h>
#include <strings.h>

static const char *const role_names[] = {"test",   "vendored", "generated", "minified",
                                         "locale", "example",  "meta"};

size_t lp_search_role_names(uint32_t roles, const char *out[LP_ROLE_NAMES_MAX])
{
    size_t n = 0;
    for (size_t i = 0; i < LP_ARRAY_LEN(role_names); i++)
        if (roles & (1u << i))
            out[n++] = role_names[i];
    return n;
}

uint32_t lp_search_role_bit(const char *name)
{
    for (size_t i = 0; name && i < LP_ARRAY_LEN(role_names); i++)
        if (!strcmp(name, role_names[i]))
            return 1u << i;
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * Path rules. */

static bool in_list(lp_str s, const char *const *list, size_t n, bool fold)
{
    for (size_t i = 0; i < n; i++) {
        size_t m = strlen(list[i]);
        if (s.len == m && (fold ? !strncasecmp(s.ptr, list[i], m) : !memcmp(s.ptr, list[i], m)))
            return true;
    }
    return false;
}
#define IN(s, list) in_list((s), (list), LP_ARRAY_LEN(list), false)
#define IN_CI(s, list) in_list((s), (list), LP_ARRAY_LEN(list), true)

static bool ends_with_any(lp_str s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (lp_str_ends_with(s, lp_str_c(list[i])))
            return true;
    return false;
}
#define ENDS(s, list) ends_with_any((s), (list), LP_ARRAY_LEN(list))

static bool starts_ci(lp_str s, const char *prefix)
{
    size_t m = strlen(prefix);
    return s.len >= m && !strncasecmp(s.ptr, prefix, m);
}

static bool has_sub(lp_str s, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t k = 0; k + m <= s.len; k++)
        if (!memcmp(s.ptr + k, needle, m))
            return true;
    return false;
}

static bool dir_is_test(lp_str seg)
{
    static const char *const dirs[] = {"test",      "tests",     "__tests__", "testdata",
                                       "spec",      "specs",     "testutil",  "testutils",
                                       "fixtures",  "testing"};
    return IN(seg, dirs);
}

static bool base_is_test(lp_str b)
{
    static const char *const suffixes[] = {
        "_test.go", "_test.py", "_test.rs", "_test.c", "_test.cc", "_test.cpp", "Test.java",
        "Tests.java", "Test.scala", "Spec.scala", "Tests.cs", "Test.cs", "_tests.rs"};
    if (lp_str_starts_with(b, lp_str_c("test_")) || lp_str_starts_with(b, lp_str_c("test-")) ||
        lp_str_eq_c(b, "conftest.py"))
        return true;
    return ENDS(b, suffixes) || has_sub(b, ".test.") || has_sub(b, ".spec.");
}

static bool dir_is_vendored(lp_str seg)
{
    static const char *const dirs[] = {"vendor",       "vendors",          "vendored",
                                       "_vendor",      "third_party",      "third-party",
                                       "thirdparty",   "3rdparty",         "node_modules",
                                       "bower_components", "site-packages", "dist-packages",
                                       "extern",       "external"};
    return IN(seg, dirs);
}

static bool base_is_vendored(lp_str b)
{
    static const char *const libs[] = {"jquery", "underscore", "bootstrap", "lodash",
                                       "modernizr", "require", "backbone", "d3"};
    if (!lp_str_ends_with(b, lp_str_c(".js")) && !lp_str_ends_with(b, lp_str_c(".css")))
        return false;
    for (size_t i = 0; i < LP_ARRAY_LEN(libs); i++) {
        size_t m = strlen(libs[i]);
        if (b.len > m && !strncasecmp(b.ptr, libs[i], m) &&
            (b.ptr[m] == '.' || b.ptr[m] == '-'))
            return true;
    }
    return false;
}

static bool base_is_generated(lp_str b)
{
    static const char *const suffixes[] = {
        "_pb2.py", "_pb2_grpc.py", "_pb2.pyi", ".pb.go", ".pb.gw.go", ".pb.cc", ".pb.h",
        ".g.cs",   ".g.i.cs",      ".designer.cs", ".Designer.cs", ".js.map", ".css.map",
        "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "Cargo.lock", "poetry.lock",
        "Gemfile.lock", "go.sum", "composer.lock", "Pipfile.lock"};
    if (ENDS(b, suffixes) || lp_str_starts_with(b, lp_str_c("zz_generated")))
        return true;
    /* name_generated.ext, name.generated.ext */
    return has_sub(b, "_generated.") || has_sub(b, ".generated.");
}

static bool dir_is_build_output(lp_str seg, bool top)
{
    static const char *const anywhere[] = {"__pycache__", "cjs", "esm", "umd", ".next",
                                           "_build", "dist-types"};
    static const char *const at_top[] = {"dist", "build", "out", "target", "obj"};
    return IN(seg, anywhere) || (top && IN(seg, at_top));
}

static bool base_is_minified(lp_str b)
{
    static const char *const suffixes[] = {".min.js", ".min.mjs", ".min.css", "-min.js",
                                           "-min.css", ".bundle.js"};
    return ENDS(b, suffixes);
}

static bool dir_is_locale(lp_str seg)
{
    static const char *const dirs[] = {"locale", "locales", "LC_MESSAGES", "translations",
                                       "i18n",   "l10n"};
    return IN(seg, dirs);
}

static bool base_is_catalog(lp_str b)
{
    static const char *const exts[] = {".po", ".pot", ".mo", ".xlf", ".xliff"};
    return ENDS(b, exts);
}

/* A data file inside a locale folder (sphinx's locale/fr/LC_MESSAGES/sphinx.js). */
static bool base_is_locale_data(lp_str b)
{
    static const char *const exts[] = {".js", ".json", ".yml", ".yaml", ".properties", ".ftl"};
    return ENDS(b, exts);
}

static bool dir_is_example(lp_str seg)
{
    static const char *const dirs[] = {"examples", "example", "samples", "sample",
                                       "demo",     "demos",   "_examples"};
    return IN(seg, dirs);
}

/* Folders of project upkeep: CI settings, packaging, change-log fragments. */
static bool dir_is_meta(lp_str seg, bool top)
{
    static const char *const anywhere[] = {"changelog", "changelog.d", "newsfragments",
                                           "changes.d"};
    static const char *const at_top[] = {".github", ".circleci", ".gitlab", "_appveyor",
                                         ".azure-pipelines", "debian", ".ci"};
    return IN(seg, anywhere) || (top && IN(seg, at_top));
}

/* Source code by its extension (a code file in a top-level docs folder is an example). */
static bool base_is_code(lp_str b)
{
    static const char *const exts[] = {".py", ".js",  ".mjs", ".ts",   ".tsx", ".jsx", ".go",
                                       ".rs", ".java", ".c",  ".h",    ".cc",  ".cpp", ".hpp",
                                       ".cs", ".scala", ".rb", ".sh",  ".php", ".kt"};
    return ENDS(b, exts);
}

static bool base_is_meta(lp_str b, bool top, bool in_docs)
{
    /* Names compared without case and with any extension (ChangeLog, CHANGES.rst, ...). */
    static const char *const stems[] = {"changelog", "changes",   "history",  "news",
                                        "contributors", "authors", "maintainers", "copying",
                                        "license",   "licence",   "notice",   "thanks",
                                        "credits",   "codeowners", "makefile", "gnumakefile",
                                        "dockerfile", "manifest",  "requirements", "security",
                                        "code_of_conduct", "contributing"};
    static const char *const names[] = {
        "CMakeLists.txt", "setup.py",   "setup.cfg",     "tox.ini",        "noxfile.py",
        "package.json",   "pyproject.toml", "Cargo.toml", "go.mod",        "pom.xml",
        "build.gradle",   "build.gradle.kts", "settings.gradle", "build.sbt", "meson.build",
        "configure.ac",   "Kbuild",     "Kconfig",       "tsconfig.json",  "pytest.ini",
        ".gitattributes", ".gitignore", ".editorconfig", ".travis.yml",    ".pre-commit-config.yaml",
        "mkdocs.yml",     ".readthedocs.yml", ".readthedocs.yaml", "codecov.yml", "babel.cfg",
        "MANIFEST.in",    "environment.yml", "Gemfile",  "Rakefile",       "BUILD",
        "BUILD.bazel",    "WORKSPACE",  "SConstruct",    "Jenkinsfile",    "Vagrantfile"};
    static const char *const exts[] = {".cmake", ".mk", ".am", ".toml", ".cfg", ".ini"};
    if (IN(b, names) || ENDS(b, exts) || lp_str_starts_with(b, lp_str_c("tsconfig.")))
        return true;
    /* Sphinx's conf.py (in a docs folder or at the top). */
    if (lp_str_eq_c(b, "conf.py") && (top || in_docs))
        return true;
    /* A stem names a meta file only when it is not source code: Manifest.java, changes.py,
     * security_windows.go and history.go are code. */
    if (base_is_code(b))
        return false;
    for (size_t i = 0; i < LP_ARRAY_LEN(stems); i++) {
        size_t m = strlen(stems[i]);
        if (starts_ci(b, stems[i]) && (b.len == m || b.ptr[m] == '.' || b.ptr[m] == '-' ||
                                       b.ptr[m] == '_'))
            return true;
    }
    if (top && (lp_str_ends_with(b, lp_str_c(".yml")) || lp_str_ends_with(b, lp_str_c(".yaml"))))
        return true;
    return false;
}

uint32_t lp_search_path_roles(lp_str p, const char *qname)
{
    uint32_t roles = 0;
    bool in_locale = false, in_docs = false, top_docs = false, in_meta = false;
    size_t nseg = 0;
    size_t i = 0;
    /* Folder segments first: index of "packages" to tell <pkg>/packages/<lib>/... */
    while (i < p.len) {
        size_t j = i;
        while (j < p.len && p.ptr[j] != '/')
            j++;
        lp_str seg = lp_str_sub(p, i, j);
        bool last = j >= p.len;
        if (!last) {
            bool top = nseg == 0;
            if (dir_is_test(seg))
                roles |= LP_ROLE_TEST;
            if (dir_is_vendored(seg))
                roles |= LP_ROLE_VENDORED;
            /* requests/packages/urllib3/...: a package's bundled copy of another one. */
            if (!top && lp_str_eq_c(seg, "packages") && lp_str_find_char(p, '/', j + 1) != SIZE_MAX)
                roles |= LP_ROLE_VENDORED;
            if (dir_is_build_output(seg, top))
                roles |= LP_ROLE_GENERATED;
            if (dir_is_locale(seg))
                in_locale = true;
            if (dir_is_example(seg))
                roles |= LP_ROLE_EXAMPLE;
            if (lp_str_eq_c(seg, "doc") || lp_str_eq_c(seg, "docs")) {
                in_docs = true;
                top_docs |= top;
            }
            if (dir_is_meta(seg, top))
                in_meta = true;
        } else {
            bool top = nseg == 0;
            if (base_is_test(seg))
                roles |= LP_ROLE_TEST;
            if (base_is_vendored(seg))
                roles |= LP_ROLE_VENDORED;
            if (base_is_generated(seg))
                roles |= LP_ROLE_GENERATED;
            if (base_is_minified(seg))
                roles |= LP_ROLE_MINIFIED;
            if (base_is_catalog(seg) || (in_locale && base_is_locale_data(seg)))
                roles |= LP_ROLE_LOCALE;
            if (base_is_meta(seg, top, in_docs) || in_meta)
                roles |= LP_ROLE_META;
            else if (top_docs && base_is_code(seg))
                roles |= LP_ROLE_EXAMPLE; /* doc/data/messages/a/x/bad.py, docs/snippets/ */
        }
        nseg++;
        i = j + 1;
    }
    if (qname) {
        lp_str q = lp_str_c(qname);
        if (lp_str_starts_with(q, lp_str_c("tests.")) || lp_str_starts_with(q, lp_str_c("tests::")) ||
            has_sub(q, ".tests.") || has_sub(q, "::tests"))
            roles |= LP_ROLE_TEST;
    }
    return roles;
}

/* ------------------------------------------------------------------------------------------
 * .gitattributes of the publication. */

typedef struct attr_rule {
    const char *pattern; /* relative to the file's folder; no leading '/' */
    bool has_slash;      /* anchored: matched against the relative path, else the base name */
    int8_t gen, vend;    /* 1 set, 0 unset, -1 not mentioned */
} attr_rule;

typedef struct attr_dir {
    const char *dir; /* "" for the root */
    attr_rule *rules;
    size_t nrules;
} attr_dir;

typedef struct role_entry {
    uint64_t hash;
    int64_t bid;
    const char *path;
    const char *qname;
    uint32_t roles;
} role_entry;

struct lp_roles {
    lp_store *st;
    lp_arena arena;
    LP_VEC(attr_dir) dirs;
    LP_VEC(role_entry) cache;
};

/* "true" and a bare name set, "-name" and "name=false" unset; anything else ignores. */
static int8_t attr_value(lp_str tok, const char *name)
{
    size_t m = strlen(name);
    bool neg = tok.len && (tok.ptr[0] == '-' || tok.ptr[0] == '!');
    lp_str t = neg ? lp_str_sub(tok, 1, tok.len) : tok;
    if (t.len < m || memcmp(t.ptr, name, m))
        return -1;
    if (t.len == m)
        return neg ? 0 : 1;
    if (t.ptr[m] != '=' || neg)
        return -1;
    lp_str v = lp_str_sub(t, m + 1, t.len);
    if (lp_str_eq_c(v, "true") || lp_str_eq_c(v, "1"))
        return 1;
    if (lp_str_eq_c(v, "false") || lp_str_eq_c(v, "0"))
        return 0;
    return -1;
}

static void parse_attrs(lp_roles *r, attr_dir *d, lp_str text)
{
    LP_VEC(attr_rule) rules = {0};
    size_t i = 0;
    while (i < text.len) {
        size_t e = lp_str_find_char(text, '\n', i);
        if (e == SIZE_MAX)
            e = text.len;
        lp_str line = lp_str_trim(lp_str_sub(text, i, e));
        i = e + 1;
        if (!line.len || line.ptr[0] == '#')
            continue;
        attr_rule rule = {.gen = -1, .vend = -1};
        size_t k = 0, ntok = 0;
        lp_str pat = {0};
        while (k < line.len) {
            while (k < line.len && (line.ptr[k] == ' ' || line.ptr[k] == '\t'))
                k++;
            size_t s = k;
            while (k < line.len && line.ptr[k] != ' ' && line.ptr[k] != '\t')
                k++;
            if (k == s)
                break;
            lp_str tok = lp_str_sub(line, s, k);
            if (ntok++ == 0) {
                pat = tok;
                continue;
            }
            int8_t v;
            if ((v = attr_value(tok, "linguist-generated")) >= 0)
                rule.gen = v;
            if ((v = attr_value(tok, "linguist-vendored")) >= 0)
                rule.vend = v;
        }
        if ((rule.gen < 0 && rule.vend < 0) || !pat.len || pat.ptr[pat.len - 1] == '/')
            continue; /* git never matches a folder pattern against attributes of files */
        if (pat.ptr[0] == '/')
            pat = lp_str_sub(pat, 1, pat.len);
        rule.has_slash = lp_str_find_char(pat, '/', 0) != SIZE_MAX;
        rule.pattern = lp_arena_strndup(&r->arena, pat.ptr, pat.len);
        lp_vec_push(&rules, rule);
    }
    if (rules.len) {
        d->rules = lp_arena_alloc(&r->arena, rules.len * sizeof *d->rules);
        memcpy(d->rules, rules.items, rules.len * sizeof *d->rules);
        d->nrules = rules.len;
    }
    lp_vec_free(&rules);
}

static const attr_dir *dir_get(lp_roles *r, lp_str dir)
{
    for (size_t i = 0; i < r->dirs.len; i++)
        if (lp_str_eq_c(dir, r->dirs.items[i].dir))
            return &r->dirs.items[i];
    attr_dir *d = lp_vec_push_zero(&r->dirs);
    d->dir = lp_arena_strndup(&r->arena, dir.ptr, dir.len);
    lp_buf path;
    lp_buf_init(&path, 0);
    if (dir.len)
        lp_buf_printf(&path, LP_STR_FMT "/", LP_STR_ARG(dir));
    lp_buf_puts(&path, ".gitattributes");
    sqlite3_stmt *s;
    int64_t bid = 0;
    if (!lp_store_prepare(r->st, "SELECT bid FROM files WHERE path = ?1", &s, NULL)) {
        sqlite3_bind_text(s, 1, path.ptr, (int)path.len, SQLITE_STATIC);
        if (sqlite3_step(s) == SQLITE_ROW)
            bid = sqlite3_column_int64(s, 0);
        sqlite3_reset(s);
    }
    if (bid) {
        lp_buf text;
        lp_buf_init(&text, 0);
        if (lp_store_content_get(r->st, bid, &text, NULL) == LP_OK)
            parse_attrs(r, d, lp_buf_str(&text));
        lp_buf_release(&text);
    }
    lp_buf_release(&path);
    return d;
}

static uint32_t attr_roles(lp_roles *r, lp_str path)
{
    int8_t gen = -1, vend = -1;
    size_t base = 0;
    for (;;) { /* folders from the root down: deeper files override */
        lp_str dir = lp_str_sub(path, 0, base ? base - 1 : 0);
        const attr_dir *d = dir_get(r, dir);
        lp_str rel = lp_str_sub(path, base, path.len);
        size_t slash = rel.len;
        while (slash > 0 && rel.ptr[slash - 1] != '/')
            slash--;
        lp_str name = lp_str_sub(rel, slash, rel.len);
        for (size_t i = 0; i < d->nrules; i++) {
            const attr_rule *a = &d->rules[i];
            if (!lp_wildmatch(lp_str_c(a->pattern), a->has_slash ? rel : name,
                              LP_WILDMATCH_PATHNAME))
                continue;
            if (a->gen >= 0)
                gen = a->gen;
            if (a->vend >= 0)
                vend = a->vend;
        }
        size_t next = lp_str_find_char(path, '/', base);
        if (next == SIZE_MAX)
            break;
        base = next + 1;
    }
    return (gen == 1 ? LP_ROLE_GENERATED : 0u) | (vend == 1 ? LP_ROLE_VENDORED : 0u);
}

static uint32_t blob_roles(lp_roles *r, int64_t bid)
{
    sqlite3_stmt *s;
    int flags = 0;
    if (lp_store_prepare(r->st, "SELECT flags FROM blobs WHERE bid = ?1", &s, NULL))
        return 0;
    sqlite3_bind_int64(s, 1, bid);
    if (sqlite3_step(s) == SQLITE_ROW)
        flags = sqlite3_column_int(s, 0);
    sqlite3_reset(s);
    return (flags & LP_BLOB_GENERATED ? LP_ROLE_GENERATED : 0u) |
           (flags & LP_BLOB_MINIFIED ? LP_ROLE_MINIFIED : 0u);
}

lp_roles *lp_roles_new(lp_store *st)
{
    lp_roles *r = lp_xcalloc(1, sizeof *r);
    r->st = st;
    lp_arena_init(&r->arena, 0);
    return r;
}

void lp_roles_free(lp_roles *r)
{
    if (!r)
        return;
    lp_arena_release(&r->arena);
    lp_vec_free(&r->dirs);
    lp_vec_free(&r->cache);
    free(r);
}

uint32_t lp_roles_of(lp_roles *r, int64_t bid, const char *path, const char *qname)
{
    uint64_t h = lp_hash64_of(path, strlen(path)) ^ (uint64_t)bid * 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < r->cache.len; i++) {
        const role_entry *e = &r->cache.items[i];
        if (e->hash == h && e->bid == bid && !strcmp(e->path, path) &&
            (e->qname == qname || (e->qname && qname && !strcmp(e->qname, qname))))
            return e->roles;
    }
    lp_str p = lp_str_c(path);
    uint32_t roles = lp_search_path_roles(p, qname) | blob_roles(r, bid) | attr_roles(r, p);
    lp_vec_push(&r->cache, ((role_entry){h, bid, path, qname, roles}));
    return roles;
}

/* ------------------------------------------------------------------------------------------
 * The runtime scope's factors (measured: docs/decisions/0013-file-roles.md).
 * LOUPE_ROLE_TUNE="foreign=F,generated=F,meta=F,example=F" overrides them, for tuning runs
 * only. */

typedef struct role_factors {
    double foreign, generated, meta, example;
} role_factors;
static role_factors factors = {.foreign = 0.3, .generated = 0.7, .meta = 0.5, .example = 0.6};
static pthread_once_t factors_once = PTHREAD_ONCE_INIT;

static void factors_load(void)
{
    static const lp_tune_field fields[] = {
        {"foreign", offsetof(role_factors, foreign)},
        {"generated", offsetof(role_factors, generated)},
        {"meta", offsetof(role_factors, meta)},
        {"example", offsetof(role_factors, example)},
    };
    lp_search_tune_env(LP_SET_ROLE_TUNE, fields, LP_ARRAY_LEN(fields), &factors, false);
}

double lp_roles_factor(uint32_t roles, bool about_tests, bool spare_foreign, double demote_test)
{
    pthread_once(&factors_once, factors_load);
    double m = 1.0;
    if ((roles & LP_ROLE_TEST) && !about_tests)
        m *= demote_test;
    /* Generated code alone is often the one implementation (a bundled package, tables a
     * tool wrote): demoted less than copies of other projects, minified files and locale
     * catalogs. */
    if ((roles & LP_ROLE_FOREIGN) && !spare_foreign)
        m *= roles & (LP_ROLE_FOREIGN & ~LP_ROLE_GENERATED) ? factors.foreign : factors.generated;
    if (roles & LP_ROLE_META)
        m *= factors.meta;
    if ((roles & LP_ROLE_EXAMPLE) && !(roles & LP_ROLE_TEST))
        m *= factors.example;
    return m;
}
