/*
 * record.c - the result record as one line of JSON.
 *
 * Written directly into a buffer (no cJSON tree) because `check --batch`
 * prints hundreds of thousands of records a second.  Member order follows
 * DESIGN.md.  Text that is not valid UTF-8 is written with U+FFFD in place
 * of each invalid byte, so every record is valid JSON; the record's notes
 * say invalid_utf8 when that happened.  arb_result_to_cjson builds the same
 * record as a cJSON tree, for records nested in other records (fields).
 * The compared member (the normalized surfaces) is written only when the
 * operator compared converted values; JSON surfaces are already RFC 8785 text
 * and are written as they are.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/json.h"
#include "arbiter/unicode.h"
#include "check_impl.h"

/* 1 for the bytes written as they are: printable ASCII but '"' and '\\'. */
/* clang-format off */
#define P8(x) x, x, x, x, x, x, x, x
static const unsigned char plain[256] = {
    P8(0), P8(0), P8(0), P8(0),                 /* 0x00-0x1f */
    1, 1, 0, 1, 1, 1, 1, 1, P8(1), P8(1), P8(1), /* 0x20-0x3f: '"' */
    P8(1), P8(1), P8(1), 1, 1, 1, 1, 0, 1, 1, 1, /* 0x40-0x5f: '\\' */
    P8(1), P8(1), P8(1), P8(1),                 /* 0x60-0x7f */
    P8(0), P8(0), P8(0), P8(0), P8(0), P8(0), P8(0), P8(0), P8(0), P8(0), P8(0), P8(0),
    P8(0), P8(0), P8(0), P8(0)};
#undef P8
/* clang-format on */

/* The escape of an ASCII byte that is not plain, into e (6 bytes); its length. */
static size_t escape_ascii(unsigned char ch, char *e)
{
    static const char hex[] = "0123456789abcdef";

    e[0] = '\\';
    switch (ch) {
    case '"':
    case '\\':
        e[1] = (char)ch;
        return 2;
    case '\n':
        e[1] = 'n';
        return 2;
    case '\r':
        e[1] = 'r';
        return 2;
    case '\t':
        e[1] = 't';
        return 2;
    case '\b':
        e[1] = 'b';
        return 2;
    case '\f':
        e[1] = 'f';
        return 2;
    default:
        memcpy(e + 1, "u00", 3);
        e[4] = hex[ch >> 4];
        e[5] = hex[ch & 15];
        return 6;
    }
}

/*
 * s[0..len) as a JSON string.  Written through a stack buffer, so that text with many escapes
 * (observed JSON: a quote every few bytes) costs stores, not one append per piece; a long plain
 * run goes straight to out.
 */
static enum arb_status write_string(struct arb_buf *out, const char *s, size_t len)
{
    char tmp[512];
    size_t i = 0, t = 1, run;
    enum arb_status st = ARB_OK;

    /* a short string with nothing to escape (operator names, notes, most surfaces): one copy */
    if (len <= sizeof(tmp) - 2) {
        run = arb_json_plain8(s, len, 1);
        while (run < len && plain[(unsigned char)s[run]])
            run++;
        if (run == len) {
            tmp[0] = '"';
            memcpy(tmp + 1, s, len);
            tmp[len + 1] = '"';
            return arb_buf_add(out, tmp, len + 2);
        }
    }
    tmp[0] = '"';
    while (!st && i < len) {
        unsigned char ch;

        if (t > sizeof(tmp) - 16) { /* room for a run's start and an escape */
            st = arb_buf_add(out, tmp, t);
            t = 0;
            if (st)
                break;
        }
        /* the plain bytes of a run: eight at a time, then one by one */
        run = arb_json_plain8(s + i, len - i, 1);
        while (i + run < len && plain[(unsigned char)s[i + run]])
            run++;
        if (run > sizeof(tmp) - 8 - t) {
            st = arb_buf_add(out, tmp, t);
            t = 0;
            if (!st && run > sizeof(tmp) - 8)
                st = arb_buf_add(out, s + i, run);
            else
                memcpy(tmp, s + i, run), t = run;
        } else {
            memcpy(tmp + t, s + i, run);
            t += run;
        }
        i += run;
        if (st || i == len)
            break;
        ch = (unsigned char)s[i];
        if (ch < 0x80) {
            t += escape_ascii(ch, tmp + t);
            i++;
        } else {
            size_t j = i;
            uint32_t cp = arb_utf8_next(s, len, &j);

            /* a sequence is at most 4 bytes, and its replacement \ufffd 6 */
            if (cp == 0xFFFD && !(j - i == 3 && (unsigned char)s[i] == 0xEF)) {
                memcpy(tmp + t, "\\ufffd", 6);
                t += 6;
            } else {
                memcpy(tmp + t, s + i, j - i);
                t += j - i;
            }
            i = j;
        }
    }
    if (!st)
        tmp[t++] = '"'; /* t was at most sizeof(tmp) - 2 */
    return st ? st : arb_buf_add(out, tmp, t);
}

