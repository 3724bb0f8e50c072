/*
 * jsonl.c - a labels file read one JSON line at a time (calib_int.h), with
 * errors located as "FILE:LINE:COL: /pointer: what was expected".
 *
 * Columns count code points and point at the offending value (or the key,
 * for an unknown key); a line is one physical line, so stepping through its
 * containers with the scanner of src/util/jscan.h finds them.  The file's
 * bytes are hashed (SHA-256) as they are read, for the run row of a study.  The same
 * reader takes a text in memory (the labels of a run in the database, labels_jsonl.c),
 * named as a file would be in its messages.
 * What a line must hold is the caller's business (load.c for judge labels,
 * tune_load.c for check labels).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "arbiter/json.h"
#include "arbiter/unicode.h"
#include "../util/jscan.h"
#include "calib_int.h"

#define MAX_LINE (64u << 20) /* bytes per line */

/* ---- locating a value in one line of JSON ---------------------------------------------- */

/*
 * From the container at *i, step to the member named tok (object) or the item at index tok
 * (array).  *key receives the member key's offset.  0 when absent.  A name matches as the line
 * spells it, escapes and all: the pointers here are built from the names as they are.
 */
static int step(const struct calib_line *w, size_t *i, const char *tok, size_t *key)
{
    size_t want = (size_t)strtoul(tok, NULL, 10), n = strlen(tok);
    struct arb_jscan_items it;

    arb_jscan_items_init(&it, w->text, w->len, *i);
    while (arb_jscan_items_next(&it)) {
        int hit = it.index == want;

        if (it.close == '}')
            hit = it.key_end - it.key_at - 2 == n && memcmp(w->text + it.key_at + 1, tok, n) == 0;
        if (hit) {
            *key = it.key_at;
            *i = it.value_at;
            return 1;
        }
    }
    return 0;
}

/* Column (code points, from 1) of the value at pointer (at_key: of its key; else nearest). */
static size_t column(const struct calib_line *w, const char *pointer, int at_key)
{
    struct arb_jscan sc = {w->text, w->len, arb_jscan_bom(w->text, w->len)};
    char tok[128];
    size_t i, key;
    const char *p = pointer;

    arb_jscan_ws(&sc);
    i = key = sc.pos;
    while (*p == '/' && i < w->len && (w->text[i] == '{' || w->text[i] == '[')) {
        size_t k = 0;

        for (p++; *p && *p != '/' && k + 1 < sizeof(tok); p++)
            tok[k++] = *p;
        tok[k] = '\0';
        if (!step(w, &i, tok, &key))
            break;
        if (!*p && at_key)
            i = key;
    }
    return arb_utf8_count(w->text, i) + 1;
}

enum arb_status calib_located(struct arb_err *err, enum arb_status st, const struct calib_line *w,
                              const char *pointer, int at_key, const char *fmt, ...)
{
    char msg[700];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return arb_err_set(err, st, "%s:%zu:%zu: %s%s%s", w->file, w->line, column(w, pointer, at_key),
                       pointer, pointer[0] ? ": " : "", msg);
}

/* ---- members every kind of line checks the same way ----------------------------------- */

enum arb_status calib_string_member(const cJSON *o, const char *name, int required,
                                    const struct calib_line *w, const cJSON **v,
                                    struct arb_err *err)
{
    char ptr[64];

    snprintf(ptr, sizeof(ptr), "/%s", name);
    *v = cJSON_GetObjectItemCaseSensitive(o, name);
    if (!*v && !required)
        return ARB_OK;
    if (!*v)
        return calib_located(err, ARB_ESCHEMA, w, "", 0, "missing \"%s\" (a string)", name);
    if (!cJSON_IsString(*v))
        return calib_located(err, ARB_ESCHEMA, w, ptr, 0, "expected a string");
    return ARB_OK;
}

enum arb_status calib_check_keys(const cJSON *o, const char *const *keys, const char *valid,
                                 const struct calib_line *w, struct arb_err *err)
{
    const cJSON *x;

    cJSON_ArrayForEach(x, o)
    {
        size_t k;
        char ptr[300];

        for (k = 0; keys[k] && strcmp(keys[k], x->string) != 0; k++)
            ;
        if (keys[k])
            continue;
        snprintf(ptr, sizeof(ptr), "/%.200s", x->string);
        return calib_located(err, ARB_ESCHEMA, w, ptr, 1, "unknown key '%.200s' (expected: %s)",
                             x->string, valid);
    }
    return ARB_OK;
}

enum arb_status calib_unique_id(const struct calib_line *w, const char *id, struct arb_err *err)
{
    size_t first = 0;
    int added = 0;

    if (arb_strset_add(w->ids, id, w->line, &added, &first))
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    if (!added)
        return calib_located(err, ARB_ESCHEMA, w, "/id", 0,
                             "duplicate id '%.200s' (first on line %zu)", id, first);
    return ARB_OK;
}

/* ---- the lines: of a file or of a text ------------------------------------------------ */

/* Where lines come from: f (getline into buf), or text[at..len) read in place. */
struct line_src {
    FILE *f;
    char *buf;
    size_t cap;
    const char *text;
    size_t len, at;
};

