/*
 * ops_text.c - the string operators: exact, normalized_exact, contains,
 * icontains, starts_with, ends_with, membership, levenshtein and name.
 *
 * Semantics (and the peer each follows):
 *  - exact: byte equality, case-sensitive (evalwire exact_match).  An expected
 *    value that is not a string is compared as its RFC 8785 text, so 42
 *    matches "42" (the step expected_as_json_text, in every string operator).
 *  - normalized_exact: equality after the declared steps, applied in the order
 *    given: lowercase (Unicode simple lowercase), strip (Unicode white space at
 *    both ends), collapse_whitespace (runs of white space become one space),
 *    strip_punctuation (Unicode P* removed).  Default: lowercase, strip,
 *    collapse_whitespace (the Comparator pattern's normalize_text).
 *  - contains / starts_with / ends_with: byte substring tests; icontains
 *    lowercases both sides first.  An empty expected string is contained in
 *    everything (Python's "" in s).
 *  - membership: the observed text equals one item of the expected list
 *    (evalwire is_in); a scalar expected is a one-item list.
 *  - levenshtein: 1 - d / max(len) over code points, 1.0 for two empty
 *    strings (autoevals Levenshtein); with max_distance, 1 when d <= it else 0.
 *  - name: Jaro-Winkler similarity of the two names after lowercasing,
 *    deleting '.' and apostrophes, turning other punctuation into spaces,
 *    dropping trailing legal suffixes (Inc, Ltd, GmbH, ...) and sorting the
 *    tokens, so "Smith, John" matches "John Smith" and "ACME Corp." matches
 *    "Acme".  Threshold 0.9 by default.
 *
 * normalized_exact (with at least one step), icontains and name record the
 * texts they compared, after their steps, as the record's compared surfaces.
 */
#define _GNU_SOURCE /* memmem */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "distance.h"
#include "arbiter/unicode.h"
#include "ops.h"

void op_free(void *priv)
{
    free(priv);
}

/* The expected text; a non-string expected is read as its RFC 8785 text, a named step. */
static enum arb_status get_expected(struct arb_check *c, const struct op_input *in,
                                    struct arb_result *res, const char **s, size_t *n)
{
    if (!cJSON_IsString(in->expected))
        result_norm_side(res, "expected_as_json_text", ARB_SIDE_EXPECTED);
    else if (in->expected == c->expected) {
        /* the check's own string holds no U+0000 (a loader refuses "\u0000"): no scan */
        *s = c->expected->valuestring;
        *n = strlen(*s);
        return ARB_OK;
    }
    return expected_text(in->expected, &c->scratch[2], s, n);
}

/*
 * exact and contains read expected as evalwire does (expected_one; py: a Python list literal
 * too): the item compared, when it is not the recorded expected, is the compared surface.
 * *e is NULL for an empty list (the note says so; the score stays 0).
 */
static enum arb_status one_expected(struct arb_check *c, const struct op_input *in,
                                    struct arb_result *res, int py, cJSON **owned, const char **e,
                                    size_t *n)
{
    const cJSON *x;
    enum arb_status st = expected_one(in->expected, py, res, owned, &x);

    *e = NULL;
    if (st || !x)
        return st;
    if (!cJSON_IsString(x))
        result_norm_side(res, "expected_as_json_text", ARB_SIDE_EXPECTED);
    st = expected_text(x, &c->scratch[2], e, n);
    if (!st && x != in->expected)
        st = result_compared_texts(res, ARB_COMPARED_TEXT, *e, *n, in->text, in->len);
    return st;
}

OP_RUN(op_exact_run)
{
    const char *e;
    size_t n = 0;
    cJSON *owned = NULL;
    enum arb_status st = ARB_OK;

    /*
     * the common case without a call: the check's own string (which holds no U+0000: a loader
     * refuses "\u0000") that cannot be a list literal
     */
    if (expected_plain_string(in->expected, 1) && in->expected == c->expected) {
        e = in->expected->valuestring;
        n = strlen(e);
    } else if (cJSON_IsString(in->expected) && strlen(in->expected->valuestring) == in->len &&
               memcmp(in->expected->valuestring, in->text, in->len) == 0) {
        /* the text as written is the output: no reading of it as a list can be meant (a model
         * answering the JSON array ["a", "b"] passes against that array's text) */
        e = in->expected->valuestring;
        n = in->len;
    } else {
        st = one_expected(c, in, res, 1, &owned, &e, &n);
    }
    if (!st && e)
        res->score = (n == in->len && memcmp(e, in->text, n) == 0) ? 1.0 : 0.0;
    cJSON_Delete(owned);
    return st;
}