static enum arb_status write_number(struct arb_buf *out, double d)
{
    char num[ARB_JSON_NUMBER_MAX];
    size_t n;

    if (!isfinite(d))
        return arb_buf_adds(out, "null");
    n = arb_json_number_format(d, num);
    return arb_buf_add(out, num, n);
}

static enum arb_status write_json(struct arb_buf *out, const cJSON *v)
{
    if (!v)
        return arb_buf_adds(out, "null");
    enum arb_status st = arb_jcs_write(v, out, NULL);

    /* A value that cannot be canonical (a hand-built non-finite number) prints as null. */
    if (st == ARB_ESCHEMA)
        return arb_buf_adds(out, "null");
    return st;
}

/*
 * The steps that applied to side, as a JSON array of names, appended to a stack buffer: step
 * names are static ASCII identifiers (no escaping), and one append per record is cheaper than
 * one per name on the check --batch path.  side 0 takes every step.  Returns the length
 * written.
 */
static size_t steps_text(const struct arb_result *r, unsigned side, char *buf, size_t cap)
{
    size_t i, n = 0, len;

    buf[n++] = '[';
    for (i = 0; i < r->n_norm; i++) {
        if (side && !(r->norm_side[i] & side))
            continue;
        len = strlen(r->norm[i]);
        if (n + len + 4 >= cap)
            break; /* cannot happen: 8 steps of short names */
        if (n > 1)
            buf[n++] = ',';
        buf[n++] = '"';
        memcpy(buf + n, r->norm[i], len);
        n += len;
        buf[n++] = '"';
    }
    buf[n++] = ']';
    return n;
}

/*
 * One compared surface.  exp_num is the text already written for a numeric expected (or NULL):
 * an expected number compared as it is need not be formatted twice.
 */
static enum arb_status write_surface(struct arb_buf *out, const struct arb_result *r, int i,
                                     const char *exp_num)
{
    switch (r->compared_kind) {
    case ARB_COMPARED_NUMBER:
        if (i == 0 && exp_num && r->expected->valuedouble == r->compared_num[0])
            return arb_buf_adds(out, exp_num);
        return write_number(out, r->compared_num[i]);
    case ARB_COMPARED_TEXT:
        return write_string(out, r->compared_text[i], r->compared_len[i]);
    case ARB_COMPARED_JSON:
        return arb_buf_add(out, r->compared_text[i], r->compared_len[i]);
    case ARB_COMPARED_NONE:
        break;
    }
    return arb_buf_add(out, "null", 4);
}

/* ,"compared":{"expected":E,"observed":O,"expected_steps":[...],"observed_steps":[...]} */
static enum arb_status write_compared(const struct arb_result *r, struct arb_buf *out,
                                      const char *exp_num)
{
    static const char head[] = ",\"compared\":{\"expected\":";
    static const char mid[] = ",\"observed\":";
    char tail[640];
    size_t n;
    enum arb_status st;

    if (r->compared_kind == ARB_COMPARED_NONE)
        return ARB_OK;
    memcpy(tail, ",\"expected_steps\":", 18);
    n = 18 + steps_text(r, ARB_SIDE_EXPECTED, tail + 18, 300);
    memcpy(tail + n, ",\"observed_steps\":", 18);
    n += 18;
    n += steps_text(r, ARB_SIDE_OBSERVED, tail + n, 300);
    tail[n++] = '}';
    st = arb_buf_add(out, head, sizeof(head) - 1);
    if (!st)
        st = write_surface(out, r, 0, exp_num);
    if (!st)
        st = arb_buf_add(out, mid, sizeof(mid) - 1);
    if (!st)
        st = write_surface(out, r, 1, NULL);
    return st ? st : arb_buf_add(out, tail, n);
}

/* ---- what records written one after another share (struct arb_record_memo) ---------- */

void arb_record_memo_init(struct arb_record_memo *m)
{
    m->n_slots = 0;
    arb_buf_init(&m->text, 0);
}

void arb_record_memo_release(struct arb_record_memo *m)
{
    arb_buf_release(&m->text);
    m->n_slots = 0;
}

