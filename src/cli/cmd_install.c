/*
 * cmd_install.c: `loupe install` and `loupe uninstall`: write (or remove) the MCP server
 * entry that makes each coding agent start `<this binary> mcp`.
 *
 * Every change keeps the rest of the file byte for byte (see install_json.c and
 * install_toml.c), is preceded by one backup of the original `<file>.loupe-backup` (written
 * once, owner-only), and is recorded
 * in `<state folder>/install.json` (file or container created, TOML prefix added) so that
 * uninstall removes exactly what install wrote. Install is idempotent.
 */
#include "cli/cli_int.h"
#include "cli/install.h"
#include "core/settings.h"
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SERVER_NAME "loupe"
#define CODEX_TABLE "mcp_servers.loupe"
#define MAX_CONFIG_BYTES ((size_t)64 << 20)

const lp_client lp_clients[] = {
    {"claude", "Claude Code", LP_CLIENT_JSON, "mcpServers", "claude"},
    {"codex", "Codex", LP_CLIENT_TOML, NULL, "codex"},
    {"opencode", "OpenCode", LP_CLIENT_JSON, "mcp", "opencode"},
    {"cursor", "Cursor", LP_CLIENT_JSON, "mcpServers", "cursor-agent"},
};
const size_t lp_clients_count = LP_ARRAY_LEN(lp_clients);

/* ------------------------------------------------------------------------------------------
 * Paths. */

static const char *home_dir(void)
{
    const char *h = getenv("HOME");
    return h && *h ? h : "/";
}

static bool exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

lp_status lp_client_paths(const lp_client *c, lp_buf *config, lp_buf *folder, lp_error *err)
{
    lp_buf_reset(config);
    lp_buf_reset(folder);
    const char *h = home_dir();
    if (!strcmp(c->name, "claude")) {
        const char *d = getenv("CLAUDE_CONFIG_DIR");
        if (d && *d) {
            lp_buf_puts(folder, d);
            lp_buf_printf(config, "%s/.claude.json", d);
        } else {
            lp_buf_printf(folder, "%s/.claude", h);
            lp_buf_printf(config, "%s/.claude.json", h);
        }
    } else if (!strcmp(c->name, "codex")) {
        const char *d = getenv("CODEX_HOME");
        if (d && *d)
            lp_buf_puts(folder, d);
        else
            lp_buf_printf(folder, "%s/.codex", h);
        lp_buf_printf(config, "%s/config.toml", folder->ptr);
    } else if (!strcmp(c->name, "opencode")) {
        const char *x = getenv("XDG_CONFIG_HOME");
        if (x && *x)
            lp_buf_printf(folder, "%s/opencode", x);
        else
            lp_buf_printf(folder, "%s/.config/opencode", h);
        lp_buf_printf(config, "%s/opencode.json", folder->ptr);
        if (!exists(config->ptr)) {
            lp_buf alt;
            lp_buf_init(&alt, 0);
            lp_buf_printf(&alt, "%s/opencode.jsonc", folder->ptr);
            if (exists(alt.ptr)) {
                lp_buf_reset(config);
                lp_buf_put_str(config, lp_buf_str(&alt));
            }
            lp_buf_release(&alt);
        }
    } else {
        lp_buf_printf(folder, "%s/.cursor", h);
        lp_buf_printf(config, "%s/mcp.json", folder->ptr);
    }
    if (config->err || folder->err)
        return lp_error_set(err, LP_EPATH, "the %s configuration path is too long", c->label);
    return LP_OK;
}

bool lp_which(const char *name, lp_buf *out)
{
    const char *path = getenv("PATH");
    if (!path)
        return false;
    lp_buf cand;
    lp_buf_init(&cand, 0);
    bool found = false;
    for (const char *p = path; !found;) {
        const char *e = strchr(p, ':');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n) {
            lp_buf_reset(&cand);
            lp_buf_append(&cand, p, n);
            lp_buf_printf(&cand, "/%s", name);
            struct stat st;
            if (stat(cand.ptr, &st) == 0 && S_ISREG(st.st_mode) && access(cand.ptr, X_OK) == 0) {
                found = true;
                if (out) {
                    lp_buf_reset(out);
                    lp_buf_put_str(out, lp_buf_str(&cand));
                }
            }
        }
        if (!e)
            break;
        p = e + 1;
    }
    lp_buf_release(&cand);
    return found;
}

