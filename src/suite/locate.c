/*
 * locate.c - messages that say where: "FILE:LINE:COL: /json/pointer: message".
 *
 * The validator and the check compiler speak in JSON pointers
 * ("/rubric/content/0/check/op"); people read files.  The text has already
 * been parsed by arb_json_parse; the locator of src/util/jscan.h finds the
 * value (and member key) a pointer names in it, and this file falls back to
 * the nearest enclosing value the text has, counts lines from where the text
 * starts in its file, and formats the message.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/jscan.h"
#include "suite_int.h"

/* json_locate, in the suite's terms. */
static int found_at(const struct src *src, const char *pointer, struct pos *value, struct pos *key)
{
    struct arb_jscan_pos v, k;

    if (!arb_jscan_locate(src->text, src->len, pointer, &v, &k))
        return 0;
    value->line = v.line;
    value->col = v.col;
    key->line = k.line;
    key->col = k.col;
    return 1;
}

struct pos locate_pos(const struct src *src, const char *pointer, int at_key)
{
    struct pos val = {1, 1}, key = {1, 1};
    char *p = strdup(pointer);
    int found = 0;

    if (p && src->text) {
        for (;;) {
            char *slash;

            found = found_at(src, p, &val, &key);
            if (found || !p[0])
                break;
            slash = strrchr(p, '/');
            if (!slash)
                break; /* not a pointer at all: the start of the text */
            *slash = '\0';
            at_key = 0;
        }
    }
    free(p);
    if (!found)
        val.line = val.col = 1;
    val = at_key ? key : val;
    val.line += src->line0 ? src->line0 - 1 : 0;
    return val;
}

enum arb_status located(struct arb_err *err, enum arb_status st, const struct src *src,
                        const char *pointer, int at_key, const char *fmt, ...)
{
    char what[sizeof(err->msg)];
    struct pos p;
    va_list ap;

    if (!err)
        return st;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    p = locate_pos(src, pointer, at_key);
    if (pointer[0])
        return arb_err_set(err, st, "%s:%zu:%zu: %s: %s", src->file, p.line, p.col, pointer, what);
    return arb_err_set(err, st, "%s:%zu:%zu: %s", src->file, p.line, p.col, what);
}

enum arb_status located_parse(struct arb_err *err, enum arb_status st, const struct src *src,
                              const char *parse_msg)
{
    unsigned long line = 0, col = 0;
    int used = 0;
    char msg[sizeof(err->msg)];

    if (!err)
        return st;
    snprintf(msg, sizeof(msg), "%s", parse_msg);
    if (sscanf(msg, "line %lu, column %lu: %n", &line, &col, &used) >= 2 && used > 0)
        return arb_err_set(err, st, "%s:%zu:%lu: %s", src->file,
                           (size_t)line + (src->line0 ? src->line0 - 1 : 0), col, msg + used);
    return arb_err_set(err, st, "%s:%zu: %s", src->file, src->line0 ? src->line0 : 1, msg);
}

void arb_json_pointer_pos(const char *text, size_t len, const char *pointer, size_t *line,
                          size_t *col)
{
    struct src src;
    struct pos p;

    memset(&src, 0, sizeof(src));
    src.text = text;
    src.len = len;
    p = locate_pos(&src, pointer ? pointer : "", 0);
    *line = p.line;
    *col = p.col;
}

void arb_err_locate(struct arb_err *err, const char *file, const char *text, size_t len,
                    const char *strip)
{
    char msg[sizeof(err->msg)], pointer[sizeof(err->msg)];
    const char *m = err->msg, *colon;
    size_t line, col, n = strip ? strlen(strip) : 0;

    snprintf(msg, sizeof(msg), "%s", err->msg);
    m = msg;
    if (n && strncmp(m, strip, n) == 0 && (m[n] == '/' || m[n] == ':'))
        m += n;
    colon = m[0] == '/' || m[0] == ':' ? strstr(m, ": ") : NULL;
    if (!colon || !text) {
        arb_err_set(err, ARB_OK, "%s: %s", file, m);
        return;
    }
    memcpy(pointer, m, (size_t)(colon - m));
    pointer[colon - m] = '\0';
    arb_json_pointer_pos(text, len, pointer, &line, &col);
    if (pointer[0])
        arb_err_set(err, ARB_OK, "%s:%zu:%zu: %s", file, line, col, m);
    else
        arb_err_set(err, ARB_OK, "%s:%zu:%zu: %s", file, line, col, colon + 2);
}

void arb_err_locate_parse(struct arb_err *err, const char *file)
{
    struct src src;

    memset(&src, 0, sizeof(src));
    src.file = file;
    src.line0 = 1;
    located_parse(err, ARB_OK, &src, err->msg);
}