void arb_record_memo_reset(struct arb_record_memo *m)
{
    size_t i, n = 0, end = 0;

    /* The held slots come first (memo_add keeps them in front): the text up to the end of the
     * last one written stays (with whatever a dropped slot wrote before it, once), the rest
     * goes with the slots after them. */
    for (i = 0; i < m->n_slots && m->slot[i].held; i++) {
        n++;
        if (m->slot[i].n && m->slot[i].at + m->slot[i].n > end)
            end = m->slot[i].at + m->slot[i].n;
    }
    m->n_slots = n;
    m->text.len = end;
    if (m->text.ptr)
        m->text.ptr[end] = '\0';
}

/* The slot of key (len: a kept text's length, SIZE_MAX for an expected value), or NULL. */
static size_t memo_find(const struct arb_record_memo *m, const void *key, size_t len)
{
    size_t i;

    for (i = 0; i < m->n_slots; i++)
        if (m->slot[i].key == key && m->slot[i].len == len)
            return i;
    return SIZE_MAX;
}

static void memo_add(struct arb_record_memo *m, const void *key, size_t len, int held)
{
    if (m->n_slots == ARB_RECORD_MEMO_SLOTS || memo_find(m, key, len) != SIZE_MAX)
        return;
    /* held slots stay in front (arb_record_memo_reset keeps a prefix) */
    if (held && m->n_slots && !m->slot[m->n_slots - 1].held)
        return;
    m->slot[m->n_slots].key = key;
    m->slot[m->n_slots].len = len;
    m->slot[m->n_slots].n = 0;
    m->slot[m->n_slots].held = held;
    m->n_slots++;
}

void arb_record_memo_hold(struct arb_record_memo *m, const cJSON *v)
{
    /* half the slots at most: the others are for each case's texts and expected value */
    if (v && m->n_slots < ARB_RECORD_MEMO_SLOTS / 2)
        memo_add(m, v, SIZE_MAX, 1);
}

void arb_record_memo_keep(struct arb_record_memo *m, const char *text, size_t len)
{
    memo_add(m, text, len, 0);
}

/*
 * Append the JSON of slot i of m, when it was written before; otherwise write it with the
 * member's own writer (which == 0: the expected value, 1: the observed text) and keep its bytes
 * (a memo that cannot grow keeps nothing: the record is written all the same).
 */
static enum arb_status memo_write(struct arb_record_memo *m, size_t i, struct arb_buf *out,
                                  const struct arb_result *r, int which)
{
    size_t at = out->len;
    enum arb_status st;

    if (m->slot[i].n)
        return arb_buf_add(out, m->text.ptr + m->slot[i].at, m->slot[i].n);
    st = which ? write_string(out, r->observed, r->observed_len) : write_json(out, r->expected);
    if (!st && out->len > at) {
        size_t mark = m->text.len;

        if (arb_buf_add(&m->text, out->ptr + at, out->len - at) == ARB_OK) {
            m->slot[i].at = mark;
            m->slot[i].n = out->len - at;
        }
    }
    return st;
}

static enum arb_status write_expected(struct arb_buf *out, const struct arb_result *r,
                                      struct arb_record_memo *m)
{
    size_t i;

    if (m && r->expected) {
        memo_add(m, r->expected, SIZE_MAX, 0); /* the caller vouches for every expected value */
        i = memo_find(m, r->expected, SIZE_MAX);
        if (i != SIZE_MAX)
            return memo_write(m, i, out, r, 0);
    }
    return write_json(out, r->expected);
}

static enum arb_status write_observed(struct arb_buf *out, const struct arb_result *r,
                                      struct arb_record_memo *m)
{
    size_t i;

    if (!r->observed)
        return arb_buf_add(out, "null", 4);
    if (m) {
        i = memo_find(m, r->observed, r->observed_len);
        if (i != SIZE_MAX)
            return memo_write(m, i, out, r, 1);
    }
    return write_string(out, r->observed, r->observed_len);
}

/* Append the literal s (a string constant). */
#define LIT(s) s, sizeof(s) - 1

/* ,"score":S,"threshold":T,"fail_below":F,"verdict":"V" through one stack buffer. */
static enum arb_status write_outcome(const struct arb_result *r, struct arb_buf *out)
{
    char t[3 * ARB_JSON_NUMBER_MAX + 64];
    const char *v = arb_verdict_name(r->verdict);
    size_t n = 0, vlen = strlen(v);
    double num[3] = {r->score, r->threshold, r->fail_below};
    static const char *const key[3] = {"],\"score\":", ",\"threshold\":", ",\"fail_below\":"};
    static const size_t klen[3] = {10, 13, 14};
    int i;