bool lp_client_detected(const lp_client *c)
{
    lp_buf config, folder;
    lp_buf_init(&config, 0);
    lp_buf_init(&folder, 0);
    bool found = false;
    if (lp_client_paths(c, &config, &folder, NULL) == LP_OK)
        found = exists(folder.ptr) || exists(config.ptr) || lp_which(c->binary, NULL) ||
                (!strcmp(c->name, "cursor") && lp_which("cursor", NULL));
    lp_buf_release(&config);
    lp_buf_release(&folder);
    return found;
}

const char *const *lp_client_env(void)
{
    static const char *env[5];
    /* the settings this process runs with (environment or loupe.toml: core/settings.h) */
    const char *sync = lp_setting_str(LP_SET_AUTO_SYNC);
    const char *home = lp_setting_str(LP_SET_HOME);
    size_t n = 0;
    env[n++] = "LOUPE_AUTO_SYNC";
    env[n++] = sync && *sync ? sync : "1";
    if (home && *home) {
        env[n++] = "LOUPE_HOME";
        env[n++] = home;
    }
    env[n] = NULL;
    return env;
}

json_t *lp_client_entry(const lp_client *c, const char *exe, const char *const *env)
{
    json_t *e = json_object();
    json_t *vars = json_object();
    for (size_t i = 0; env && env[i]; i += 2)
        json_object_set_new(vars, env[i], lp_json_textz(env[i + 1]));
    if (!strcmp(c->name, "opencode")) {
        json_object_set_new(e, "type", json_string("local"));
        json_object_set_new(e, "command", lp_json_pack("[ss]", exe, "mcp"));
        json_object_set_new(e, "enabled", json_true());
        json_object_set_new(e, "environment", vars);
        return e;
    }
    if (!strcmp(c->name, "claude"))
        json_object_set_new(e, "type", json_string("stdio"));
    json_object_set_new(e, "command", lp_json_textz(exe));
    json_object_set_new(e, "args", lp_json_pack("[s]", "mcp"));
    json_object_set_new(e, "env", vars);
    return e;
}

bool lp_client_configured_command(const lp_client *c, const char *config_path, lp_buf *out,
                                  bool *present, lp_error *err)
{
    *present = false;
    lp_buf text;
    lp_buf_init(&text, 0);
    bool ok = false;
    if (lp_read_file(config_path, MAX_CONFIG_BYTES, &text, err) == LP_OK) {
        if (c->kind == LP_CLIENT_TOML) {
            ok = lp_toml_get_command(text.ptr, text.len, CODEX_TABLE, out, err);
            *present = ok;
        } else {
            json_t *v = lp_jsonc_get_member(text.ptr, text.len, c->container, SERVER_NAME,
                                            present, err);
            json_t *cmd = json_object_get(v, "command");
            if (json_is_array(cmd))
                cmd = json_array_get(cmd, 0);
            if (json_is_string(cmd)) {
                lp_buf_reset(out);
                lp_buf_puts(out, json_string_value(cmd));
                ok = true;
            }
            json_decref(v);
        }
    }
    lp_buf_release(&text);
    return ok;
}

