/*
 * cmd_doctor.c: `loupe doctor`: checks the binary, the state folder and each coding agent's
 * configuration, and every indexed root's state, and says what to fix.
 */
#include "cli/cli_int.h"
#include "cli/install.h"
#include "index/index.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

typedef struct report {
    int problems;
    int warnings;
} report;

static void ok(const char *what, const char *detail)
{
    printf("ok    %-14s %s\n", what, detail);
}

static void warn(report *r, const char *what, const char *detail, const char *fix)
{
    r->warnings++;
    printf("warn  %-14s %s\n", what, detail);
    if (fix)
        printf("      %-14s fix: %s\n", "", fix);
}

static void problem(report *r, const char *what, const char *detail, const char *fix)
{
    r->problems++;
    printf("FAIL  %-14s %s\n", what, detail);
    if (fix)
        printf("      %-14s fix: %s\n", "", fix);
}

/*
 * The index checks: every indexed root's state (publication, fingerprint, freshness, the
 * live writer), and the continuation cache. One line per root, with the command that fixes
 * what is wrong.
 */
static void lp_doctor_check_indexes(report *r, const char *state_dir)
{
    lp_error err = {0};
    lp_root_entry *roots = NULL;
    size_t n = 0;
    lp_buf msg, fix;
    lp_buf_init(&msg, 0);
    lp_buf_init(&fix, 0);
    if (lp_store_list_roots(&roots, &n, &err)) {
        problem(r, "indexes", err.msg, "check that the state folder is readable");
        goto done;
    }
    if (n == 0)
        ok("indexes", "no codebase is indexed yet (index one with 'loupe index PATH')");
    for (size_t i = 0; i < n; i++) {
        const char *root = roots[i].root;
        lp_buf_reset(&msg);
        lp_buf_reset(&fix);
        struct stat sb;
        if (stat(root, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
            lp_buf_printf(&msg, "%s: the folder no longer exists", root);
            lp_buf_printf(&fix, "remove its index with 'loupe clear %s'", root);
            warn(r, "index", msg.ptr, fix.ptr);
            continue;
        }
        lp_index_status s;
        lp_error e2 = {0};
        if (lp_index_status_get(root, true, &s, &e2)) {
            lp_buf_printf(&msg, "%s: %s", root, e2.msg);
            lp_buf_printf(&fix, "rebuild it with 'loupe reindex %s'", root);
            problem(r, "index", msg.ptr, fix.ptr);
            continue;
        }
        if (s.state != LP_STATE_INDEXING && s.state != LP_STATE_NOT_INDEXED &&
            s.state != LP_STATE_DAMAGED) {
            /* Pages no query has read yet can be damaged too: walk the whole file. */
            lp_store *st = NULL;
            if (lp_store_open(root, LP_STORE_READ, &st, &e2) || lp_store_check(st, true, &e2)) {
                if (e2.code == LP_ECORRUPT) {
                    s.state = LP_STATE_DAMAGED;
                    if (!lp_store_damage_get(root, s.damage, sizeof s.damage))
                        snprintf(s.damage, sizeof s.damage, "%.*s", (int)sizeof s.damage - 1, e2.msg);
                } else {
                    lp_buf_printf(&msg, "%s: checking the database: %s", root, e2.msg);
                    warn(r, "index", msg.ptr, NULL);
                    lp_buf_reset(&msg);
                }
            }
            lp_store_close(st);
        }
        lp_buf_printf(&msg, "%s: %s", root, lp_index_state_name(s.state));
        if (s.pub.id)
            lp_buf_printf(&msg, ", publication %lld (%lld files, %lld symbols)",
                          (long long)s.pub.id, (long long)s.pub.files, (long long)s.pub.symbols);
        switch (s.state) {
        case LP_STATE_READY:
            lp_buf_puts(&msg, ", fresh");
            if (s.pub.partial) {
                lp_buf_puts(&msg, ", PARTIAL (the searchable-byte limit was reached)");
                lp_buf_printf(&fix, "raise the limit: 'loupe reindex %s --max-total-bytes N'",
                              root);
                warn(r, "index", msg.ptr, fix.ptr);
            } else {
                ok("index", msg.ptr);
            }
            break;
        case LP_STATE_STALE:
            lp_buf_printf(&msg, ": %llu changed, %llu added, %llu deleted since (e.g. %s)",
                          (unsigned long long)s.changed, (unsigned long long)s.added,
                          (unsigned long long)s.deleted, s.sample_changed);
            lp_buf_printf(&fix, "run 'loupe sync %s'", root);
            warn(r, "index", msg.ptr, fix.ptr);
            break;
        case LP_STATE_INDEXING:
            lp_buf_printf(&msg, ": pid %ld is running '%s' (%s, %llu of %llu files)",
                          s.lease.pid, s.lease.op, s.lease.phase,
                          (unsigned long long)s.lease.files_done,
                          (unsigned long long)s.lease.files_total);
            ok("index", msg.ptr);
            break;
        case LP_STATE_DAMAGED:
            lp_buf_printf(&msg, ": the database is damaged (%s), not served", s.damage);
            lp_buf_printf(&fix, "run 'loupe reindex %s' (rebuilds it; the damaged file is kept "
                                "aside for a bug report)",
                          root);
            problem(r, "index", msg.ptr, fix.ptr);
            break;
        case LP_STATE_REQUIRES_REINDEX:
        {
            char why[LP_ERROR_MSG_MAX * 2];
            lp_fingerprint_explain(&s.pub, root, false, why, sizeof why);
            lp_buf_printf(&msg, ": not served: %s", why);
            lp_buf_printf(&fix, "run 'loupe reindex %s' (or run loupe with the settings the "
                                "index was built with)",
                          root);
        }
            problem(r, "index", msg.ptr, fix.ptr);
            break;
        default:
            lp_buf_puts(&msg, ": no publication");
            lp_buf_printf(&fix, "run 'loupe index %s' (or 'loupe clear %s')", root, root);
            warn(r, "index", msg.ptr, fix.ptr);
            break;
        }
    }
    /* The continuation cache (frozen search result sets). */
    lp_buf_reset(&msg);
    lp_buf_printf(&msg, "%s/frozen", state_dir);
    DIR *d = opendir(msg.ptr);
    if (d) {
        size_t sets = 0;
        uint64_t bytes = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
            struct stat sb;
            if (de->d_name[0] != '.' && fstatat(dirfd(d), de->d_name, &sb, 0) == 0 &&
                S_ISREG(sb.st_mode)) {
                sets++;
                bytes += (uint64_t)sb.st_size;
            }
        }
        closedir(d);
        lp_buf_reset(&fix);
        lp_buf_printf(&fix, "%zu search result set(s), %.1f KiB (a cache; expires by itself)",
                      sets, (double)bytes / 1024.0);
        ok("continuations", fix.ptr);
    }
done:
    lp_store_roots_free(roots, n);
    lp_buf_release(&msg);
    lp_buf_release(&fix);
}