    for (i = 0; i < 3; i++) {
        memcpy(t + n, key[i], klen[i]);
        n += klen[i];
        if ((i == 2 && !r->has_fail_below) || !isfinite(num[i])) {
            memcpy(t + n, "null", 4);
            n += 4;
        } else {
            n += arb_json_number_format(num[i], t + n);
        }
    }
    if (vlen > 16)
        return ARB_EINTERNAL; /* cannot happen: verdict names are short */
    memcpy(t + n, ",\"verdict\":\"", 12);
    n += 12;
    memcpy(t + n, v, vlen);
    n += vlen;
    t[n++] = '"';
    return arb_buf_add(out, t, n);
}

static enum arb_status write_record(const struct arb_result *r, struct arb_buf *out,
                                    struct arb_record_memo *m)
{
    char exp_num[ARB_JSON_NUMBER_MAX], steps[320];
    int have_num = 0;
    enum arb_status st;
    size_t i, at, n;

    st = arb_buf_add(out, LIT("{\"operator\":"));
    if (!st)
        st = write_string(out, r->op ? r->op : "", r->op ? strlen(r->op) : 0);
    if (!st)
        st = arb_buf_add(out, LIT(",\"expected\":"));
    at = out->len;
    if (!st)
        st = write_expected(out, r, m);
    /* kept (on the stack: out may move) for a compared expected that is the same number */
    if (!st && cJSON_IsNumber(r->expected) && out->len - at < sizeof(exp_num)) {
        memcpy(exp_num, out->ptr + at, out->len - at);
        exp_num[out->len - at] = '\0';
        have_num = 1;
    }
    if (!st)
        st = arb_buf_add(out, LIT(",\"observed\":"));
    if (!st)
        st = write_observed(out, r, m);
    /* ,"normalization":[...] in one append */
    memcpy(steps, ",\"normalization\":", 17);
    n = 17 + steps_text(r, 0, steps + 17, sizeof(steps) - 17);
    if (!st)
        st = arb_buf_add(out, steps, n);
    if (!st)
        st = write_compared(r, out, have_num ? exp_num : NULL);
    if (!st)
        st = arb_buf_add(out, LIT(",\"notes\":["));
    for (i = 0; !st && i < r->n_notes; i++) {
        if (i)
            st = arb_buf_addc(out, ',');
        if (!st)
            st = write_string(out, r->notes[i], strlen(r->notes[i]));
    }
    if (!st)
        st = write_outcome(r, out);
    if (!st && r->negated)
        st = arb_buf_add(out, LIT(",\"not\":true"));
    if (!st && r->details) {
        st = arb_buf_add(out, LIT(",\"details\":"));
        if (!st)
            st = write_json(out, r->details);
    }
    if (!st && r->n_children) {
        st = arb_buf_add(out, LIT(",\"children\":["));
        for (i = 0; !st && i < r->n_children; i++) {
            if (i)
                st = arb_buf_addc(out, ',');
            if (!st) /* a child's values are its own, not the memo's */
                st = write_record(&r->children[i], out, NULL);
        }
        if (!st)
            st = arb_buf_addc(out, ']');
    }
    return st ? st : arb_buf_addc(out, '}');
}

#undef LIT

enum arb_status arb_result_write_json(const struct arb_result *r, struct arb_buf *out)
{
    return write_record(r, out, NULL);
}

enum arb_status arb_result_write_json_memo(const struct arb_result *r, struct arb_buf *out,
                                           struct arb_record_memo *m)
{
    return write_record(r, out, m);
}

enum arb_status arb_result_write_string(struct arb_buf *out, const char *s, size_t len)
{
    return write_string(out, s, len);
}

/* ---- the record as a cJSON tree ------------------------------------------------------ */

/* A string node for s[0..len), with U+FFFD for each invalid byte. */
static cJSON *string_node(const char *s, size_t len)
{
    struct arb_buf b;
    cJSON *node;
    size_t i = 0;

    if (arb_utf8_valid(s, len, NULL) && memchr(s, '\0', len) == NULL) {
        char *copy = malloc(len + 1);

        if (!copy)
            return NULL;
        memcpy(copy, s, len);
        copy[len] = '\0';
        node = cJSON_CreateString(copy);
        free(copy);
        return node;
    }
    arb_buf_init(&b, 0);
    while (i < len) {
        char enc[4];
        uint32_t cp = arb_utf8_next(s, len, &i);

        if (cp == 0)
            cp = 0xFFFD; /* a cJSON string ends at NUL */
        if (arb_buf_add(&b, enc, arb_utf8_encode(cp, enc))) {
            arb_buf_release(&b);
            return NULL;
        }
    }
    node = cJSON_CreateString(b.ptr ? b.ptr : "");
    arb_buf_release(&b);
    return node;
}