lp_status lp_self_exe(lp_buf *out, lp_error *err)
{
    char p[LP_PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", p, sizeof p - 1);
    if (n <= 0)
        return lp_error_set(err, LP_EIO, "cannot find the path of the running binary: %s",
                            strerror(errno));
    lp_buf_reset(out);
    lp_buf_append(out, p, (size_t)n);
    return LP_OK;
}

lp_status lp_state_dir(lp_buf *out, lp_error *err)
{
    /* one definition of the state folder for every command (src/store) */
    return lp_store_state_dir(out, err);
}

/* ------------------------------------------------------------------------------------------
 * The install record. */

static json_t *record_load(lp_buf *path)
{
    lp_buf dir;
    lp_buf_init(&dir, 0);
    json_t *rec = NULL;
    if (lp_state_dir(&dir, NULL) == LP_OK) {
        lp_buf_reset(path);
        lp_buf_printf(path, "%s/install.json", dir.ptr);
        rec = json_load_file(path->ptr, 0, NULL);
    }
    lp_buf_release(&dir);
    if (!json_is_object(rec)) {
        json_decref(rec);
        rec = json_object();
    }
    return rec;
}

static void record_save(json_t *rec, const char *path)
{
    lp_buf dir;
    lp_buf_init(&dir, 0);
    lp_buf_put_str(&dir, lp_path_dirname(lp_str_c(path)));
    lp_error err = {0};
    char *text = json_dumps(rec, JSON_INDENT(2));
    if (lp_mkdir_p(dir.ptr, &err) || lp_write_file_atomic(path, text, strlen(text), &err))
        fprintf(stderr, "loupe: warning: cannot write the install record %s (%s); uninstall "
                        "will remove the loupe entries but not the files it created\n",
                path, err.msg);
    free(text);
    lp_buf_release(&dir);
}

/* ------------------------------------------------------------------------------------------
 * Files. */

/* The one backup of a client file: `path.loupe-backup`, the file as it was before loupe's
 * first change, written once and never replaced (install and uninstall cycles do not pile
 * up copies of a file that may hold tokens). It is readable by the owner only, whatever the
 * original's mode. The backup's name into out; *made tells whether this call wrote it. */
static lp_status backup(const char *path, const char *bytes, size_t len, lp_buf *out,
                        bool *made, lp_error *err)
{
    *made = false;
    lp_buf_reset(out);
    lp_buf_printf(out, "%s.loupe-backup", path);
    int fd = open(out->ptr, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        if (errno == EEXIST)
            return LP_OK; /* the original is already kept */
        return lp_error_set(err, LP_EIO, "cannot write the backup %s: %s", out->ptr,
                            strerror(errno));
    }
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, bytes + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            int e = errno;
            close(fd);
            unlink(out->ptr);
            return lp_error_set(err, LP_EIO, "cannot write the backup %s: %s", out->ptr,
                                strerror(e));
        }
        off += (size_t)w;
    }
    if (fsync(fd) != 0) {
        int e = errno;
        close(fd);
        unlink(out->ptr);
        return lp_error_set(err, LP_EIO, "cannot write the backup %s: %s", out->ptr,
                            strerror(e));
    }
    close(fd);
    *made = true;
    return LP_OK;
}

/* Write bytes to path (through a symlink to its target), keeping the file's mode. */
static lp_status write_config(const char *path, const char *bytes, size_t len, lp_error *err)
{
    lp_buf target;
    lp_buf_init(&target, 0);
    struct stat st;
    mode_t mode = 0600;
    lp_status rc = LP_OK;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        rc = lp_path_real(path, &target, err);
        if (rc)
            goto done;
    } else {
        lp_buf_puts(&target, path);
        lp_buf dir;
        lp_buf_init(&dir, 0);
        lp_buf_put_str(&dir, lp_path_dirname(lp_str_c(path)));
        rc = lp_mkdir_p(dir.ptr, err);
        lp_buf_release(&dir);
        if (rc)
            goto done;
    }
    if (stat(target.ptr, &st) == 0)
        mode = st.st_mode & 07777;
    rc = lp_write_file_atomic(target.ptr, bytes, len, err);
    if (!rc && chmod(target.ptr, mode) != 0)
        rc = lp_error_set(err, LP_EIO, "cannot set the mode of %s: %s", target.ptr,
                          strerror(errno));
done:
    lp_buf_release(&target);
    return rc;
}

/* ------------------------------------------------------------------------------------------
 * Commands. */

typedef struct opts {
    bool dry_run;
    bool chosen[8];
    bool any_chosen;
} opts;

static int parse(const char *cmd, int argc, char **argv, opts *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--dry-run")) {
            o->dry_run = true;
        } else if (!strcmp(argv[i], "--client")) {
            if (i + 1 >= argc)
                return lp_cli_usage_error(cmd, "--client needs a name");
            const char *list = argv[++i];
            for (const char *p = list; *p;) {
                const char *e = strchr(p, ',');
                size_t n = e ? (size_t)(e - p) : strlen(p);
                lp_str name = lp_str_n(p, n);
                bool ok = false;
                if (lp_str_eq_c(name, "all")) {
                    for (size_t k = 0; k < lp_clients_count; k++)
                        o->chosen[k] = true;
                    ok = true;
                }
                for (size_t k = 0; k < lp_clients_count && !ok; k++) {
                    if (lp_str_eq_c(name, lp_clients[k].name)) {
                        o->chosen[k] = true;
                        ok = true;
                    }
                }
                if (!ok)
                    return lp_cli_usage_error(cmd,
                                              "unknown client '" LP_STR_FMT
                                              "'; choose claude, codex, opencode, cursor or all",
                                              LP_STR_ARG(name));
                o->any_chosen = true;
                p = e ? e + 1 : p + n;
            }
        } else {
            if (!strcmp(argv[i], "--") && i + 1 == argc)
                continue; /* a trailing '--': no arguments follow */
            return lp_cli_unknown_option(cmd, argv[i]);
        }
    }
    return -1;
}

