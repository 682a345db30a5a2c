#!/usr/bin/env python3
"""tests/library/test_library.py: the C library as a user gets it.

`make install` into a temporary DESTDIR, then: the shared library exports lp_* only
(nm -D), the installed header compiles alone (C99, C11, C++), examples/search.c builds
against the INSTALLED library through pkg-config (shared and static) and answers a question,
errors carry a stable reason, and an index built through the library is served by the CLI
with the same fingerprint (the engine, not lp_cli_main, registers the embedding identity).

Prints `ok - name` / `not ok - name` lines (tests/run.py counts them).
Usage: tests/library/test_library.py [--build DIR]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def sh(cmd, env=None, check=True, cwd=ROOT):
    full = dict(os.environ)
    full.update(env or {})
    p = subprocess.run(cmd, cwd=cwd, env=full, capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} exited {p.returncode}:\n{p.stdout}\n{p.stderr}")
    return p


class Ctx:
    def __init__(self, build, tmp):
        self.build = build
        self.tmp = tmp
        self.dest = os.path.join(tmp, "dest")
        self.prefix = "/usr"
        self.inst = self.dest + self.prefix
        self.pc_env = {"PKG_CONFIG_PATH": os.path.join(self.inst, "lib", "pkgconfig")}
        self.run_env = {"LD_LIBRARY_PATH": os.path.join(self.inst, "lib"),
                        "LOUPE_HOME": os.path.join(tmp, "home")}
        self.repo = os.path.join(tmp, "repo")

    def pkg(self, *args):
        return sh(["pkg-config", "--define-prefix", *args, "loupe"],
                  env=self.pc_env).stdout.split()


def setup(ctx):
    sh(["make", "-s", "--no-print-directory", "install", f"DESTDIR={ctx.dest}",
        f"PREFIX={ctx.prefix}", f"B={os.path.relpath(ctx.build, ROOT)}"])
    os.makedirs(os.path.join(ctx.repo, "src"))
    with open(os.path.join(ctx.repo, "src", "session.py"), "w") as f:
        f.write("class SessionManager:\n"
                "    def refresh_access_token(self, session):\n"
                "        \"\"\"Refresh the access token when it expired.\"\"\"\n"
                "        return session.renew()\n\n"
                "def parse_config(path):\n"
                "    return open(path).read()\n")


def test_installed_files(ctx):
    for rel in ["bin/loupe", "lib/libloupe.a", "lib/libloupe.so", "lib/libloupe.so.0",
                "include/loupe.h", "lib/pkgconfig/loupe.pc"]:
        assert os.path.exists(os.path.join(ctx.inst, rel)), f"{rel} was not installed"
    pc = open(os.path.join(ctx.inst, "lib/pkgconfig/loupe.pc")).read()
    assert "prefix=/usr\n" in pc, pc


def test_exports_lp_only(ctx):
    out = sh(["nm", "-D", "--defined-only", os.path.join(ctx.inst, "lib/libloupe.so.0")]).stdout
    names = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] != "A":  # A: the version node (LOUPE_0)
            names.append(parts[2].split("@")[0])
    bad = [n for n in names if not n.startswith("lp_")]
    assert not bad, f"{len(bad)} exported symbols lack lp_: {bad[:20]}"
    for want in ["lp_engine_new", "lp_engine_free", "lp_engine_index", "lp_engine_search",
                 "lp_engine_status", "lp_engine_search_result_free", "lp_status_code"]:
        assert want in names, f"{want} is not exported"
    soname = sh(["objdump", "-p", os.path.join(ctx.inst, "lib/libloupe.so.0")]).stdout
    assert "SONAME               libloupe.so.0" in soname, soname


def test_header_alone(ctx):
    src = os.path.join(ctx.tmp, "h.c")
    with open(src, "w") as f:
        f.write("#include <loupe.h>\nint main(void) { lp_error e = {0}; "
                "return (int)e.code + LOUPE_ABI_VERSION - 1; }\n")
    inc = f"-I{ctx.inst}/include"
    for std in ["-std=c99", "-std=c11"]:
        sh(["cc", std, "-Wall", "-Wextra", "-Wpedantic", "-Werror", inc, "-c", src, "-o",
            os.path.join(ctx.tmp, "h.o")])
    cpp = os.path.join(ctx.tmp, "h.cc")
    with open(cpp, "w") as f:
        f.write("#include <loupe.h>\nint main() { lp_error e{}; lp_engine *x = nullptr; "
                "lp_engine_free(x); return (int)e.code; }\n")
    sh(["c++", "-std=c++11", "-Wall", "-Wextra", "-Werror", inc, "-c", cpp, "-o",
        os.path.join(ctx.tmp, "h.o")])


def build_example(ctx, static):
    out = os.path.join(ctx.tmp, "search-static" if static else "search")
    cflags = ctx.pkg("--cflags")
    if static:
        libs = [a if a != "-lloupe" else "-l:libloupe.a" for a in ctx.pkg("--static", "--libs")]
    else:
        libs = ctx.pkg("--libs")
    sh(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", os.path.join(ROOT, "examples/search.c"),
        *cflags, *libs, "-o", out])
    assert os.path.getsize(os.path.join(ROOT, "examples/search.c")) > 0
    lines = open(os.path.join(ROOT, "examples/search.c")).read().count("\n")
    assert lines < 40, f"examples/search.c has {lines} lines (the promise is under 40)"
    return out


def check_answer(ctx, exe):
    p = sh([exe, ctx.repo, "where is the access token refreshed"], env=ctx.run_env)
    lines = p.stdout.splitlines()
    assert lines and lines[0].startswith("publication "), p.stdout
    assert "src/session.py" in lines[1] and "refresh_access_token" in lines[1], p.stdout


def test_example_shared(ctx):
    exe = build_example(ctx, static=False)
    ldd = sh(["ldd", exe], env=ctx.run_env).stdout
    assert os.path.join(ctx.inst, "lib/libloupe.so.0") in ldd, ldd
    check_answer(ctx, exe)


def test_example_static(ctx):
    exe = build_example(ctx, static=True)
    ldd = sh(["ldd", exe]).stdout
    assert "libloupe" not in ldd, ldd
    check_answer(ctx, exe)


def test_error_reason(ctx):
    exe = build_example(ctx, static=False)
    p = sh([exe, os.path.join(ctx.tmp, "no-such-folder"), "x"], env=ctx.run_env, check=False)
    assert p.returncode == 1, (p.returncode, p.stderr)
    assert "(not_found)" in p.stderr, p.stderr
    env = dict(ctx.run_env)
    env["LOUPE_HOME"] = os.path.join(ctx.tmp, "home-bad")
    os.makedirs(env["LOUPE_HOME"], exist_ok=True)
    with open(os.path.join(env["LOUPE_HOME"], "loupe.toml"), "w") as f:
        f.write("# settings\nfrozen_ttl_ms = 1000\nfrozen_max_sets = \"many\"\n")
    p = sh([exe, ctx.repo, "x"], env=env, check=False)
    assert p.returncode == 1, (p.returncode, p.stderr)
    assert "loupe.toml:3:" in p.stderr and "(config_invalid)" in p.stderr, p.stderr


def test_fingerprint_same_as_cli(ctx):
    # An index built through the library with the dense channel on must be served by the CLI
    # (same fingerprint: the embedding identity comes from the engine, not lp_cli_main).
    exe = build_example(ctx, static=False)
    env = dict(ctx.run_env)
    env["LOUPE_HOME"] = os.path.join(ctx.tmp, "home-dense")
    env["LOUPE_DENSE"] = "1"
    sh([exe, ctx.repo, "refresh token"], env=env)
    loupe = os.path.join(ctx.inst, "bin/loupe")
    p = sh([loupe, "search", "--path", ctx.repo, "--json", "refresh token"], env=env,
           check=False)
    assert p.returncode == 0, (p.returncode, p.stdout, p.stderr)
    st = sh([loupe, "status", "--json", ctx.repo], env=env).stdout
    assert "embedding=" in st and "embedding=none" not in st, st


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("-k", default=None)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="loupe-lib-")
    ctx = Ctx(os.path.abspath(args.build), tmp)
    passed = failed = 0
    try:
        setup(ctx)
    except Exception:
        print("not ok - library.setup (make install)")
        traceback.print_exc(file=sys.stdout)
        shutil.rmtree(tmp, ignore_errors=True)
        return 1
    tests = [(n, f) for n, f in sorted(globals().items()) if n.startswith("test_")]
    for name, fn in tests:
        if args.k and args.k not in name:
            continue
        try:
            fn(ctx)
            print(f"ok - library.{name}", flush=True)
            passed += 1
        except Exception:
            print(f"not ok - library.{name}", flush=True)
            for line in traceback.format_exc().splitlines():
                print(f"# {line}")
            failed += 1
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
