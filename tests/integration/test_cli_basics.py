"""The CLI's basic contract: version, help, unknown commands."""


def test_version(ctx):
    r = ctx.ok("version")
    assert r.out.startswith("loupe "), r


def test_unknown_command_is_usage_error(ctx):
    r = ctx.run("frobnicate")
    assert r.rc == 2, r
    assert "unknown command" in r.err and "--help" in r.err, r