/* ---- normalization steps ------------------------------------------------------------- */

enum step { STEP_LOWER, STEP_STRIP, STEP_COLLAPSE, STEP_PUNCT };

static const char *const step_names[] = {"lowercase", "strip", "collapse_whitespace",
                                         "strip_punctuation"};

struct norm_priv {
    enum step steps[8];
    size_t n;
};

static int is_space_at(const char *s, size_t len, size_t i, size_t *next)
{
    size_t j = i;
    uint32_t cp;

    if ((unsigned char)s[i] < 0x80) {
        *next = i + 1;
        return s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r') || (s[i] >= 0x1c && s[i] <= 0x1f);
    }
    cp = arb_utf8_next(s, len, &j);
    *next = j;
    return arb_uc_is_space(cp);
}

static enum arb_status apply_step(enum step step, const char *s, size_t len, struct arb_buf *out)
{
    size_t i = 0, next, start, end;
    int in_space = 0;
    enum arb_status st = ARB_OK;

    arb_buf_reset(out);
    switch (step) {
    case STEP_LOWER:
        return arb_utf8_lower(s, len, out);
    case STEP_STRIP:
        start = 0;
        while (start < len && is_space_at(s, len, start, &next))
            start = next;
        end = start;
        for (i = start; i < len; i = next)
            if (!is_space_at(s, len, i, &next))
                end = next;
        return arb_buf_add(out, s + start, end - start);
    case STEP_COLLAPSE:
        for (i = 0; i < len && !st; i = next) {
            if (is_space_at(s, len, i, &next)) {
                if (!in_space)
                    st = arb_buf_addc(out, ' ');
                in_space = 1;
            } else {
                st = arb_buf_add(out, s + i, next - i);
                in_space = 0;
            }
        }
        return st ? st : arb_buf_add(out, "", 0);
    case STEP_PUNCT:
        for (i = 0; i < len && !st; i = next) {
            uint32_t cp;

            next = i;
            cp = arb_utf8_next(s, len, &next);
            if (!arb_uc_is_punct(cp))
                st = arb_buf_add(out, s + i, next - i);
        }
        return st ? st : arb_buf_add(out, "", 0);
    }
    return ARB_EINTERNAL;
}

/* Apply steps to s; the result is in one of a or b, returned through *out. */
static enum arb_status normalize(const struct norm_priv *np, const char *s, size_t len,
                                 struct arb_buf *a, struct arb_buf *b, const char **out,
                                 size_t *out_len)
{
    size_t i;
    struct arb_buf *dst = a, *src = NULL;
    enum arb_status st;

    *out = s;
    *out_len = len;
    for (i = 0; i < np->n; i++) {
        st = apply_step(np->steps[i], *out, *out_len, dst);
        if (st)
            return st;
        *out = dst->ptr ? dst->ptr : "";
        *out_len = dst->len;
        src = dst;
        dst = src == a ? b : a;
    }
    return ARB_OK;
}

OP_COMPILE(op_normalized_compile)
{
    const cJSON *steps = cJSON_GetObjectItemCaseSensitive(cfg, "steps");
    struct norm_priv *np = calloc(1, sizeof(*np));
    const cJSON *s;
    size_t k;

    if (!np)
        return ARB_ENOMEM;
    c->priv = np;
    if (!steps) {
        np->steps[0] = STEP_LOWER;
        np->steps[1] = STEP_STRIP;
        np->steps[2] = STEP_COLLAPSE;
        np->n = 3;
        return ARB_OK;
    }
    if (!cJSON_IsArray(steps))
        return arb_err_set(err, ARB_ESCHEMA, "%s/steps: expected an array of step names", path);
    cJSON_ArrayForEach(s, steps)
    {
        if (np->n == sizeof(np->steps) / sizeof(np->steps[0]))
            return arb_err_set(err, ARB_ESCHEMA, "%s/steps: at most 8 steps", path);
        for (k = 0; k < 4; k++)
            if (cJSON_IsString(s) && strcmp(s->valuestring, step_names[k]) == 0)
                break;
        if (k == 4)
            return arb_err_set(err, ARB_ESCHEMA,
                               "%s/steps/%zu: unknown step (valid: lowercase, strip, "
                               "collapse_whitespace, strip_punctuation)",
                               path, np->n);
        np->steps[np->n++] = (enum step)k;
    }
    return ARB_OK;
}

