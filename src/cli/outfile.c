/*
 * outfile.c - `-o FILE` written whole or not at all, and never over the
 * database or an input (outfile.h).
 *
 * The temporary file is FILE.PID.N.tmp in FILE's own directory, so the
 * rename that replaces FILE stays on one file system and is atomic; it is
 * created with mode 0666 less the umask, as FILE itself would be.  A FILE
 * that exists and is no regular file (/dev/stdout, a pipe) is written in
 * place.  Because FILE is replaced by a rename, a FILE that is a link to
 * something else replaces the link, never its target; what remains to refuse
 * is FILE being the database or an input itself, compared as files (device
 * and inode, links followed) and not only as names.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "arbiter/buf.h"
#include "arbiter/file.h"
#include "arbiter/store.h"
#include "cli.h"
#include "outfile.h"

#define TMP_ATTEMPTS 100

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;

    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* 1 when path (which may not exist yet) would be created inside the directory dir. */
static int inside_dir(const char *path, const char *dir)
{
    char *d = arb_is_dir(dir) ? realpath(dir, NULL) : NULL, *p = NULL, *parent;
    size_t n;
    int in = 0;

    parent = d ? strdup(path) : NULL;
    if (parent) {
        char *slash = strrchr(parent, '/');

        if (slash == parent)
            parent[1] = '\0'; /* "/x": the root */
        else if (slash)
            *slash = '\0';
        p = realpath(slash ? parent : ".", NULL);
    }
    if (p) {
        n = strlen(d);
        in = strcmp(p, d) == 0 || (strncmp(p, d, n) == 0 && (p[n] == '/' || d[n - 1] == '/'));
    }
    free(parent);
    free(p);
    free(d);
    return in;
}

int cli_outfile_clash(const char *path, const char *input)
{
    if (!path || !input)
        return 0;
    if (strcmp(path, input) == 0 || same_file(path, input))
        return 1;
    return inside_dir(path, input) ? 2 : 0;
}

const char *cli_outfile_database(const char *path, const char *db, struct arb_buf *name)
{
    static const char *const companions[] = {"", "-wal", "-shm", "-journal"};

    for (size_t i = 0; path && db && i < sizeof(companions) / sizeof(companions[0]); i++) {
        arb_buf_reset(name);
        if (arb_buf_printf(name, "%s%s", db, companions[i]))
            return db; /* out of memory: refuse rather than risk it */
        if (strcmp(path, name->ptr) == 0 || same_file(path, name->ptr))
            return name->ptr;
    }
    return NULL;
}

int cli_outfile_check(const char *cmd, const char *path, const char *db)
{
    struct arb_buf name;
    const char *clash;

    arb_buf_init(&name, 0);
    clash = cli_outfile_database(path, db, &name);
    if (clash)
        cli_error(cmd, "-o '%s' is the database '%s' (--db): refusing to write over it", path,
                  clash);
    arb_buf_release(&name);
    return clash ? -1 : 0;
}

int cli_outfile_check_input(const char *cmd, const char *path, const char *input,
                            const char *what)
{
    int clash = cli_outfile_clash(path, input);

    if (clash == 1)
        cli_error(cmd, "-o '%s' is the input '%s' (%s): refusing to write over it", path, input,
                  what);
    else if (clash == 2)
        cli_error(cmd, "-o '%s' is inside the input directory '%s' (%s): refusing to write into it",
                  path, input, what);
    return clash ? -1 : 0;
}

