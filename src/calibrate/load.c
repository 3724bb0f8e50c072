/*
 * load.c - reading a labels file (calibrate.h) one line at a time, with
 * errors located as "FILE:LINE:COL: /pointer: what was expected".
 *
 * Lines are JSON objects; blank lines are skipped but counted, a BOM on line
 * 1 and a CR before the LF are dropped.  Columns count code points and point
 * at the offending value (or the key, for an unknown key); a line is one
 * physical line, so a small scanner over its text finds them.  The file's
 * bytes are hashed (SHA-256) as they are read, for the run row of a study.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "arbiter/calibrate.h"
#include "arbiter/json.h"
#include "arbiter/unicode.h"

#define MAX_LINE (64u << 20) /* bytes per line */

/* Where a line came from, for messages. */
struct where {
    const char *file;
    size_t line;
    const char *text;
    size_t len;
};

/* ---- locating a value in one line of JSON ---------------------------------------------- */

static size_t skip_ws(const char *s, size_t n, size_t i)
{
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
        i++;
    return i;
}

/* s[i] is a quote: the index after the closing quote. */
static size_t skip_string(const char *s, size_t n, size_t i)
{
    for (i++; i < n && s[i] != '"'; i++)
        if (s[i] == '\\')
            i++;
    return i < n ? i + 1 : n;
}

/* The index after the value at i (the text is known to be valid JSON). */
static size_t skip_value(const char *s, size_t n, size_t i)
{
    size_t depth = 0;

    if (i < n && s[i] == '"')
        return skip_string(s, n, i);
    while (i < n) {
        char c = s[i];

        if (c == '"') {
            i = skip_string(s, n, i);
            continue;
        }
        if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (depth == 0)
                return i;
            if (--depth == 0)
                return i + 1;
        } else if (depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\r')) {
            return i;
        }
        i++;
    }
    return n;
}

/*
 * From the container at *i, step to the member named tok (object) or the item
 * at index tok (array).  *key receives the member key's offset.  0 when absent.
 */
static int step(const char *s, size_t n, size_t *i, const char *tok, size_t *key)
{
    int obj = s[*i] == '{';
    size_t at = skip_ws(s, n, *i + 1), index = 0, want = (size_t)strtoul(tok, NULL, 10);

    while (at < n && s[at] != '}' && s[at] != ']') {
        size_t k = at;
        int hit = 0;

        if (obj) {
            size_t end = skip_string(s, n, at);

            hit = end - at - 2 == strlen(tok) && memcmp(s + at + 1, tok, end - at - 2) == 0;
            at = skip_ws(s, n, end);
            at = skip_ws(s, n, at + 1); /* the colon */
        } else {
            hit = index == want;
        }
        if (hit) {
            *key = k;
            *i = at;
            return 1;
        }
        at = skip_ws(s, n, skip_value(s, n, at));
        if (at < n && s[at] == ',')
            at = skip_ws(s, n, at + 1);
        index++;
    }
    return 0;
}

/* Column (code points, from 1) of the value at pointer (at_key: of its key; else nearest). */
static size_t column(const struct where *w, const char *pointer, int at_key)
{
    char tok[128];
    size_t i = skip_ws(w->text, w->len, 0), key = i;
    const char *p = pointer;

    if (w->len >= 3 && memcmp(w->text, "\xEF\xBB\xBF", 3) == 0)
        i = key = skip_ws(w->text, w->len, 3);
    while (*p == '/' && i < w->len && (w->text[i] == '{' || w->text[i] == '[')) {
        size_t k = 0;

        for (p++; *p && *p != '/' && k + 1 < sizeof(tok); p++)
            tok[k++] = *p;
        tok[k] = '\0';
        if (!step(w->text, w->len, &i, tok, &key))
            break;
        if (!*p && at_key)
            i = key;
    }
    return arb_utf8_count(w->text, i) + 1;
}

