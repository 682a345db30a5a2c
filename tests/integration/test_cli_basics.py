"""The CLI's basic contract: version, help, unknown commands."""


def test_version(ctx):
    r = ctx.ok("version")
    assert r.out.startswith("loupe "), r


def test_unknown_command_is_usage_error(ctx):
    r = ctx.run("frobnicate")
    assert r.rc == 2, r
    assert "unknown command" in r.err and "--help" in r.err, r


def _huge_heap_kib(ctx, *args, env=None):
    """KiB of [heap] advised for huge pages ("hg") in a running `loupe ARGS...`, read from
    /proc/PID/smaps while it runs (0 if it never showed any)."""
    import subprocess
    import time
    p = ctx.spawn(*args, env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                  stderr=subprocess.DEVNULL)
    try:
        advised = 0
        for _ in range(50):  # the reserve is made before main does anything else
            try:
                with open(f"/proc/{p.pid}/smaps") as f:
                    lines = f.read().splitlines()
            except OSError:
                break
            # The heap may show as two mappings: its unaligned head and the advised rest.
            advised, in_heap, size = 0, False, 0
            for l in lines:
                if not l[:1].isspace() and "-" in l.split(" ", 1)[0]:
                    in_heap = l.endswith("[heap]")
                elif in_heap and l.startswith("Size:"):
                    size = int(l.split()[1])
                elif in_heap and l.startswith("VmFlags:") and "hg" in l.split()[1:]:
                    advised += size
            if advised:
                break
            time.sleep(0.02)
        return advised
    finally:
        p.stdin.close()
        p.kill()
        p.wait(timeout=30)


def test_heap_is_reserved_on_huge_pages_unless_turned_off(ctx):
    # Under a sanitizer the sanitizer's allocator owns the heap and nothing is advised.
    sanitized = "/asan/" in ctx.loupe or "/tsan/" in ctx.loupe
    # A command that runs and exits: an index build, slowed down so it can be looked at.
    files = {f"m{i:03d}.py": f"def f{i}():\n    return {i}\n" for i in range(200)}
    for rel, text in files.items():
        ctx.write(rel, text, root=ctx.path("repo"))
    slow = {"LOUPE_TEST_WRITE_DELAY_US": "20000"}
    cli = _huge_heap_kib(ctx, "index", ctx.path("repo"), env=slow)
    server = _huge_heap_kib(ctx, "mcp")
    assert _huge_heap_kib(ctx, "mcp", env={"LOUPE_NO_HUGEPAGES": "1"}) == 0
    if sanitized:
        assert cli == 0 and server == 0, (cli, server)
        return
    # The whole reserve (256 MiB) stays mapped and advised after its chunks are freed (a
    # trim threshold below the grown size once gave all but malloc's 16 MiB top pad back,
    # and the advice covered only that).
    assert cli >= 250 * 1024, cli
    # The MCP server, which runs for hours, makes none: its heap would only grow.
    assert server == 0, server
