/*
 * main.c: the unit-test runner (see t.h).
 */
#include "t.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
    const char *name;
    lp_t_fn fn;
} test_entry;

static test_entry tests[1024];
static size_t ntests;

void lp_t_register(const char *name, lp_t_fn fn)
{
    if (ntests == LP_ARRAY_LEN(tests)) {
        fprintf(stderr, "too many unit tests\n");
        abort();
    }
    tests[ntests++] = (test_entry){name, fn};
}

void lp_t_fail(lp_t *t, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stdout, "# %s: %s:%d: ", t->name, file, line);
    vfprintf(stdout, fmt, ap);
    fprintf(stdout, "\n");
    va_end(ap);
    t->failed = 1;
}

lp_status lp_t_write(lp_t *t, const char *rel, const char *content)
{
    lp_buf path;
    lp_buf_init(&path, 0);
    lp_buf_printf(&path, "%s/%s", t->tmpdir, rel);
    lp_str dir = lp_path_dirname(lp_buf_str(&path));
    char *d = lp_xstrndup(dir.ptr, dir.len);
    lp_status rc = lp_mkdir_p(d, NULL);
    free(d);
    if (!rc) {
        FILE *f = fopen(path.ptr, "wb");
        if (!f) {
            rc = LP_EIO;
        } else {
            fwrite(content, 1, strlen(content), f);
            fclose(f);
        }
    }
    lp_buf_release(&path);
    return rc;
}

int lp_t_sh(const char *fmt, ...)
{
    lp_buf cmd;
    lp_buf_init(&cmd, 0);
    va_list ap;
    va_start(ap, fmt);
    lp_buf_vprintf(&cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd.ptr);
    lp_buf_release(&cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const test_entry *)a)->name, ((const test_entry *)b)->name);
}

int main(int argc, char **argv)
{
    qsort(tests, ntests, sizeof tests[0], by_name);
    const char *tmproot = getenv("TMPDIR");
    if (!tmproot || !*tmproot)
        tmproot = "/tmp";
    int passed = 0, failed = 0;
    for (size_t i = 0; i < ntests; i++) {
        if (argc > 1 && !strstr(tests[i].name, argv[1]))
            continue;
        lp_t t = {.name = tests[i].name};
        snprintf(t.tmpdir, sizeof t.tmpdir, "%s/loupe-unit-XXXXXX", tmproot);
        if (!mkdtemp(t.tmpdir)) {
            perror("mkdtemp");
            return 2;
        }
        tests[i].fn(&t);
        if (t.failed) {
            failed++;
            printf("not ok - %s\n", t.name);
            printf("# kept %s for inspection\n", t.tmpdir);
        } else {
            passed++;
            printf("ok - %s\n", t.name);
            lp_t_sh("rm -rf '%s'", t.tmpdir);
        }
        fflush(stdout);
    }
    printf("unit: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
