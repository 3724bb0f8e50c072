/*
 * outputs.c - the output reader: one system's outputs, one at a time
 * (include/arbiter/suite.h).
 *
 * A regular file is JSONL: one {"id": "...", "output": ...} per line.  A
 * non-string output becomes its RFC 8785 text, except null: "output": null
 * is no output (returned with problem set, like an entry that is no file).  "trial" (a non-negative
 * integer) numbers one of several outputs of a case.  Every other member (the
 * agent-eval capture fields trajectory, timing, duration, toolErrors, input,
 * metadata, and whatever else a harness writes) is kept in meta: the capture
 * formats vary, so unknown members there are not errors.
 *
 * A directory holds one entry per case: a file named CASEID or CASEID.ext
 * (the id is the name without its last extension), or a sub-directory CASEID
 * whose regular files (recursively, sorted by relative path) are the outputs
 * of that case, each with file set.  Hidden entries (".x") are skipped.  A
 * symbolic link to a regular file is followed and read like the file (a
 * harness that links its outputs into place means them); any other entry that
 * is not a regular file or a directory - a FIFO, socket or device, a dangling
 * link, a link to a directory (not followed: it could loop or lead anywhere)
 * - is returned with problem set instead of text, so the caller records why
 * the case has no output rather than dropping it silently.  Nothing that is
 * not a regular file is ever opened, so a FIFO cannot block the run.  Entries
 * come sorted by name, so runs are deterministic; the reader holds the names
 * of one directory level at a time.
 *
 * Every output is read with the cap (ARB_ETOOBIG names the file and the cap)
 * and hashed (SHA-256).  Content that is not UTF-8 or holds a NUL byte is
 * marked binary.  After an error, the next call goes on with the next output.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/evp.h>

#include "arbiter/file.h"
#include "arbiter/json.h"
#include "arbiter/unicode.h"
#include "suite_int.h"

#define MAX_DIR_DEPTH 32

struct names {
    char **v;
    size_t n, cap, next;
};

struct arb_output_reader {
    size_t cap;
    int is_dir;
    struct line_reader lr;
    char *root;
    struct names top; /* entries of the directory */
    struct names sub; /* files of the current case sub-directory, relative to it */
    char *sub_case;   /* the case id of that sub-directory */
    int one;          /* arb_output_reader_open_one: root is the case's own output */
    int one_done;     /* ... a file, already read */
    int (*fn)(void *ctx, struct arb_output *o, struct arb_err *err); /* open_fn */
    void (*fn_close)(void *ctx);
    void *fn_ctx;
    EVP_MD *sha256;   /* fetched once: a fetch per output cost more than the hashing */
    EVP_MD_CTX *md;
};

static void names_release(struct names *n)
{
    size_t i;

    for (i = 0; i < n->n; i++)
        free(n->v[i]);
    free(n->v);
    memset(n, 0, sizeof(*n));
}