static int run_install(int argc, char **argv)
{
    opts o;
    int u = parse("install", argc, argv, &o);
    if (u >= 0)
        return u;
    lp_error err = {0};
    lp_buf exe, config, folder, text, out, bak, recpath;
    lp_buf_init(&exe, 0);
    lp_buf_init(&config, 0);
    lp_buf_init(&folder, 0);
    lp_buf_init(&text, 0);
    lp_buf_init(&out, 0);
    lp_buf_init(&bak, 0);
    lp_buf_init(&recpath, 0);
    json_t *rec = record_load(&recpath);
    bool rec_dirty = false;
    int failures = 0, done_any = 0;
    if (lp_self_exe(&exe, &err)) {
        failures++;
        fprintf(stderr, "loupe install: %s\n", err.msg);
        goto done;
    }
    if (!lp_utf8_valid(exe.ptr, exe.len)) {
        fprintf(stderr, "loupe install: the binary's path %s is not valid UTF-8; move loupe "
                        "to a UTF-8 path\n", exe.ptr);
        failures++;
        goto done;
    }
    if (!o.any_chosen) {
        for (size_t k = 0; k < lp_clients_count; k++)
            o.chosen[k] = lp_client_detected(&lp_clients[k]);
    }
    for (size_t k = 0; k < lp_clients_count; k++) {
        if (!o.chosen[k])
            continue;
        const lp_client *c = &lp_clients[k];
        done_any++;
        if (lp_client_paths(c, &config, &folder, &err)) {
            fprintf(stderr, "loupe install: %s: %s\n", c->label, err.msg);
            failures++;
            continue;
        }
        bool existed = exists(config.ptr);
        lp_buf_reset(&text);
        if (existed && lp_read_file(config.ptr, MAX_CONFIG_BYTES, &text, &err)) {
            fprintf(stderr, "loupe install: %s: %s\n", c->label, err.msg);
            failures++;
            continue;
        }
        lp_edit_result res;
        lp_edit_created created;
        lp_status rc;
        if (c->kind == LP_CLIENT_TOML) {
            static const char *const args[] = {"mcp", NULL};
            rc = lp_toml_set_server(text.ptr, text.len, CODEX_TABLE, exe.ptr, args,
                                    lp_client_env(), &out, &res, &created, &err);
        } else {
            json_t *entry = lp_client_entry(c, exe.ptr, lp_client_env());
            rc = lp_jsonc_set_member(text.ptr, text.len, c->container, SERVER_NAME, entry, &out,
                                     &res, &created, &err);
            json_decref(entry);
        }
        if (rc) {
            fprintf(stderr,
                    "loupe install: %s: cannot edit %s: %s; it was left unchanged. Fix the "
                    "file (or move it aside) and run 'loupe install --client %s' again\n",
                    c->label, config.ptr, err.msg, c->name);
            failures++;
            continue;
        }
        if (res == LP_EDIT_UNCHANGED) {
            printf("%s: already configured in %s (unchanged)\n", c->label, config.ptr);
            continue;
        }
        const char *verb = res == LP_EDIT_ADDED ? "add" : "update";
        if (o.dry_run) {
            printf("%s: would %s the loupe server in %s (dry run: nothing written)\n", c->label,
                   verb, config.ptr);
            continue;
        }
        bool made = false;
        if (existed) {
            if (backup(config.ptr, text.ptr, text.len, &bak, &made, &err)) {
                fprintf(stderr, "loupe install: %s: %s; nothing was changed\n", c->label,
                        err.msg);
                failures++;
                continue;
            }
        }
        if (write_config(config.ptr, out.ptr, out.len, &err)) {
            fprintf(stderr, "loupe install: %s: %s\n", c->label, err.msg);
            failures++;
            continue;
        }
        /* The record is keyed by the config path: filled first, then handed over (a path
         * that is not UTF-8 cannot be a JSON key, and jansson frees what it refuses). */
        json_t *r = json_object_get(rec, config.ptr);
        bool fresh = !json_is_object(r);
        if (fresh)
            r = json_object();
        json_object_set_new(r, "client", lp_json_textz(c->name));
        if (!existed)
            json_object_set_new(r, "createdFile", json_true());
        if (created.container)
            json_object_set_new(r, "createdContainer", json_true());
        if (c->kind == LP_CLIENT_TOML && res == LP_EDIT_ADDED)
            json_object_set_new(r, "prefix", lp_json_textz(created.prefix));
        if (fresh && json_object_set_new(rec, config.ptr, r) != 0)
            fprintf(stderr, "loupe install: %s: the path of %s is not UTF-8, so 'loupe "
                            "uninstall' cannot record it; remove loupe from it by hand\n",
                    c->label, config.ptr);
        rec_dirty = true;
        printf("%s: %s loupe in %s", c->label, res == LP_EDIT_ADDED ? "added" : "updated",
               config.ptr);
        if (existed)
            printf(" (%s: %s)", made ? "backup of the original" : "the original stays in",
                   bak.ptr);
        printf("\n");
    }
    if (!done_any) {
        fprintf(stderr, "loupe install: found no supported coding agent (Claude Code, Codex, "
                        "OpenCode, Cursor: no config folder and no binary on PATH); name one "
                        "with --client claude|codex|opencode|cursor|all\n");
        failures++;
    } else if (!failures) {
        printf("loupe runs as: %s mcp\n", exe.ptr);
    }
done:
    if (rec_dirty)
        record_save(rec, recpath.ptr);
    json_decref(rec);
    lp_buf_release(&exe);
    lp_buf_release(&config);
    lp_buf_release(&folder);
    lp_buf_release(&text);
    lp_buf_release(&out);
    lp_buf_release(&bak);
    lp_buf_release(&recpath);
    return failures ? LP_EXIT_FAIL : LP_EXIT_OK;
}