OP_RUN(op_normalized_run)
{
    const struct norm_priv *np = c->priv;
    const char *e, *ne, *no;
    size_t n, nen, non, i;
    struct arb_buf eb[2];
    enum arb_status st = get_expected(c, in, res, &e, &n);

    if (st)
        return st;
    arb_buf_init(&eb[0], 0);
    arb_buf_init(&eb[1], 0);
    st = normalize(np, e, n, &eb[0], &eb[1], &ne, &nen);
    if (!st)
        st = normalize(np, in->text, in->len, &c->scratch[0], &c->scratch[1], &no, &non);
    if (!st) {
        for (i = 0; i < np->n; i++)
            result_norm(res, step_names[np->steps[i]]);
        res->score = (nen == non && memcmp(ne, no, non) == 0) ? 1.0 : 0.0;
        if (np->n)
            st = result_compared_texts(res, ARB_COMPARED_TEXT, ne, nen, no, non);
    }
    arb_buf_release(&eb[0]);
    arb_buf_release(&eb[1]);
    return st;
}

/* ---- substring tests ----------------------------------------------------------------- */

static int contains(const char *hay, size_t hn, const char *needle, size_t nn)
{
    if (nn == 0)
        return 1;
    return memmem(hay, hn, needle, nn) != NULL;
}

OP_RUN(op_contains_run)
{
    const char *e;
    size_t n = 0;
    cJSON *owned = NULL;
    enum arb_status st = ARB_OK;

    if (expected_plain_string(in->expected, 0) && in->expected == c->expected) {
        e = in->expected->valuestring;
        n = strlen(e);
    } else {
        st = one_expected(c, in, res, 0, &owned, &e, &n);
    }
    if (!st && e)
        res->score = contains(in->text, in->len, e, n) ? 1.0 : 0.0;
    cJSON_Delete(owned);
    return st;
}

OP_RUN(op_icontains_run)
{
    const char *e;
    size_t n;
    struct arb_buf le, *lex = &le;
    enum arb_status st = get_expected(c, in, res, &e, &n);

    if (st)
        return st;
    arb_buf_init(&le, 0);
    arb_buf_reset(&c->scratch[0]);
    /* the check's own expected is lowercased once, on its first run */
    if (c->expected && in->expected == c->expected) {
        lex = &c->own[0];
        if (!c->own_ready) {
            arb_buf_reset(lex);
            st = arb_utf8_lower(e, n, lex);
            c->own_ready = !st;
        }
    } else {
        st = arb_utf8_lower(e, n, &le);
    }
    if (!st)
        st = arb_utf8_lower(in->text, in->len, &c->scratch[0]);
    if (!st) {
        const char *lo = c->scratch[0].ptr ? c->scratch[0].ptr : "";
        const char *lx = lex->ptr ? lex->ptr : "";

        result_norm(res, "lowercase");
        res->score = contains(lo, c->scratch[0].len, lx, lex->len) ? 1.0 : 0.0;
        st = result_compared_texts(res, ARB_COMPARED_TEXT, lx, lex->len, lo, c->scratch[0].len);
    }
    arb_buf_release(&le);
    return st;
}

OP_RUN(op_starts_with_run)
{
    const char *e;
    size_t n;
    enum arb_status st = get_expected(c, in, res, &e, &n);

    if (!st)
        res->score = (n <= in->len && memcmp(in->text, e, n) == 0) ? 1.0 : 0.0;
    return st;
}

OP_RUN(op_ends_with_run)
{
    const char *e;
    size_t n;
    enum arb_status st = get_expected(c, in, res, &e, &n);

    if (!st)
        res->score = (n <= in->len && memcmp(in->text + in->len - n, e, n) == 0) ? 1.0 : 0.0;
    return st;
}

OP_RUN(op_membership_run)
{
    cJSON *owned = NULL;
    const cJSON *list, *item;
    const char *e;
    size_t n;
    enum arb_status st = ARB_OK;

    if (cJSON_IsArray(in->expected))
        list = in->expected; /* the common case, without a call */
    else
        st = expected_list(in->expected, res, &owned, &list);
    res->score = 0.0;
    if (!st && !cJSON_IsArray(list)) {
        st = get_expected(c, in, res, &e, &n);
        if (!st && n == in->len && memcmp(e, in->text, n) == 0)
            res->score = 1.0;
        cJSON_Delete(owned);
        return st;
    }
    if (st)
        list = NULL;
    cJSON_ArrayForEach(item, list)
    {
        if (cJSON_IsString(item) && list == c->expected) {
            /* the check's own list holds no U+0000 (a loader refuses "\u0000"): no scan */
            e = item->valuestring;
            n = strlen(e);
        } else {
            if (!cJSON_IsString(item))
                result_norm_side(res, "expected_as_json_text", ARB_SIDE_EXPECTED);
            st = expected_text(item, &c->scratch[2], &e, &n);
            if (st)
                break;
        }
        if (n == in->len && memcmp(e, in->text, n) == 0) {
            res->score = 1.0;
            break;
        }
    }
    cJSON_Delete(owned);
    return st;
}