#define PROBE_BYTES ((size_t)64 << 10)
#define SPACE_FAIL ((uint64_t)16 << 20)  /* below this, a sync of a few files fails */
#define SPACE_WARN ((uint64_t)256 << 20) /* or below 2x the largest index: a reindex fails */

/* The largest index.db (with its -wal) under the state folder's roots/. */
static uint64_t largest_index(const char *dir)
{
    lp_buf p;
    lp_buf_init(&p, 0);
    lp_buf_printf(&p, "%s/roots", dir);
    uint64_t best = 0;
    DIR *d = opendir(p.ptr);
    for (struct dirent *de; d && (de = readdir(d));) {
        if (de->d_name[0] == '.')
            continue;
        uint64_t sum = 0;
        static const char *const files[] = {"index.db", "index.db-wal"};
        for (size_t i = 0; i < LP_ARRAY_LEN(files); i++) {
            lp_buf_reset(&p);
            lp_buf_printf(&p, "%s/roots/%s/%s", dir, de->d_name, files[i]);
            struct stat sb;
            if (stat(p.ptr, &sb) == 0)
                sum += (uint64_t)sb.st_size;
        }
        best = LP_MAX(best, sum);
    }
    if (d)
        closedir(d);
    lp_buf_release(&p);
    return best;
}

/* Free space where the state folder lives: a failure below SPACE_FAIL, a warning below
 * SPACE_WARN or twice the largest index (a reindex writes a whole new one beside it). */