static int names_add(struct names *n, const char *name)
{
    if (n->n == n->cap) {
        size_t cap = n->cap ? n->cap * 2 : 32;
        char **v = realloc(n->v, cap * sizeof(*v));

        if (!v)
            return -1;
        n->v = v;
        n->cap = cap;
    }
    n->v[n->n] = strdup(name);
    if (!n->v[n->n])
        return -1;
    n->n++;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Add the non-hidden names in dir to out; with files_only, descend into
 * sub-directories (not into links to them) and add everything else, as
 * rel/name: what is not a regular file becomes a problem when it is read.
 */
static enum arb_status list_dir(const char *dir, const char *rel, int files_only, int depth,
                                struct names *out, struct arb_err *err)
{
    DIR *d;
    struct dirent *e;
    enum arb_status st = ARB_OK;

    if (depth > MAX_DIR_DEPTH)
        return arb_err_set(err, ARB_ETOOBIG, "'%s': directories nested deeper than %d levels", dir,
                           MAX_DIR_DEPTH);
    d = opendir(dir);
    if (!d)
        return arb_err_set(err, ARB_EIO, "cannot open directory '%s': %s", dir, strerror(errno));
    while (!st && (e = readdir(d)) != NULL) {
        char *full, *name;
        struct stat sb;

        if (e->d_name[0] == '.')
            continue;
        if (!files_only) {
            st = names_add(out, e->d_name) ? ARB_ENOMEM : ARB_OK;
            continue;
        }
        full = path_join(dir, e->d_name);
        name = rel[0] ? path_join(rel, e->d_name) : strdup(e->d_name);
        if (!full || !name)
            st = ARB_ENOMEM;
        else if (lstat(full, &sb) != 0)
            st = arb_err_set(err, ARB_EIO, "cannot stat '%s': %s", full, strerror(errno));
        else if (S_ISDIR(sb.st_mode))
            st = list_dir(full, name, 1, depth + 1, out, err);
        else
            st = names_add(out, name) ? ARB_ENOMEM : ARB_OK;
        free(full);
        free(name);
    }
    closedir(d);
    if (st == ARB_ENOMEM)
        arb_err_set(err, st, "out of memory");
    if (!st && out->n)
        qsort(out->v, out->n, sizeof(*out->v), by_name);
    return st;
}

enum arb_status arb_output_reader_open(const char *path, size_t max_bytes,
                                       struct arb_output_reader **out, struct arb_err *err)
{
    struct arb_output_reader *r;
    enum arb_status st;
    size_t line_cap;

    *out = NULL;
    r = calloc(1, sizeof(*r));
    if (!r)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    r->cap = max_bytes ? max_bytes : ARB_OUTPUT_CAP_DEFAULT;
    r->sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
    r->md = EVP_MD_CTX_new();
    if (!r->sha256 || !r->md) {
        arb_output_reader_free(r);
        return arb_err_set(err, ARB_EINTERNAL, "cannot set up SHA-256 in openssl");
    }
    r->is_dir = arb_is_dir(path);
    if (r->is_dir) {
        r->root = strdup(path);
        st = r->root ? list_dir(path, "", 0, 0, &r->top, err)
                     : arb_err_set(err, ARB_ENOMEM, "out of memory");
    } else {
        /* room for the output escaped, and for capture fields beside it */
        line_cap =
            r->cap > (SIZE_MAX - ((size_t)64 << 20)) / 8 ? 0 : r->cap * 8 + ((size_t)64 << 20);
        st = line_reader_open(&r->lr, path, "outputs", line_cap, err);
    }
    if (st) {
        arb_output_reader_free(r);
        return st;
    }
    *out = r;
    return ARB_OK;
}

enum arb_status arb_output_reader_open_one(const char *path, const char *case_id, size_t max_bytes,
                                           struct arb_output_reader **out, struct arb_err *err)
{
    struct arb_output_reader *r;
    enum arb_status st = ARB_OK;

    *out = NULL;
    r = calloc(1, sizeof(*r));
    if (!r)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    r->one = 1;
    r->cap = max_bytes ? max_bytes : ARB_OUTPUT_CAP_DEFAULT;
    r->sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
    r->md = EVP_MD_CTX_new();
    r->root = strdup(path);
    r->sub_case = strdup(case_id);
    if (!r->sha256 || !r->md)
        st = arb_err_set(err, ARB_EINTERNAL, "cannot set up SHA-256 in openssl");
    else if (!r->root || !r->sub_case)
        st = arb_err_set(err, ARB_ENOMEM, "out of memory");
    else if ((r->is_dir = arb_is_dir(path)) != 0)
        st = list_dir(path, "", 1, 1, &r->sub, err);
    if (st) {
        arb_output_reader_free(r);
        return st;
    }
    *out = r;
    return ARB_OK;
}

enum arb_status arb_output_reader_open_fn(int (*next)(void *ctx, struct arb_output *o,
                                                      struct arb_err *err),
                                          void (*close)(void *ctx), void *ctx,
                                          struct arb_output_reader **out, struct arb_err *err)
{
    struct arb_output_reader *r = calloc(1, sizeof(*r));

    *out = NULL;
    if (!r) {
        if (close)
            close(ctx);
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    r->fn = next;
    r->fn_close = close;
    r->fn_ctx = ctx;
    *out = r;
    return ARB_OK;
}

void arb_output_reader_free(struct arb_output_reader *r)
{
    if (!r)
        return;
    if (r->fn_close)
        r->fn_close(r->fn_ctx);
    line_reader_close(&r->lr);
    names_release(&r->top);
    names_release(&r->sub);
    free(r->sub_case);
    free(r->root);
    EVP_MD_CTX_free(r->md);
    EVP_MD_free(r->sha256);
    free(r);
}

void arb_output_release(struct arb_output *o)
{
    if (!o)
        return;
    free(o->case_id);
    free(o->file);
    free(o->text);
    free(o->problem);
    cJSON_Delete(o->meta);
    memset(o, 0, sizeof(*o));
}

/* text, len are set: mark binary content and hash it. */
static enum arb_status finish(const struct arb_output_reader *r, struct arb_output *o,
                              struct arb_err *err)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;

    o->binary = memchr(o->text, '\0', o->len) != NULL || !arb_utf8_valid(o->text, o->len, NULL);
    if (!EVP_DigestInit_ex(r->md, r->sha256, NULL) || !EVP_DigestUpdate(r->md, o->text, o->len) ||
        !EVP_DigestFinal_ex(r->md, md, &n) || n != 32)
        return arb_err_set(err, ARB_EINTERNAL, "sha-256 failed in openssl");
    arb_hex(md, n, o->sha256);
    return ARB_OK;
}

/* ---- JSONL ----------------------------------------------------------------------------- */

static enum arb_status null_output(const struct arb_output_reader *r, struct arb_output *o)
{
    struct arb_buf b;
    enum arb_status st;

    arb_buf_init(&b, 0);
    st = arb_buf_printf(&b, "%s:%zu: \"output\" is null: no output for this case", r->lr.name,
                        r->lr.lineno);
    o->problem = st ? NULL : arb_buf_detach(&b, NULL);
    arb_buf_release(&b);
    return o->problem ? ARB_OK : ARB_ENOMEM;
}

static int next_line(struct arb_output_reader *r, struct arb_output *o, struct arb_err *err)
{
    struct arb_err perr = {{0}};
    struct src src;
    const char *text;
    size_t len;
    cJSON *obj = NULL, *id, *output, *trial, *m;
    enum arb_status st;
    int got = line_reader_next(&r->lr, &text, &len, err);

    if (got <= 0)
        return got;
    src.file = r->lr.name;
    src.text = text;
    src.len = len;
    src.line0 = r->lr.lineno;
    st = arb_json_parse(text, len, ARB_JSON_NO_DUPLICATES, &obj, &perr);
    if (st)
        return -(int)(st == ARB_ENOMEM ? arb_err_set(err, st, "out of memory")
                                       : located_parse(err, st, &src, perr.msg));
    id = cJSON_GetObjectItemCaseSensitive(obj, "id");
    output = cJSON_GetObjectItemCaseSensitive(obj, "output");
    if (!cJSON_IsObject(obj))
        st = located(err, ARB_ESCHEMA, &src, "", 0,
                     "expected an object {\"id\": ..., \"output\": ...}, got %s",
                     cJSON_IsArray(obj) ? "an array" : "a scalar");
    else if (!id)
        st = located(err, ARB_ESCHEMA, &src, "", 0, "missing required key 'id'");
    else if (!cJSON_IsString(id) || !id->valuestring[0])
        st = located(err, ARB_ESCHEMA, &src, "/id", 0, "expected a non-empty string");
    else if (!output)
        st = located(err, ARB_ESCHEMA, &src, "", 0, "missing required key 'output'");
    trial = st ? NULL : cJSON_GetObjectItemCaseSensitive(obj, "trial");
    if (trial && (!cJSON_IsNumber(trial) || !(trial->valuedouble >= 0) ||
                  trial->valuedouble > 2147483647.0 ||
                  trial->valuedouble != (double)(int64_t)trial->valuedouble))
        st = located(err, ARB_ESCHEMA, &src, "/trial", 0,
                     "expected a non-negative integer (the trial's number)");
    if (st) {
        cJSON_Delete(obj);
        return -(int)st;
    }
    o->line = r->lr.lineno;
    o->trial = trial ? (int64_t)trial->valuedouble : 0;
    o->case_id = strdup(id->valuestring);
    if (cJSON_IsNull(output)) {
        /* No output, not the text "null": the case is missing this system's output, and the
         * problem (recorded by the caller) says why. */
        st = null_output(r, o);
    } else if (cJSON_IsString(output)) {
        /* Take the parsed string rather than copy it (cJSON allocates with malloc, and
         * cJSON_Delete skips a NULL valuestring): one copy less of a large output. */
        o->len = strlen(output->valuestring);
        o->text = output->valuestring;
        output->valuestring = NULL;
        st = ARB_OK;
    } else {
        st = arb_jcs_string(output, &o->text, &o->len, NULL);
    }
    if (!st && !o->case_id)
        st = ARB_ENOMEM;
    if (!st && o->len > r->cap)
        st = located(err, ARB_ETOOBIG, &src, "/output", 0,
                     "output of case '%s' is %zu bytes, over the cap of %zu bytes", o->case_id,
                     o->len, r->cap);
    else if (st)
        st = arb_err_set(err, st, "out of memory");
    cJSON_DeleteItemFromObjectCaseSensitive(obj, "id");
    cJSON_DeleteItemFromObjectCaseSensitive(obj, "output");
    cJSON_DeleteItemFromObjectCaseSensitive(obj, "trial");
    /* what is left is the capture's own fields */
    m = obj;
    obj = NULL;
    if (m->child)
        o->meta = m;
    else
        cJSON_Delete(m);
    if (!st && !o->problem)
        st = finish(r, o, err);
    if (st) {
        arb_output_release(o);
        return -(int)st;
    }
    return 1;
}

/* ---- directories ----------------------------------------------------------------------- */

/*
 * Why the entry full (not a real directory) cannot be an output: NULL for a
 * regular file or a link to one, else a message naming it (malloc'd in
 * *problem; ARB_ENOMEM).  Decided by stat, without opening it.
 */
static enum arb_status why_not_output(const char *full, char **problem)
{
    struct arb_buf b;
    struct stat lsb, sb;
    int linked = lstat(full, &lsb) == 0 && S_ISLNK(lsb.st_mode);
    enum arb_status st = ARB_OK;

    *problem = NULL;
    arb_buf_init(&b, 0);
    if (stat(full, &sb) != 0)
        st = linked ? arb_buf_printf(&b, "'%s' is a symbolic link that leads nowhere (%s)", full,
                                     strerror(errno))
                    : arb_buf_printf(&b, "cannot stat '%s': %s", full, strerror(errno));
    else if (S_ISDIR(sb.st_mode))
        st = arb_buf_printf(&b, "'%s' is a symbolic link to a directory, which is not followed",
                            full);
    else if (!S_ISREG(sb.st_mode))
        st = arb_buf_printf(&b, "'%s' is not a regular file (%s)", full,
                            arb_file_type_name((unsigned)sb.st_mode));
    if (!st && b.len) {
        *problem = arb_buf_detach(&b, NULL);
        st = *problem ? ARB_OK : ARB_ENOMEM;
    }
    arb_buf_release(&b);
    return st;
}

/* Read full (shown as such) into o with the cap; o->problem instead when it is no file. */
static enum arb_status read_file(const struct arb_output_reader *r, const char *full,
                                 struct arb_output *o, struct arb_err *err)
{
    struct arb_buf b;
    struct arb_err ferr = {{0}};
    struct stat sb;
    FILE *f = NULL;
    enum arb_status st = why_not_output(full, &o->problem);

    if (st || o->problem)
        return st ? arb_err_set(err, st, "out of memory") : ARB_OK;
    if (stat(full, &sb) == 0 && (uintmax_t)sb.st_size > (uintmax_t)r->cap)
        return arb_err_set(err, ARB_ETOOBIG, "output '%s' is %jd bytes, over the cap of %zu bytes",
                           full, (intmax_t)sb.st_size, r->cap);
    arb_buf_init(&b, r->cap + 1);
    st = arb_file_open_regular(full, "output", &f, &ferr);
    if (!st) {
        st = arb_stream_read(f, full, &b, &ferr);
        fclose(f);
    }
    if (st == ARB_ETOOBIG)
        st = arb_err_set(err, st, "output '%s' is over the cap of %zu bytes", full, r->cap);
    else if (st)
        st = arb_err_set(err, st, "%s", ferr.msg);
    if (!st) {
        o->text = arb_buf_detach(&b, &o->len);
        st = o->text ? finish(r, o, err) : arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    arb_buf_release(&b);
    return st;
}

/* The next file of the current case sub-directory: 1, 0 when done, or -status. */
static int next_sub(struct arb_output_reader *r, struct arb_output *o, struct arb_err *err)
{
    char *dir, *full;
    enum arb_status st;

    if (r->sub.next >= r->sub.n)
        return 0;
    dir = r->one ? strdup(r->root) : path_join(r->root, r->sub_case);
    full = dir ? path_join(dir, r->sub.v[r->sub.next]) : NULL;
    o->case_id = strdup(r->sub_case);
    o->file = strdup(r->sub.v[r->sub.next]);
    r->sub.next++;
    if (!full || !o->case_id || !o->file)
        st = arb_err_set(err, ARB_ENOMEM, "out of memory");
    else
        st = read_file(r, full, o, err);
    free(dir);
    free(full);
    if (st) {
        arb_output_release(o);
        return -(int)st;
    }
    return 1;
}

/* "inv-001.txt" -> "inv-001"; a name without an extension is the id itself. */
static char *case_of(const char *name)
{
    const char *dot = strrchr(name, '.');

    return dot && dot != name ? strndup(name, (size_t)(dot - name)) : strdup(name);
}

static int next_entry(struct arb_output_reader *r, struct arb_output *o, struct arb_err *err)
{
    for (;;) {
        const char *name;
        char *full;
        struct stat sb;
        enum arb_status st = ARB_OK;
        int got = next_sub(r, o, err);

        if (got)
            return got;
        if (r->top.next >= r->top.n)
            return 0;
        name = r->top.v[r->top.next++];
        full = path_join(r->root, name);
        if (!full)
            return -(int)arb_err_set(err, ARB_ENOMEM, "out of memory");
        if (lstat(full, &sb) != 0) {
            st = arb_err_set(err, ARB_EIO, "cannot stat '%s': %s", full, strerror(errno));
        } else if (S_ISDIR(sb.st_mode)) {
            names_release(&r->sub);
            free(r->sub_case);
            r->sub_case = strdup(name);
            st = r->sub_case ? list_dir(full, "", 1, 1, &r->sub, err)
                             : arb_err_set(err, ARB_ENOMEM, "out of memory");
        } else {
            /* a file, a link, or something that is neither: read_file tells */
            o->case_id = case_of(name);
            st = o->case_id ? read_file(r, full, o, err)
                            : arb_err_set(err, ARB_ENOMEM, "out of memory");
            if (!st) {
                free(full);
                return 1;
            }
            arb_output_release(o);
        }
        free(full);
        if (st)
            return -(int)st;
    }
}

/* The one output of arb_output_reader_open_one that is a file. */
static int next_one_file(struct arb_output_reader *r, struct arb_output *o, struct arb_err *err)
{
    enum arb_status st;

    if (r->one_done)
        return 0;
    r->one_done = 1;
    o->case_id = strdup(r->sub_case);
    st = o->case_id ? read_file(r, r->root, o, err)
                    : arb_err_set(err, ARB_ENOMEM, "out of memory");
    if (st) {
        arb_output_release(o);
        return -(int)st;
    }
    return 1;
}

int arb_output_reader_next(struct arb_output_reader *r, struct arb_output *o, struct arb_err *err)
{
    memset(o, 0, sizeof(*o));
    if (r->fn)
        return r->fn(r->fn_ctx, o, err);
    if (r->one)
        return r->is_dir ? next_sub(r, o, err) : next_one_file(r, o, err);
    return r->is_dir ? next_entry(r, o, err) : next_line(r, o, err);
}