/* ---- distances ----------------------------------------------------------------------- */

struct lev_priv {
    long max_distance; /* -1 for none */
};

OP_COMPILE(op_levenshtein_compile)
{
    struct lev_priv *lp = calloc(1, sizeof(*lp));
    double d = -1;
    int present = 0;
    enum arb_status st;

    if (!lp)
        return ARB_ENOMEM;
    c->priv = lp;
    lp->max_distance = -1;
    st = param_number(cfg, "max_distance", path, &d, &present, err);
    if (st)
        return st;
    if (present) {
        /* range first: converting a double past LONG_MAX to long is undefined */
        if (d < 0 || d >= (double)LONG_MAX || d != (double)(long)d)
            return arb_err_set(err, ARB_ESCHEMA, "%s/max_distance: expected a whole number >= 0",
                               path);
        lp->max_distance = (long)d;
    }
    return ARB_OK;
}

static enum arb_status too_large(struct arb_result *res)
{
    res->score = 0.0;
    return result_note(res, "input_too_large: the distance would need more than "
                            "400 million cells; compare a smaller extract");
}

OP_RUN(op_levenshtein_run)
{
    const struct lev_priv *lp = c->priv;
    const char *e;
    size_t n, ne = 0, no = 0, d = 0, mx;
    uint32_t *ce = NULL, *co = NULL;
    enum arb_status st = get_expected(c, in, res, &e, &n);

    if (!st)
        st = arb_utf8_to_cps(e, n, &ce, &ne);
    if (!st)
        st = arb_utf8_to_cps(in->text, in->len, &co, &no);
    if (!st)
        st = arb_levenshtein(ce, ne, co, no, lp->max_distance, &d);
    free(ce);
    free(co);
    if (st == ARB_ETOOBIG)
        return too_large(res);
    if (st)
        return st;
    mx = ne > no ? ne : no;
    if (lp->max_distance >= 0)
        res->score = d <= (size_t)lp->max_distance ? 1.0 : 0.0;
    else
        res->score = mx == 0 ? 1.0 : 1.0 - (double)d / (double)mx;
    return ARB_OK;
}

/* Legal-form suffixes dropped from the end of company names. */
static const char *const legal_suffixes[] = {
    "inc", "incorporated", "corp", "corporation", "co",  "company", "llc", "ltd",  "limited",
    "plc", "llp",          "lp",   "gmbh",        "ag",  "sa",      "sas", "sarl", "srl",
    "spa", "bv",           "nv",   "oy",          "ab",  "kg",      "kk",  "pty",  "pvt",
    "pte", "se",           "lc",   "pllc",        "ulc", NULL};

static int is_legal_suffix(const char *tok, size_t n)
{
    const char *const *p;

    for (p = legal_suffixes; *p; p++)
        if (strlen(*p) == n && memcmp(*p, tok, n) == 0)
            return 1;
    return 0;
}

struct token {
    const char *s;
    size_t n;
};

static int token_cmp(const void *a, const void *b)
{
    const struct token *x = a, *y = b;
    size_t n = x->n < y->n ? x->n : y->n;
    int r = memcmp(x->s, y->s, n);

    if (r)
        return r;
    return (x->n > y->n) - (x->n < y->n);
}

/* Canonical form of a person or company name into out (see the file comment). */
static enum arb_status name_canon(const char *s, size_t len, struct arb_buf *tmp,
                                  struct arb_buf *out)
{
    struct token *toks = NULL;
    size_t ntok = 0, i = 0, next, k;
    enum arb_status st;