static enum arb_status located(struct arb_err *err, enum arb_status st, const struct where *w,
                               const char *pointer, int at_key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

static enum arb_status located(struct arb_err *err, enum arb_status st, const struct where *w,
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

/* ---- one line -------------------------------------------------------------------------- */

static const char *const pairwise_keys[] = {"id",    "prompt", "output_1", "output_2",
                                            "human", "judge",  NULL};
static const char *const expectation_keys[] = {"id",    "output", "expectation",
                                               "human", "judge",  NULL};

static char *dup_string(const cJSON *v)
{
    return v ? strdup(v->valuestring) : NULL;
}

/* A required (or optional) string member; *v NULL when absent and optional. */
static enum arb_status string_member(const cJSON *o, const char *name, int required,
                                     const struct where *w, const cJSON **v, struct arb_err *err)
{
    char ptr[64];

    snprintf(ptr, sizeof(ptr), "/%s", name);
    *v = cJSON_GetObjectItemCaseSensitive(o, name);
    if (!*v && !required)
        return ARB_OK;
    if (!*v)
        return located(err, ARB_ESCHEMA, w, "", 0, "missing \"%s\" (a string)", name);
    if (!cJSON_IsString(*v))
        return located(err, ARB_ESCHEMA, w, ptr, 0, "expected a string");
    return ARB_OK;
}

/* "1", "2" or "tie" (null allowed when nullable): the verdict, or -3 when not one. */
static int pair_label(const cJSON *v, int nullable)
{
    if (nullable && cJSON_IsNull(v))
        return ARB_V_NULL;
    if (!cJSON_IsString(v))
        return -3;
    if (strcmp(v->valuestring, "1") == 0)
        return ARB_V_1;
    if (strcmp(v->valuestring, "2") == 0)
        return ARB_V_2;
    if (strcmp(v->valuestring, "tie") == 0)
        return ARB_V_TIE;
    return -3;
}

static enum arb_status pairwise_human(const cJSON *h, const struct where *w,
                                      struct arb_calib_item *it, struct arb_err *err)
{
    static const char expect[] = "expected \"1\", \"2\", \"tie\" or a list of them";
    const cJSON *x;
    char ptr[32];

    if (!cJSON_IsArray(h)) {
        it->human[0] = pair_label(h, 0);
        it->n_human = 1;
        return it->human[0] < 0 ? located(err, ARB_ESCHEMA, w, "/human", 0, expect) : ARB_OK;
    }
    if (cJSON_GetArraySize(h) == 0)
        return located(err, ARB_ESCHEMA, w, "/human", 0, "expected at least one label");
    cJSON_ArrayForEach(x, h)
    {
        snprintf(ptr, sizeof(ptr), "/human/%zu", it->n_human);
        if (it->n_human == ARB_CALIB_MAX_ANNOTATORS)
            return located(err, ARB_ESCHEMA, w, ptr, 0, "at most %d annotators",
                           ARB_CALIB_MAX_ANNOTATORS);
        it->human[it->n_human] = pair_label(x, 0);
        if (it->human[it->n_human] < 0)
            return located(err, ARB_ESCHEMA, w, ptr, 0, "expected \"1\", \"2\" or \"tie\"");
        it->n_human++;
    }
    return ARB_OK;
}

static enum arb_status pairwise_judge(const cJSON *j, const struct where *w,
                                      struct arb_calib_item *it, struct arb_err *err)
{
    const cJSON *x;

    it->order_12 = it->order_21 = ARB_V_ABSENT;
    if (!j)
        return ARB_OK;
    if (!cJSON_IsObject(j))
        return located(err, ARB_ESCHEMA, w, "/judge", 0,
                       "expected an object {\"order_12\": v, \"order_21\": v}");
    cJSON_ArrayForEach(x, j)
    {
        char ptr[300];
        int v = pair_label(x, 1), *slot;

        snprintf(ptr, sizeof(ptr), "/judge/%.200s", x->string);
        if (strcmp(x->string, "order_12") == 0)
            slot = &it->order_12;
        else if (strcmp(x->string, "order_21") == 0)
            slot = &it->order_21;
        else
            return located(err, ARB_ESCHEMA, w, ptr, 1,
                           "unknown key '%.200s' (expected order_12, order_21)", x->string);
        if (v == -3)
            return located(err, ARB_ESCHEMA, w, ptr, 0, "expected \"1\", \"2\", \"tie\" or null");
        *slot = v;
    }
    if (it->order_12 == ARB_V_ABSENT && it->order_21 == ARB_V_ABSENT)
        return located(err, ARB_ESCHEMA, w, "/judge", 0, "expected order_12 or order_21");
    it->recorded = 1;
    return ARB_OK;
}

static enum arb_status check_keys(const cJSON *o, const char *const *keys, const struct where *w,
                                  struct arb_err *err)
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
        return located(
            err, ARB_ESCHEMA, w, ptr, 1, "unknown key '%.200s' (expected: %s)", x->string,
            keys == pairwise_keys ? "id, prompt, output_1, output_2, human, judge"
                                  : "id, output, expectation, human, judge (expectation labels)");
    }
    return ARB_OK;
}