static int write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, p, len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Create path.PID.N.tmp; its name goes into tmp.  -1 with errno set when none could be. */
static int create_tmp(const char *path, struct arb_buf *tmp)
{
    for (int i = 0; i < TMP_ATTEMPTS; i++) {
        int fd;

        arb_buf_reset(tmp);
        if (arb_buf_printf(tmp, "%s.%ld.%d.tmp", path, (long)getpid(), i)) {
            errno = ENOMEM;
            return -1;
        }
        fd = open(tmp->ptr, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

/* A device or pipe (-o /dev/stdout) is written in place: it cannot be renamed over. */
static int write_special(const char *path, const void *data, size_t len, struct arb_buf *why)
{
    int fd = open(path, O_WRONLY);
    int bad = fd < 0 || write_all(fd, data, len);

    bad = (fd >= 0 && close(fd)) || bad;
    if (bad)
        arb_buf_printf(why, "cannot write '%s': %s", path, strerror(errno));
    return bad ? -1 : 0;
}

int cli_outfile_put(const char *path, const void *data, size_t len, int sync, struct arb_buf *why)
{
    struct arb_buf tmp;
    struct stat sb;
    int fd, bad;

    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        return write_special(path, data, len, why);
    arb_buf_init(&tmp, 0);
    fd = create_tmp(path, &tmp);
    if (fd < 0) {
        arb_buf_printf(why, "cannot write '%s': cannot create a temporary file beside it: %s",
                       path, strerror(errno));
        arb_buf_release(&tmp);
        return -1;
    }
    bad = write_all(fd, data, len) || (sync && fsync(fd));
    bad = close(fd) || bad;
    bad = bad || rename(tmp.ptr, path);
    if (bad) {
        arb_buf_printf(why, "cannot write '%s': %s", path, strerror(errno));
        unlink(tmp.ptr);
    }
    arb_buf_release(&tmp);
    return bad ? -1 : 0;
}

int cli_outfile_write(const char *cmd, const char *path, const void *data, size_t len)
{
    struct arb_buf why;
    int bad;

    if (!path) {
        if (fwrite(data, 1, len, stdout) != len || fflush(stdout)) {
            cli_error(cmd, "cannot write to standard output: %s", strerror(errno));
            return -1;
        }
        return 0;
    }
    arb_buf_init(&why, 0);
    bad = cli_outfile_put(path, data, len, 1, &why);
    if (bad)
        cli_error(cmd, "%s", why.ptr ? why.ptr : "out of memory");
    arb_buf_release(&why);
    return bad;
}

/* ---- written as it goes ------------------------------------------------------------------ */

int cli_outstream_open(const char *cmd, const char *path, struct cli_outstream *os)
{
    struct stat sb;

    memset(os, 0, sizeof(*os));
    os->path = path;
    arb_buf_init(&os->tmp, 0);
    if (!path) {
        os->fd = -1; /* through stdout, which a terminal's guard may have replaced (tty.c) */
        return 0;
    }
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        os->fd = open(path, O_WRONLY);
        os->in_place = 1;
    } else {
        os->fd = create_tmp(path, &os->tmp);
    }
    if (os->fd < 0) {
        cli_error(
            cmd, "cannot write '%s': %s%s", path,
            os->in_place ? "" : "cannot create a temporary file beside it: ", strerror(errno));
        arb_buf_release(&os->tmp);
        return -1;
    }
    return 0;
}

int cli_outstream_write(void *ctx, const void *data, size_t len)
{
    struct cli_outstream *os = ctx;

    if (!os->err && !os->path && fwrite(data, 1, len, stdout) != len)
        os->err = errno ? errno : EIO;
    else if (!os->err && os->path && write_all(os->fd, data, len))
        os->err = errno ? errno : EIO;
    return os->err ? -1 : 0;
}

int cli_outstream_close(const char *cmd, struct cli_outstream *os, int commit)
{
    int bad = !commit || os->err;

    if (os->path && !os->in_place && os->tmp.ptr) {
        if (!bad && fsync(os->fd))
            os->err = errno;
        if (close(os->fd) && !os->err)
            os->err = errno;
        if (!bad && !os->err && rename(os->tmp.ptr, os->path))
            os->err = errno;
        if (!commit || os->err)
            unlink(os->tmp.ptr);
    } else if (os->path && close(os->fd) && !os->err) {
        os->err = errno;
    } else if (!os->path && fflush(stdout) && !os->err) {
        os->err = errno ? errno : EIO;
    }
    if (commit && os->err)
        cli_error(cmd, "cannot write %s%s%s: %s", os->path ? "'" : "",
                  os->path ? os->path : "to standard output", os->path ? "'" : "",
                  strerror(os->err));
    arb_buf_release(&os->tmp);
    return commit && !os->err ? 0 : -1;
}

/* ---- a run's recorded inputs -------------------------------------------------------------- */

static int add_input(struct cli_run_inputs *ri, const char *path, const char *fmt, const char *arg)
{
    struct arb_buf what;

    if (ri->n == ri->cap) {
        size_t cap = ri->cap ? ri->cap * 2 : 8;
        char **p = realloc(ri->path, cap * sizeof(*p)), **w;

        if (!p)
            return -1;
        ri->path = p;
        w = realloc(ri->what, cap * sizeof(*w));
        if (!w)
            return -1;
        ri->what = w;
        ri->cap = cap;
    }
    arb_buf_init(&what, 0);
    if (arb_buf_printf(&what, fmt, arg)) {
        arb_buf_release(&what);
        return -1;
    }
    ri->what[ri->n] = arb_buf_detach(&what, NULL);
    ri->path[ri->n] = strdup(path);
    if (!ri->what[ri->n] || !ri->path[ri->n]) {
        free(ri->what[ri->n]);
        free(ri->path[ri->n]);
        return -1;
    }
    ri->n++;
    return 0;
}

struct run_row_inputs {
    struct cli_run_inputs *ri;
    int oom;
};

static int on_run(void *ctx, const struct arb_run_row *r)
{
    struct run_row_inputs *rr = ctx;
    cJSON *systems = cJSON_Parse(r->systems_json ? r->systems_json : "[]");
    cJSON *inputs = r->inputs_json ? cJSON_Parse(r->inputs_json) : NULL;
    const cJSON *s, *cases = cJSON_GetObjectItemCaseSensitive(
                        cJSON_GetObjectItemCaseSensitive(inputs, "cases"), "path");

    if (r->suite_path && r->suite_path[0])
        rr->oom |= add_input(rr->ri, r->suite_path, "the suite%s", "") != 0;
    if (cJSON_IsString(cases))
        rr->oom |= add_input(rr->ri, cases->valuestring, "the cases file%s", "") != 0;
    /* The JSON Schemas and expected values the run's checks read, under their names. */
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(inputs, "expected_files"))
    {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(s, "path");

        if (s->string && cJSON_IsString(p))
            rr->oom |=
                add_input(rr->ri, p->valuestring, "the expected_file '%s'", s->string) != 0;
    }
    cJSON_ArrayForEach(s, systems)
    {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(s, "name");
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(s, "path");

        if (cJSON_IsString(n) && cJSON_IsString(p))
            rr->oom |= add_input(rr->ri, p->valuestring, "the outputs of system '%s'",
                                 n->valuestring) != 0;
    }
    cJSON_Delete(systems);
    cJSON_Delete(inputs);
    return 1;
}

enum arb_status cli_run_inputs_load(struct arb_store *st, int64_t run, struct cli_run_inputs *ri,
                                    struct arb_err *err)
{
    struct run_row_inputs rr = {ri, 0};
    enum arb_status rs;

    memset(ri, 0, sizeof(*ri));
    ri->run = run;
    rs = arb_store_runs(st, run, on_run, &rr, err);
    return rs ? rs : rr.oom ? arb_err_set(err, ARB_ENOMEM, "out of memory") : ARB_OK;
}

void cli_run_inputs_release(struct cli_run_inputs *ri)
{
    for (size_t i = 0; i < ri->n; i++) {
        free(ri->path[i]);
        free(ri->what[i]);
    }
    free(ri->path);
    free(ri->what);
    memset(ri, 0, sizeof(*ri));
}

int cli_run_inputs_clash(const struct cli_run_inputs *ri, const char *path, struct arb_buf *why)
{
    for (size_t i = 0; path && i < ri->n; i++) {
        int clash = cli_outfile_clash(path, ri->path[i]);

        if (clash == 1)
            arb_buf_printf(why, "'%s' is %s of run %lld, '%s': refusing to write over it", path,
                           ri->what[i], (long long)ri->run, ri->path[i]);
        else if (clash == 2)
            arb_buf_printf(why,
                           "'%s' is inside %s of run %lld, the directory '%s': refusing to "
                           "write into it",
                           path, ri->what[i], (long long)ri->run, ri->path[i]);
        if (clash)
            return -1;
    }
    return 0;
}

int cli_outfile_check_run(const char *cmd, const char *path, struct arb_store *st, int64_t run)
{
    struct cli_run_inputs ri;
    struct arb_buf why;
    struct arb_err err = {{0}};
    int bad;

    if (!path)
        return 0;
    if (cli_run_inputs_load(st, run, &ri, &err)) {
        cli_error(cmd, "%s", err.msg);
        cli_run_inputs_release(&ri);
        return -1;
    }
    arb_buf_init(&why, 0);
    bad = cli_run_inputs_clash(&ri, path, &why);
    if (bad)
        cli_error(cmd, "-o %s", why.ptr ? why.ptr : "is an input of the run");
    arb_buf_release(&why);
    cli_run_inputs_release(&ri);
    return bad;
}