    arb_buf_reset(tmp);
    arb_buf_reset(out);
    st = arb_utf8_lower(s, len, out);
    if (st)
        return st;
    /* Punctuation: '.' and apostrophes vanish, the rest separates tokens. */
    for (i = 0; i < out->len && !st; i = next) {
        uint32_t cp;

        next = i;
        cp = arb_utf8_next(out->ptr, out->len, &next);
        if (cp == '.' || cp == '\'' || cp == 0x2019)
            continue;
        if (arb_uc_is_punct(cp) || arb_uc_is_space(cp))
            st = arb_buf_addc(tmp, ' ');
        else
            st = arb_buf_add(tmp, out->ptr + i, next - i);
    }
    if (!st)
        st = arb_buf_add(tmp, "", 0);
    if (st)
        return st;
    toks = malloc((tmp->len / 2 + 1) * sizeof(*toks));
    if (!toks)
        return ARB_ENOMEM;
    for (i = 0; i < tmp->len;) {
        while (i < tmp->len && tmp->ptr[i] == ' ')
            i++;
        k = i;
        while (k < tmp->len && tmp->ptr[k] != ' ')
            k++;
        if (k > i) {
            toks[ntok].s = tmp->ptr + i;
            toks[ntok].n = k - i;
            ntok++;
        }
        i = k;
    }
    while (ntok > 1 && is_legal_suffix(toks[ntok - 1].s, toks[ntok - 1].n))
        ntok--;
    qsort(toks, ntok, sizeof(*toks), token_cmp);
    arb_buf_reset(out);
    for (i = 0; i < ntok && !st; i++) {
        if (i)
            st = arb_buf_addc(out, ' ');
        if (!st)
            st = arb_buf_add(out, toks[i].s, toks[i].n);
    }
    if (!st)
        st = arb_buf_add(out, "", 0);
    free(toks);
    return st;
}

/*
 * The canonical text (into en) and code points (*ce, *ne) of the expected text e: the check's
 * own expected is made canonical once, on its first run, and kept in c->own (*ce then points
 * into it, *owned_ce = 0).
 */
static enum arb_status name_expected(struct arb_check *c, const struct op_input *in, const char *e,
                                     size_t n, struct arb_buf *en, const struct arb_buf **canon,
                                     const uint32_t **ce, size_t *ne, uint32_t **owned_ce)
{
    uint32_t *cps = NULL;
    size_t ncp = 0;
    enum arb_status st;

    *owned_ce = NULL;
    if (!c->expected || in->expected != c->expected) {
        st = name_canon(e, n, &c->scratch[0], en);
        if (!st)
            st = arb_utf8_to_cps(en->ptr, en->len, owned_ce, ne);
        *canon = en;
        *ce = *owned_ce;
        return st;
    }
    if (!c->own_ready) {
        st = name_canon(e, n, &c->scratch[0], &c->own[0]);
        if (!st)
            st = arb_utf8_to_cps(c->own[0].ptr, c->own[0].len, &cps, &ncp);
        arb_buf_reset(&c->own[1]);
        if (!st && ncp)
            st = arb_buf_add(&c->own[1], cps, ncp * sizeof(*cps));
        free(cps);
        if (st)
            return st;
        c->own_ready = 1;
    }
    static const uint32_t none[1] = {0}; /* as arb_utf8_to_cps gives an empty text: no NULL */

    *canon = &c->own[0];
    *ne = c->own[1].len / sizeof(uint32_t);
    *ce = *ne ? (const uint32_t *)(const void *)c->own[1].ptr : none;
    return ARB_OK;
}

OP_RUN(op_name_run)
{
    const char *e;
    size_t n, ne = 0, no = 0;
    const uint32_t *ce = NULL;
    uint32_t *owned_ce = NULL, *co = NULL;
    const struct arb_buf *canon = NULL;
    struct arb_buf en;
    double sim = 0.0;
    enum arb_status st = get_expected(c, in, res, &e, &n);

    if (st)
        return st;
    arb_buf_init(&en, 0);
    st = name_expected(c, in, e, n, &en, &canon, &ce, &ne, &owned_ce);
    if (!st)
        st = name_canon(in->text, in->len, &c->scratch[0], &c->scratch[1]);
    if (!st)
        st = arb_utf8_to_cps(c->scratch[1].ptr, c->scratch[1].len, &co, &no);
    if (!st)
        st = arb_jaro_winkler(ce, ne, co, no, &sim);
    if (!st) {
        result_norm(res, "lowercase");
        result_norm(res, "strip_punctuation");
        result_norm(res, "drop_legal_suffixes");
        result_norm(res, "sort_tokens");
        res->score = sim;
        st = result_compared_texts(res, ARB_COMPARED_TEXT, canon->ptr ? canon->ptr : "", canon->len,
                                   c->scratch[1].ptr ? c->scratch[1].ptr : "", c->scratch[1].len);
    }
    free(owned_ce);
    free(co);
    arb_buf_release(&en);
    return st;
}