static cJSON *number_node(double d)
{
    return isfinite(d) ? cJSON_CreateNumber(d) : cJSON_CreateNull();
}

/* Add item to obj under key; NULL item (no memory) makes the whole call fail. */
static int add(cJSON *obj, const char *key, cJSON *item)
{
    if (!item)
        return 0;
    cJSON_AddItemToObject(obj, key, item);
    return 1;
}

static cJSON *string_list(const char *const *v, size_t n)
{
    cJSON *arr = cJSON_CreateArray();
    size_t i;

    for (i = 0; arr && i < n; i++) {
        cJSON *s = string_node(v[i], strlen(v[i]));

        if (!s) {
            cJSON_Delete(arr);
            return NULL;
        }
        cJSON_AddItemToArray(arr, s);
    }
    return arr;
}

static cJSON *steps_node(const struct arb_result *r, unsigned side)
{
    const char *v[sizeof(r->norm) / sizeof(r->norm[0])];
    size_t i, n = 0;

    for (i = 0; i < r->n_norm; i++)
        if (r->norm_side[i] & side)
            v[n++] = r->norm[i];
    return string_list(v, n);
}

static cJSON *surface_node(const struct arb_result *r, int i)
{
    cJSON *v = NULL;

    switch (r->compared_kind) {
    case ARB_COMPARED_NUMBER:
        return number_node(r->compared_num[i]);
    case ARB_COMPARED_TEXT:
        return string_node(r->compared_text[i], r->compared_len[i]);
    case ARB_COMPARED_JSON:
        if (arb_json_parse(r->compared_text[i], r->compared_len[i], 0, &v, NULL) != ARB_OK)
            return NULL;
        return v;
    case ARB_COMPARED_NONE:
        break;
    }
    return cJSON_CreateNull();
}

/* The compared member as a tree; NULL when memory runs out. */
static cJSON *compared_node(const struct arb_result *r)
{
    cJSON *o = cJSON_CreateObject();

    if (!o)
        return NULL;
    if (add(o, "expected", surface_node(r, 0)) && add(o, "observed", surface_node(r, 1)) &&
        add(o, "expected_steps", steps_node(r, ARB_SIDE_EXPECTED)) &&
        add(o, "observed_steps", steps_node(r, ARB_SIDE_OBSERVED)))
        return o;
    cJSON_Delete(o);
    return NULL;
}

cJSON *arb_result_to_cjson(const struct arb_result *r)
{
    cJSON *o = cJSON_CreateObject();
    int ok;
    size_t i;

    if (!o)
        return NULL;
    ok =
        add(o, "operator", string_node(r->op ? r->op : "", r->op ? strlen(r->op) : 0)) &&
        add(o, "expected", r->expected ? cJSON_Duplicate(r->expected, 1) : cJSON_CreateNull()) &&
        add(o, "observed",
            r->observed ? string_node(r->observed, r->observed_len) : cJSON_CreateNull()) &&
        add(o, "normalization", string_list(r->norm, r->n_norm)) &&
        (r->compared_kind == ARB_COMPARED_NONE || add(o, "compared", compared_node(r))) &&
        add(o, "notes", string_list((const char *const *)r->notes, r->n_notes)) &&
        add(o, "score", number_node(r->score)) && add(o, "threshold", number_node(r->threshold)) &&
        add(o, "fail_below", r->has_fail_below ? number_node(r->fail_below) : cJSON_CreateNull()) &&
        add(o, "verdict", cJSON_CreateString(arb_verdict_name(r->verdict)));
    if (ok && r->negated)
        ok = add(o, "not", cJSON_CreateTrue());
    if (ok && r->details)
        ok = add(o, "details", cJSON_Duplicate(r->details, 1));
    if (ok && r->n_children) {
        cJSON *kids = cJSON_CreateArray();

        ok = add(o, "children", kids);
        for (i = 0; ok && i < r->n_children; i++) {
            cJSON *k = arb_result_to_cjson(&r->children[i]);

            ok = k != NULL;
            if (ok)
                cJSON_AddItemToArray(kids, k);
        }
    }
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}