/* The next line with its LF (the last may lack one): *line, its length; -1 at the end. */
static ssize_t next_line(struct line_src *src, const char **line)
{
    const char *nl;
    ssize_t got;

    if (src->f) {
        got = getline(&src->buf, &src->cap, src->f);
        *line = src->buf;
        return got;
    }
    if (src->at >= src->len)
        return -1;
    *line = src->text + src->at;
    nl = memchr(*line, '\n', src->len - src->at);
    got = nl ? nl - *line + 1 : (ssize_t)(src->len - src->at);
    src->at += (size_t)got;
    return got;
}

/* Parse every line of src and hand it to fn; *items counts the lines handed over. */
static enum arb_status read_lines(struct line_src *src, const char *path,
                                  enum arb_status (*fn)(void *ctx, const cJSON *o,
                                                        const struct calib_line *w,
                                                        struct arb_err *err),
                                  void *ctx, EVP_MD_CTX *md, size_t *items, struct arb_err *err)
{
    struct arb_strset ids;
    const char *line = NULL;
    size_t lineno = 0;
    ssize_t got;
    enum arb_status st = ARB_OK;

    arb_strset_init(&ids);
    while (!st) {
        struct calib_line w;
        cJSON *o = NULL;
        size_t i;

        got = next_line(src, &line);
        if (got < 0)
            break;
        w = (struct calib_line){path, ++lineno, line, (size_t)got, &ids};
        if (!EVP_DigestUpdate(md, line, (size_t)got)) {
            st = arb_err_set(err, ARB_EINTERNAL, "cannot hash '%s'", path);
            break;
        }
        if ((size_t)got > MAX_LINE) {
            st = arb_err_set(err, ARB_ETOOBIG, "%s:%zu: line is longer than %u bytes", path, lineno,
                             MAX_LINE);
            break;
        }
        while (w.len && (line[w.len - 1] == '\n' || line[w.len - 1] == '\r'))
            w.len--;
        for (i = 0; i < w.len && strchr(" \t", line[i]); i++)
            ;
        if (i == w.len)
            continue;
        /* A label given twice ("human": true, ..., "human": false) must not be read as one. */
        st = arb_json_parse(w.text, w.len,
                            ARB_JSON_NO_DUPLICATES | (lineno == 1 ? ARB_JSON_ALLOW_BOM : 0), &o,
                            err);
        if (st) {
            const char *m = strstr(err->msg, "column ");
            char copy[sizeof(err->msg)];

            /* "line 1, column C: what" -> "FILE:LINE:C: what" */
            snprintf(copy, sizeof(copy), "%s", m ? m + 7 : err->msg);
            arb_err_set(err, st, "%s:%zu:%s", path, lineno, copy);
            break;
        }
        st = fn(ctx, o, &w, err);
        cJSON_Delete(o);
        (*items)++;
    }
    if (!st && src->f && ferror(src->f))
        st = arb_err_set(err, ARB_EIO, "cannot read '%s': %s", path, strerror(errno));
    if (!st && *items == 0)
        st = arb_err_set(err, ARB_ESCHEMA, "%s: no labelled items", path);
    arb_strset_release(&ids);
    return st;
}

/* read_lines with the bytes hashed into sha256 (65 bytes, or NULL). */
static enum arb_status read_hashed(struct line_src *src, const char *path,
                                   enum arb_status (*fn)(void *ctx, const cJSON *o,
                                                         const struct calib_line *w,
                                                         struct arb_err *err),
                                   void *ctx, char *sha256, struct arb_err *err)
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int dn = 0;
    size_t items = 0;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    enum arb_status st;

    if (!md)
        st = arb_err_set(err, ARB_ENOMEM, "out of memory");
    else if (!EVP_DigestInit_ex(md, EVP_sha256(), NULL))
        st = arb_err_set(err, ARB_EINTERNAL, "cannot hash '%s'", path);
    else
        st = read_lines(src, path, fn, ctx, md, &items, err);
    if (!st && !EVP_DigestFinal_ex(md, digest, &dn))
        st = arb_err_set(err, ARB_EINTERNAL, "cannot hash '%s'", path);
    if (!st && sha256)
        arb_hex(digest, dn < 32 ? dn : 32, sha256);
    EVP_MD_CTX_free(md);
    return st;
}

enum arb_status calib_jsonl_read(const char *path,
                                 enum arb_status (*fn)(void *ctx, const cJSON *o,
                                                       const struct calib_line *w,
                                                       struct arb_err *err),
                                 void *ctx, char *sha256, struct arb_err *err)
{
    struct line_src src;
    enum arb_status st;

    memset(&src, 0, sizeof(src));
    src.f = fopen(path, "rb");
    if (!src.f)
        return arb_err_set(err, ARB_EIO, "cannot open labels '%s': %s", path, strerror(errno));
    st = read_hashed(&src, path, fn, ctx, sha256, err);
    free(src.buf);
    fclose(src.f);
    return st;
}

enum arb_status calib_jsonl_read_text(const char *text, size_t len, const char *name,
                                      enum arb_status (*fn)(void *ctx, const cJSON *o,
                                                            const struct calib_line *w,
                                                            struct arb_err *err),
                                      void *ctx, char *sha256, struct arb_err *err)
{
    struct line_src src;

    memset(&src, 0, sizeof(src));
    src.text = text;
    src.len = text ? len : 0;
    return read_hashed(&src, name, fn, ctx, sha256, err);
}