static int run_uninstall(int argc, char **argv)
{
    opts o;
    int u = parse("uninstall", argc, argv, &o);
    if (u >= 0)
        return u;
    lp_error err = {0};
    lp_buf config, folder, text, out, bak, recpath;
    lp_buf_init(&config, 0);
    lp_buf_init(&folder, 0);
    lp_buf_init(&text, 0);
    lp_buf_init(&out, 0);
    lp_buf_init(&bak, 0);
    lp_buf_init(&recpath, 0);
    json_t *rec = record_load(&recpath);
    bool rec_dirty = false;
    int failures = 0, removed = 0;
    for (size_t k = 0; k < lp_clients_count; k++) {
        if (o.any_chosen && !o.chosen[k])
            continue;
        const lp_client *c = &lp_clients[k];
        if (lp_client_paths(c, &config, &folder, &err) || !exists(config.ptr)) {
            if (o.any_chosen)
                printf("%s: no configuration at %s (nothing to remove)\n", c->label, config.ptr);
            continue;
        }
        if (lp_read_file(config.ptr, MAX_CONFIG_BYTES, &text, &err)) {
            fprintf(stderr, "loupe uninstall: %s: %s\n", c->label, err.msg);
            failures++;
            continue;
        }
        json_t *r = json_object_get(rec, config.ptr);
        lp_edit_result res;
        lp_status rc;
        bool empty_after;
        if (c->kind == LP_CLIENT_TOML) {
            json_t *prefix = json_object_get(r, "prefix");
            rc = lp_toml_remove_server(text.ptr, text.len, CODEX_TABLE,
                                       json_is_string(prefix) ? json_string_value(prefix) : NULL,
                                       &out, &res, &err);
            empty_after = lp_str_trim(lp_buf_str(&out)).len == 0;
        } else {
            rc = lp_jsonc_remove_member(text.ptr, text.len, c->container, SERVER_NAME,
                                        json_is_true(json_object_get(r, "createdContainer")),
                                        &out, &res, &err);
            empty_after = lp_jsonc_is_empty_object(out.ptr, out.len);
        }
        if (rc) {
            fprintf(stderr, "loupe uninstall: %s: cannot edit %s: %s; it was left unchanged\n",
                    c->label, config.ptr, err.msg);
            failures++;
            continue;
        }
        if (res == LP_EDIT_ABSENT) {
            if (o.any_chosen)
                printf("%s: no loupe entry in %s (nothing to remove)\n", c->label, config.ptr);
            continue;
        }
        removed++;
        bool delete_file = empty_after && json_is_true(json_object_get(r, "createdFile"));
        if (o.dry_run) {
            printf("%s: would remove loupe from %s%s (dry run: nothing written)\n", c->label,
                   config.ptr, delete_file ? " and delete the file install created" : "");
            continue;
        }
        bool made = false;
        if (backup(config.ptr, text.ptr, text.len, &bak, &made, &err)) {
            fprintf(stderr, "loupe uninstall: %s: %s; nothing was changed\n", c->label, err.msg);
            failures++;
            continue;
        }
        if (delete_file) {
            if (unlink(config.ptr) != 0) {
                fprintf(stderr, "loupe uninstall: %s: cannot delete %s: %s\n", c->label,
                        config.ptr, strerror(errno));
                failures++;
                continue;
            }
        } else if (write_config(config.ptr, out.ptr, out.len, &err)) {
            fprintf(stderr, "loupe uninstall: %s: %s\n", c->label, err.msg);
            failures++;
            continue;
        }
        if (r) {
            json_object_del(rec, config.ptr);
            rec_dirty = true;
        }
        printf("%s: removed loupe from %s%s (%s: %s)\n", c->label, config.ptr,
               delete_file ? ", and deleted the file install had created" : "",
               made ? "backup" : "the original before loupe stays in", bak.ptr);
    }
    if (!removed && !o.any_chosen)
        printf("no loupe entry found in any client's configuration (nothing to remove)\n");
    if (rec_dirty)
        record_save(rec, recpath.ptr);
    json_decref(rec);
    lp_buf_release(&config);
    lp_buf_release(&folder);
    lp_buf_release(&text);
    lp_buf_release(&out);
    lp_buf_release(&bak);
    lp_buf_release(&recpath);
    return failures ? LP_EXIT_FAIL : LP_EXIT_OK;
}