static void check_space(report *r, const char *dir)
{
    struct statvfs vs;
    lp_buf m;
    lp_buf_init(&m, 0);
    if (statvfs(dir, &vs) != 0) {
        lp_buf_printf(&m, "%s (free space unknown: %s)", dir, strerror(errno));
        ok("state folder", m.ptr);
        lp_buf_release(&m);
        return;
    }
    uint64_t avail = (uint64_t)vs.f_bavail * (uint64_t)vs.f_frsize;
    uint64_t biggest = largest_index(dir);
    uint64_t want = LP_MAX(SPACE_WARN, 2 * biggest);
    lp_buf_printf(&m, "%s (%.1f MiB free on its disk", dir, (double)avail / 1048576.0);
    if (biggest)
        lp_buf_printf(&m, "; largest index %.1f MiB", (double)biggest / 1048576.0);
    lp_buf_puts(&m, ")");
    if (avail < SPACE_FAIL)
        problem(r, "state folder", m.ptr,
                "the disk is (nearly) full: builds and searches will fail; free space, or set "
                "LOUPE_HOME to a folder on another disk");
    else if (avail < want)
        warn(r, "state folder", m.ptr,
             "little free space: a reindex writes a whole new index beside the old one; free "
             "space, or set LOUPE_HOME to a folder on another disk");
    else
        ok("state folder", m.ptr);
    lp_buf_release(&m);
}

static void check_state(report *r, lp_buf *dir)
{
    lp_error err = {0};
    if (lp_state_dir(dir, &err)) {
        problem(r, "state folder", err.msg, "set LOUPE_HOME to a writable folder");
        return;
    }
    if (lp_mkdir_p(dir->ptr, &err)) {
        lp_buf m;
        lp_buf_init(&m, 0);
        lp_buf_printf(&m, "%s cannot be created: %s", dir->ptr, err.msg);
        problem(r, "state folder", m.ptr, "set LOUPE_HOME to a writable folder");
        lp_buf_release(&m);
        return;
    }
    lp_buf probe;
    lp_buf_init(&probe, 0);
    lp_buf_printf(&probe, "%s/.doctor-probe", dir->ptr);
    /* A probe the size of a few database pages, synced: a folder with a few bytes left is
     * not a working state folder. */
    char *bytes = lp_xcalloc(1, PROBE_BYTES);
    if (lp_write_file_atomic(probe.ptr, bytes, PROBE_BYTES, &err) == LP_OK) {
        unlink(probe.ptr);
        check_space(r, dir->ptr);
    } else {
        lp_buf m;
        lp_buf_init(&m, 0);
        lp_buf_printf(&m, "%s is not writable (%s)", dir->ptr, err.msg);
        problem(r, "state folder", m.ptr,
                err.code == LP_ENOSPC ? "free space on its disk, or set LOUPE_HOME to a folder "
                                        "on another disk"
                                      : "make it writable, or set LOUPE_HOME to a writable folder");
        lp_buf_release(&m);
    }
    free(bytes);
    lp_buf_release(&probe);
}

/*
 * The MCP round trip: start `<cmd> mcp` as the client would, send initialize, the
 * initialized notification and tools/list, and read both answers within PROBE_MS. Returns
 * true with the server's name and tool count in out, or false with what went wrong.
 */
#define PROBE_MS 15000

static bool probe_line(const char *line, size_t n, int *got_init, size_t *ntools, lp_buf *out)
{
    json_t *m = json_loadb(line, n, 0, NULL);
    if (!m)
        return false;
    json_int_t id = json_integer_value(json_object_get(m, "id"));
    json_t *res = json_object_get(m, "result");
    json_t *e = json_object_get(m, "error");
    bool bad = false;
    if (e) {
        const char *msg = json_string_value(json_object_get(e, "message"));
        lp_buf_printf(out, "the server answered request %lld with an error: %s", (long long)id,
                      msg ? msg : "(no message)");
        bad = true;
    } else if (id == 1 && json_is_object(res)) {
        *got_init = 1;
    } else if (id == 2 && json_is_array(json_object_get(res, "tools"))) {
        *ntools = json_array_size(json_object_get(res, "tools"));
    }
    json_decref(m);
    return bad;
}