static enum arb_status parse_item(const cJSON *o, enum arb_calib_kind kind, const struct where *w,
                                  struct arb_calib_item *it, struct arb_err *err)
{
    const cJSON *id, *prompt = NULL, *o1, *o2 = NULL, *ex = NULL, *h, *j;
    enum arb_status st =
        check_keys(o, kind == ARB_CALIB_PAIRWISE ? pairwise_keys : expectation_keys, w, err);

    if (!st)
        st = string_member(o, "id", 1, w, &id, err);
    if (!st && kind == ARB_CALIB_PAIRWISE) {
        st = string_member(o, "prompt", 0, w, &prompt, err);
        if (!st)
            st = string_member(o, "output_1", 1, w, &o1, err);
        if (!st)
            st = string_member(o, "output_2", 1, w, &o2, err);
    } else if (!st) {
        st = string_member(o, "output", 1, w, &o1, err);
        if (!st)
            st = string_member(o, "expectation", 1, w, &ex, err);
    }
    if (st)
        return st;
    h = cJSON_GetObjectItemCaseSensitive(o, "human");
    j = cJSON_GetObjectItemCaseSensitive(o, "judge");
    if (!h)
        return located(err, ARB_ESCHEMA, w, "", 0, "missing \"human\" (the human label)");
    if (kind == ARB_CALIB_PAIRWISE) {
        st = pairwise_human(h, w, it, err);
        if (!st)
            st = pairwise_judge(j, w, it, err);
    } else {
        if (!cJSON_IsBool(h))
            return located(err, ARB_ESCHEMA, w, "/human", 0, "expected true or false");
        it->human[0] = cJSON_IsTrue(h) ? ARB_V_TRUE : ARB_V_FALSE;
        it->n_human = 1;
        it->order_12 = it->order_21 = ARB_V_ABSENT;
        if (j && !cJSON_IsBool(j) && !cJSON_IsNull(j))
            return located(err, ARB_ESCHEMA, w, "/judge", 0, "expected true, false or null");
        if (j) {
            it->recorded = 1;
            it->order_12 = cJSON_IsNull(j)   ? ARB_V_NULL
                           : cJSON_IsTrue(j) ? ARB_V_TRUE
                                             : ARB_V_FALSE;
        }
    }
    if (st)
        return st;
    it->id = dup_string(id);
    it->prompt = dup_string(prompt);
    it->output_1 = dup_string(o1);
    it->output_2 = dup_string(o2);
    it->expectation = dup_string(ex);
    if (!it->id || !it->output_1 || (prompt && !it->prompt) || (o2 && !it->output_2) ||
        (ex && !it->expectation))
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    return ARB_OK;
}

static void item_release(struct arb_calib_item *it)
{
    free(it->id);
    free(it->prompt);
    free(it->output_1);
    free(it->output_2);
    free(it->expectation);
}

/* Add the item on line w (already parsed as o), refusing a duplicate id. */
static enum arb_status add_item(struct arb_calib_set *set, const cJSON *o, const struct where *w,
                                size_t *lines, struct arb_err *err)
{
    struct arb_calib_item it;
    enum arb_status st;

    memset(&it, 0, sizeof(it));
    if (set->n == 0 && cJSON_IsObject(o))
        set->kind = cJSON_GetObjectItemCaseSensitive(o, "expectation") ? ARB_CALIB_EXPECTATION
                                                                       : ARB_CALIB_PAIRWISE;
    if (!cJSON_IsObject(o))
        st = located(err, ARB_ESCHEMA, w, "", 0, "expected an object (one labelled item)");
    else
        st = parse_item(o, set->kind, w, &it, err);
    /* Quadratic in the worst case, but label files are small (thousands of items). */
    for (size_t i = 0; !st && i < set->n; i++)
        if (strcmp(set->items[i].id, it.id) == 0)
            st = located(err, ARB_ESCHEMA, w, "/id", 0, "duplicate id '%.200s' (first on line %zu)",
                         it.id, lines[i]);
    if (!st && set->n == set->cap) {
        size_t cap = set->cap ? 2 * set->cap : 64;
        struct arb_calib_item *grown = realloc(set->items, cap * sizeof(*grown));

        if (!grown)
            st = arb_err_set(err, ARB_ENOMEM, "out of memory");
        else {
            set->items = grown;
            set->cap = cap;
        }
    }
    if (st) {
        item_release(&it);
        return st;
    }
    set->items[set->n++] = it;
    return ARB_OK;
}