const lp_cli_cmd lp_cmd_install = {
    .name = "install",
    .summary = "configure coding agents (Claude Code, Codex, OpenCode, Cursor) to use loupe",
    .usage = "usage: loupe install [--client claude|codex|opencode|cursor|all] [--dry-run]\n"
             "\n"
             "Adds a 'loupe' MCP server, started as '<this binary> mcp', to each client's\n"
             "configuration:\n"
             "  claude    ~/.claude.json             mcpServers.loupe ($CLAUDE_CONFIG_DIR)\n"
             "  codex     ~/.codex/config.toml       [mcp_servers.loupe] ($CODEX_HOME)\n"
             "  opencode  ~/.config/opencode/opencode.json   mcp.loupe\n"
             "  cursor    ~/.cursor/mcp.json         mcpServers.loupe\n"
             "Without --client, every client that is present (config folder, or binary on\n"
             "PATH) is configured. --client takes a comma-separated list.\n"
             "\n"
             "Everything else in the files (other servers, settings, comments, formatting) is\n"
             "kept; before the first change the original is kept in <file>.loupe-backup\n"
             "(once: later changes do not add copies; readable by its owner only); running\n"
             "it again changes nothing. --dry-run says what would change and writes nothing.\n"
             "Undo with 'loupe uninstall'; check with 'loupe doctor'.\n",
    .run = run_install,
};

const lp_cli_cmd lp_cmd_uninstall = {
    .name = "uninstall",
    .summary = "remove what 'loupe install' wrote",
    .usage = "usage: loupe uninstall [--client claude|codex|opencode|cursor|all] [--dry-run]\n"
             "\n"
             "Removes the 'loupe' server entry from each client's configuration (every client\n"
             "when --client is not given), and the containers or files that 'loupe install'\n"
             "created, so an install followed by an uninstall gives back the original bytes.\n"
             "The original file stays in <file>.loupe-backup (written once, before loupe's\n"
             "first change).\n",
    .run = run_uninstall,
};