static bool mcp_probe(const char *cmd, lp_buf *out)
{
    static const char req[] =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
        "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
        "\"clientInfo\":{\"name\":\"loupe-doctor\",\"version\":\"1\"}}}\n"
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n";
    int in[2], outp[2];
    if (pipe2(in, O_CLOEXEC) != 0)
        goto fail_errno;
    if (pipe2(outp, O_CLOEXEC) != 0) {
        close(in[0]);
        close(in[1]);
        goto fail_errno;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(in[0]);
        close(in[1]);
        close(outp[0]);
        close(outp[1]);
        goto fail_errno;
    }
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        dup2(in[0], 0);
        dup2(outp[1], 1);
        if (devnull >= 0)
            dup2(devnull, 2);
        char *const argv[] = {(char *)cmd, (char *)"mcp", NULL};
        execv(cmd, argv);
        _exit(127);
    }
    close(in[0]);
    close(outp[1]);
    signal(SIGPIPE, SIG_IGN);
    bool wrote = write(in[1], req, sizeof req - 1) == (ssize_t)(sizeof req - 1);
    lp_buf acc;
    lp_buf_init(&acc, (size_t)16 << 20); /* tools/list is tens of KiB */
    int got_init = 0;
    size_t ntools = SIZE_MAX;
    bool bad = !wrote, eof = false;
    if (!wrote)
        lp_buf_printf(out, "could not send the requests to '%s mcp'", cmd);
    uint64_t deadline = lp_now_ns() + (uint64_t)PROBE_MS * 1000000u;
    while (!bad && !eof && (!got_init || ntools == SIZE_MAX)) {
        uint64_t now = lp_now_ns();
        if (now >= deadline)
            break;
        struct pollfd pf = {.fd = outp[0], .events = POLLIN};
        int pr = poll(&pf, 1, (int)((deadline - now) / 1000000u) + 1);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0)
            break;
        char chunk[8192];
        ssize_t r = read(outp[0], chunk, sizeof chunk);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            eof = true;
            break;
        }
        lp_buf_append(&acc, chunk, (size_t)r);
        size_t start = 0;
        for (size_t i = 0; i < acc.len && !bad; i++) {
            if (acc.ptr[i] != '\n')
                continue;
            bad = probe_line(acc.ptr + start, i - start, &got_init, &ntools, out);
            start = i + 1;
        }
        memmove(acc.ptr, acc.ptr + start, acc.len - start);
        acc.len -= start;
    }
    close(in[1]); /* end of input: the server exits */
    close(outp[0]);
    int status = 0;
    for (int i = 0; i < 40 && waitpid(pid, &status, WNOHANG) == 0; i++)
        usleep(50000);
    if (waitpid(pid, &status, WNOHANG) == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    lp_buf_release(&acc);
    if (bad)
        return false;
    if (got_init && ntools != SIZE_MAX) {
        lp_buf_printf(out, "'%s mcp' answered initialize and tools/list (%zu tools)", cmd,
                      ntools);
        return true;
    }
    if (eof && WIFEXITED(status) && WEXITSTATUS(status) == 127)
        lp_buf_printf(out, "'%s mcp' could not be started", cmd);
    else if (eof)
        lp_buf_printf(out, "'%s mcp' exited before answering %s (exit status %d)", cmd,
                      got_init ? "tools/list" : "initialize",
                      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    else
        lp_buf_printf(out, "'%s mcp' did not answer %s within %d s", cmd,
                      got_init ? "tools/list" : "initialize", PROBE_MS / 1000);
    return false;
fail_errno:
    lp_buf_printf(out, "cannot start '%s mcp': %s", cmd, strerror(errno));
    return false;
}

static void check_client(report *r, const lp_client *c, const char *self)
{
    lp_buf config, folder, cmd, msg, fix;
    lp_buf_init(&config, 0);
    lp_buf_init(&folder, 0);
    lp_buf_init(&cmd, 0);
    lp_buf_init(&msg, 0);
    lp_buf_init(&fix, 0);
    lp_buf_printf(&fix, "run 'loupe install --client %s'", c->name);
    if (lp_client_paths(c, &config, &folder, NULL) != LP_OK)
        goto done;
    bool detected = lp_client_detected(c);
    struct stat st;
    if (stat(config.ptr, &st) != 0) {
        lp_buf_printf(&msg, "%s: %s not found%s", c->label, config.ptr,
                      detected ? "" : " (client not detected)");
        if (detected)
            warn(r, c->name, msg.ptr, fix.ptr);
        else
            ok(c->name, msg.ptr);
        goto done;
    }
    bool present;
    lp_error err = {0};
    bool has_cmd = lp_client_configured_command(c, config.ptr, &cmd, &present, &err);
    if (!present && err.code) {
        lp_buf_printf(&msg, "%s: cannot read %s: %s", c->label, config.ptr, err.msg);
        problem(r, c->name, msg.ptr,
                "fix the file (the client cannot read it either), or move it aside and run "
                "'loupe install' again");
    } else if (!present) {
        lp_buf_printf(&msg, "%s: no loupe server in %s", c->label, config.ptr);
        warn(r, c->name, msg.ptr, fix.ptr);
    } else if (!has_cmd) {
        lp_buf_printf(&msg, "%s: the loupe entry in %s has no command", c->label, config.ptr);
        problem(r, c->name, msg.ptr, fix.ptr);
    } else if (access(cmd.ptr, X_OK) != 0) {
        lp_buf_printf(&msg, "%s: %s points at %s, which is not an executable (%s)", c->label,
                      config.ptr, cmd.ptr, strerror(errno));
        problem(r, c->name, msg.ptr, fix.ptr);
    } else if (strcmp(cmd.ptr, self) != 0) {
        lp_buf_printf(&msg, "%s: %s runs %s, not this binary (%s)", c->label, config.ptr,
                      cmd.ptr, self);
        warn(r, c->name, msg.ptr, "run 'loupe install' with the binary you want agents to use");
    } else {
        lp_buf_printf(&msg, "%s: %s runs %s mcp", c->label, config.ptr, cmd.ptr);
        ok(c->name, msg.ptr);
    }
    if (has_cmd && access(cmd.ptr, X_OK) == 0) {
        lp_buf probe;
        lp_buf_init(&probe, 0);
        if (mcp_probe(cmd.ptr, &probe))
            ok(c->name, probe.ptr);
        else
            problem(r, c->name, probe.ptr,
                    "run it by hand to see its error, then 'loupe install' with a working binary");
        lp_buf_release(&probe);
    }
done:
    lp_buf_release(&config);
    lp_buf_release(&folder);
    lp_buf_release(&cmd);
    lp_buf_release(&msg);
    lp_buf_release(&fix);
}

static int run(int argc, char **argv)
{
    int first = argc > 1 && !strcmp(argv[1], "--") ? 2 : 1;
    if (argc > first)
        return argv[first][0] == '-' && first == 1
                   ? lp_cli_unknown_option("doctor", argv[first])
                   : lp_cli_usage_error("doctor", "takes no arguments");
    report r = {0};
    lp_error err = {0};
    lp_buf self, dir, msg;
    lp_buf_init(&self, 0);
    lp_buf_init(&dir, 0);
    lp_buf_init(&msg, 0);
    if (lp_self_exe(&self, &err)) {
        problem(&r, "binary", err.msg, NULL);
    } else {
        lp_buf_printf(&msg, "%s (loupe %s)", self.ptr, LOUPE_VERSION);
        ok("binary", msg.ptr);
    }
    check_state(&r, &dir);
    for (size_t k = 0; k < lp_clients_count; k++)
        check_client(&r, &lp_clients[k], self.ptr);
    lp_doctor_check_indexes(&r, dir.ptr);
    if (r.problems)
        printf("%d problem(s), %d warning(s): see the fix lines above\n", r.problems, r.warnings);
    else if (r.warnings)
        printf("no problems, %d warning(s)\n", r.warnings);
    else
        printf("all checks passed\n");
    lp_buf_release(&self);
    lp_buf_release(&dir);
    lp_buf_release(&msg);
    return r.problems ? LP_EXIT_FAIL : LP_EXIT_OK;
}

const lp_cli_cmd lp_cmd_doctor = {
    .name = "doctor",
    .summary = "check the installation and each agent's configuration",
    .usage = "usage: loupe doctor\n"
             "\n"
             "Checks the binary, the state folder ($LOUPE_HOME, else $XDG_STATE_HOME/loupe, else\n"
             "~/.local/state/loupe: must be writable), and each coding agent's configuration\n"
             "(readable, has a loupe server, which points at an existing executable that answers\n"
             "an MCP initialize and tools/list within 15 s), and each\n"
             "indexed codebase (ready, stale, requires_reindex, damaged, ...; walks each tree to\n"
             "detect changed files, and checks each index database in full: SQLite's\n"
             "integrity_check and the lexical index's own check, about 10 ms per MiB of\n"
             "database). Prints one line per check and a fix for each problem; exits 1 when a\n"
             "check failed.\n",
    .run = run,
};