/* Read and parse every line of f into set. */
static enum arb_status read_lines(FILE *f, const char *path, struct arb_calib_set *set,
                                  EVP_MD_CTX *md, struct arb_err *err)
{
    char *line = NULL;
    size_t cap = 0, lineno = 0, *lines = NULL, lines_cap = 0;
    ssize_t got;
    enum arb_status st = ARB_OK;

    while (!st && (got = getline(&line, &cap, f)) >= 0) {
        struct where w = {path, ++lineno, line, (size_t)got};
        cJSON *o = NULL;
        size_t i;

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
        st = arb_json_parse(w.text, w.len, lineno == 1 ? ARB_JSON_ALLOW_BOM : 0, &o, err);
        if (st) {
            const char *m = strstr(err->msg, "column ");
            char copy[sizeof(err->msg)];

            /* "line 1, column C: what" -> "FILE:LINE:C: what" */
            snprintf(copy, sizeof(copy), "%s", m ? m + 7 : err->msg);
            arb_err_set(err, st, "%s:%zu:%s", path, lineno, copy);
            break;
        }
        if (set->n == lines_cap) {
            size_t nc = lines_cap ? 2 * lines_cap : 64,
                   *grown = realloc(lines, nc * sizeof(*grown));

            if (!grown) {
                cJSON_Delete(o);
                st = arb_err_set(err, ARB_ENOMEM, "out of memory");
                break;
            }
            lines = grown;
            lines_cap = nc;
        }
        lines[set->n] = lineno;
        st = add_item(set, o, &w, lines, err);
        cJSON_Delete(o);
    }
    if (!st && ferror(f))
        st = arb_err_set(err, ARB_EIO, "cannot read '%s': %s", path, strerror(errno));
    if (!st && set->n == 0)
        st = arb_err_set(err, ARB_ESCHEMA, "%s: no labelled items", path);
    free(line);
    free(lines);
    return st;
}

enum arb_status arb_calib_load(const char *path, struct arb_calib_set **out, struct arb_err *err)
{
    struct arb_calib_set *set;
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int dn = 0;
    EVP_MD_CTX *md;
    enum arb_status st;
    FILE *f;

    *out = NULL;
    f = fopen(path, "rb");
    if (!f)
        return arb_err_set(err, ARB_EIO, "cannot open labels '%s': %s", path, strerror(errno));
    set = calloc(1, sizeof(*set));
    md = EVP_MD_CTX_new();
    if (!set || !md) {
        st = arb_err_set(err, ARB_ENOMEM, "out of memory");
    } else if (!EVP_DigestInit_ex(md, EVP_sha256(), NULL)) {
        st = arb_err_set(err, ARB_EINTERNAL, "cannot hash '%s'", path);
    } else {
        st = read_lines(f, path, set, md, err);
    }
    if (!st && !EVP_DigestFinal_ex(md, digest, &dn))
        st = arb_err_set(err, ARB_EINTERNAL, "cannot hash '%s'", path);
    for (unsigned int i = 0; !st && i < dn && i < 32; i++)
        snprintf(set->sha256 + 2 * i, 3, "%02x", digest[i]);
    EVP_MD_CTX_free(md);
    fclose(f);
    if (st) {
        arb_calib_set_free(set);
        return st;
    }
    *out = set;
    return ARB_OK;
}

void arb_calib_set_free(struct arb_calib_set *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->n; i++)
        item_release(&set->items[i]);
    free(set->items);
    free(set);
}

size_t arb_calib_unjudged(const struct arb_calib_set *set)
{
    size_t n = 0;

    for (size_t i = 0; i < set->n; i++)
        n += !set->items[i].recorded;
    return n;
}
