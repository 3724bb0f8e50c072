/*
 * feedback.c - the sentences of comparison.json's output_quality.strengths and weaknesses
 * (seeds/blind-comparator-agent.md: "positive aspects", "issues or shortcomings").
 *
 * When the judge was asked for them (its config's "feedback": true), they are the sentences
 * it wrote about that output, already mapped to the pair's A and B (src/judge/combine.c).
 * Otherwise they are built here from what decided the items: a criterion scoring 4 or more
 * is a strength and one under 3 a weakness, told with its score, its description (else the
 * anchor of the nearest score) and its check; the expectations are one sentence each way,
 * naming those met and those failed with their checks.  Never a bare criterion id.  Only
 * decide.c calls this; it leaves the scores and the verdict to decide.c.  A run describes its
 * suite's checks, and writes what every pair's file repeats, once (struct check_words).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/buf.h"
#include "arbiter/judge.h"
#include "run_int.h"

#define VALUE_MAX 60 /* bytes of an expected value quoted in a sentence */

/* text, at most max bytes of it (never a split UTF-8 sequence), "..." when cut. */
static enum arb_status add_cut(struct arb_buf *b, const char *text, size_t max)
{
    size_t n = strlen(text);

    if (n <= max)
        return arb_buf_add(b, text, n);
    n = max;
    while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80)
        n--;
    return arb_buf_add(b, text, n) ? ARB_ENOMEM : arb_buf_adds(b, "...");
}

/*
 * What a check is, from its config (RFC 8785 text): "contains: expected \"http\"", "not
 * regex: expected \"^a\"", "json_schema: expected_file 'schema.json'", or the operator alone.
 */
static enum arb_status describe_check(const char *check_json, struct arb_buf *b)
{
    cJSON *c = check_json ? cJSON_Parse(check_json) : NULL;
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(c, "op");
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(c, "expected");
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(c, "expected_file");
    enum arb_status st;
    char *text = NULL;

    if (!cJSON_IsString(op)) {
        cJSON_Delete(c);
        return check_json ? arb_buf_adds(b, "a check") : ARB_OK;
    }
    st = arb_buf_printf(b, "%s%s",
                        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "not")) ? "not " : "",
                        op->valuestring);
    if (!st && cJSON_IsString(f)) {
        st = arb_buf_adds(b, ": expected_file '");
        st = st ? st : add_cut(b, f->valuestring, VALUE_MAX);
        st = st ? st : arb_buf_adds(b, "'");
    } else if (!st && e) {
        text = cJSON_PrintUnformatted(e); /* a string keeps its quotes */
        st = text ? arb_buf_adds(b, ": expected ") : ARB_ENOMEM;
        st = st ? st : add_cut(b, text, VALUE_MAX);
    }
    cJSON_free(text);
    cJSON_Delete(c);
    return st;
}

/* 4.5, 5: a mean of judge scores keeps its fraction, a whole score none. */
static enum arb_status add_score(struct arb_buf *b, double v)
{
    double r = round(v * 100.0) / 100.0;
    char num[8];
    int k;

    if (!(r >= 1.0 && r <= 9.0) || r != (k = (int)r))
        return arb_buf_printf(b, "%g", r);
    num[0] = (char)('0' + k); /* %g of a whole score from 1 to 9 */
    return arb_buf_add(b, num, 1);
}

/* n as %zu writes it. */
static enum arb_status add_count(struct arb_buf *b, size_t n)
{
    char num[24];
    size_t k = sizeof(num);

    do {
        num[--k] = (char)('0' + n % 10);
        n /= 10;
    } while (n);
    return arb_buf_add(b, num + k, sizeof(num) - k);
}

static enum arb_status criterion_sentence(const struct items *it, size_t ci, double v,
                                          struct arb_buf *b);
static enum arb_status expectation_words(const struct items *it, size_t i, int with_check,
                                         struct arb_buf *b);

int check_words_slot(double v)
{
    return v == 1.0 ? 0 : v == 2.0 ? 1 : v == 4.0 ? 2 : v == 5.0 ? 3 : -1;
}

/* text[0..n) as jtext writes it (a JSON string; with key, followed by a colon), copied. */
static enum arb_status json_copy(const char *text, size_t n, int key, struct arb_buf *b, char **out)
{
    struct jtext j;

    arb_buf_reset(b);
    jtext_init(&j, b);
    jtext_string(&j, text, n);
    if (key)
        jtext_append(&j, ":", 1);
    if (j.st)
        return j.st;
    *out = arb_memdup0(b->ptr, b->len);
    return *out ? ARB_OK : ARB_ENOMEM;
}

/* What comparison.json repeats for every pair (struct check_words), written once. */
static enum arb_status words_written(struct check_words *w, const struct arb_suite *s,
                                     struct arb_buf *b)
{
    static const double whole[4] = {1.0, 2.0, 4.0, 5.0};
    struct arb_case none;
    struct items it;
    struct arb_buf sentence;
    size_t i, k;
    enum arb_status st = ARB_OK;

    memset(&none, 0, sizeof(none));
    it.suite = s;
    it.kase = &none;
    it.n_exp = s->n_expectations;
    it.words = w;
    arb_buf_init(&sentence, 0);
    for (i = 0; !st && i < s->n_criteria; i++) {
        st = json_copy(s->criteria[i].name, strlen(s->criteria[i].name), 1, b, &w->crit_key[i]);
        for (k = 0; !st && k < 4; k++) {
            arb_buf_reset(&sentence);
            st = criterion_sentence(&it, i, whole[k], &sentence);
            if (!st)
                st = json_copy(sentence.ptr, sentence.len, 0, b, &w->crit_said[4 * i + k]);
        }
    }
    for (i = 0; !st && i < 2 * s->n_expectations; i++) {
        /* 'text', and 'text' (check) for a failed one, escaped, without the quotes */
        arb_buf_reset(&sentence);
        st = expectation_words(&it, i / 2, i % 2, &sentence);
        if (!st)
            st = json_copy(sentence.ptr, sentence.len, 0, b, &w->exp_said[i]);
        if (!st) {
            size_t n = strlen(w->exp_said[i]);

            memmove(w->exp_said[i], w->exp_said[i] + 1, n - 2);
            w->exp_said[i][n - 2] = '\0';
        }
    }
    for (i = 0; !st && i < s->n_expectations; i++) {
        const struct arb_expectation *ex = &s->expectations[i];
        struct jtext j;

        if (!ex->id || !ex->text)
            continue; /* written when needed, failing as jtext_str fails */
        arb_buf_reset(b);
        jtext_init(&j, b);
        jtext_open(&j, NULL, '{');
        jtext_str(&j, "id", ex->id);
        jtext_str(&j, "text", ex->text);
        jtext_key_json(&j, "\"passed\":");
        st = j.st;
        if (!st)
            st = (w->exp_head[i] = arb_memdup0(b->ptr, b->len)) ? ARB_OK : ARB_ENOMEM;
    }
    arb_buf_release(&sentence);
    return st;
}

enum arb_status check_words_init(struct check_words *w, const struct arb_suite *s)
{
    struct arb_buf b;
    size_t i;
    enum arb_status st = ARB_OK;

    memset(w, 0, sizeof(*w));
    w->crit = calloc(s->n_criteria ? s->n_criteria : 1, sizeof(*w->crit));
    w->exp = calloc(s->n_expectations ? s->n_expectations : 1, sizeof(*w->exp));
    w->anchor = calloc(3 * (s->n_criteria ? s->n_criteria : 1), sizeof(*w->anchor));
    w->crit_key = calloc(s->n_criteria ? s->n_criteria : 1, sizeof(*w->crit_key));
    w->crit_said = calloc(4 * (s->n_criteria ? s->n_criteria : 1), sizeof(*w->crit_said));
    w->exp_head = calloc(s->n_expectations ? s->n_expectations : 1, sizeof(*w->exp_head));
    w->exp_said = calloc(2 * (s->n_expectations ? s->n_expectations : 1), sizeof(*w->exp_said));
    if (!w->crit || !w->exp || !w->anchor || !w->crit_key || !w->crit_said || !w->exp_head ||
        !w->exp_said)
        return ARB_ENOMEM;
    for (i = 0; i < s->n_criteria; i++) {
        const struct arb_criterion *cr = &s->criteria[i];
        const char *const given[3] = {cr->anchor[0], cr->anchor[1], cr->anchor[2]};

        arb_judge_anchors(cr->name, given, w->anchor + 3 * i);
    }
    w->n_crit = s->n_criteria;
    w->n_exp = s->n_expectations;
    arb_buf_init(&b, 0);
    for (i = 0; !st && i < s->n_criteria + s->n_expectations; i++) {
        const char *cj = i < s->n_criteria ? s->criteria[i].check_json
                                           : s->expectations[i - s->n_criteria].check_json;
        char **slot = i < s->n_criteria ? &w->crit[i] : &w->exp[i - s->n_criteria];

        if (!cj)
            continue;
        arb_buf_reset(&b);
        st = describe_check(cj, &b);
        if (!st)
            st = (*slot = arb_memdup0(b.ptr ? b.ptr : "", b.len)) ? ARB_OK : ARB_ENOMEM;
    }
    if (!st)
        st = words_written(w, s, &b);
    arb_buf_release(&b);
    return st;
}

void check_words_release(struct check_words *w)
{
    size_t i;

    for (i = 0; w->crit && i < w->n_crit; i++)
        free(w->crit[i]);
    for (i = 0; w->exp && i < w->n_exp; i++)
        free(w->exp[i]);
    for (i = 0; w->crit_key && i < w->n_crit; i++)
        free(w->crit_key[i]);
    for (i = 0; w->crit_said && i < 4 * w->n_crit; i++)
        free(w->crit_said[i]);
    for (i = 0; w->exp_head && i < w->n_exp; i++)
        free(w->exp_head[i]);
    for (i = 0; w->exp_said && i < 2 * w->n_exp; i++)
        free(w->exp_said[i]);
    free(w->exp_said);
    free(w->crit_key);
    free(w->crit_said);
    free(w->exp_head);
    free(w->crit);
    free(w->exp);
    free(w->anchor);
    memset(w, 0, sizeof(*w));
}

/* describe_check of a check of the suite (described once when words are given). */
static enum arb_status describe(const struct check_words *w, char *const *cached, size_t i,
                                size_t n, const char *check_json, struct arb_buf *b)
{
    if (w && i < n && cached[i])
        return arb_buf_adds(b, cached[i]);
    return describe_check(check_json, b);
}

/* "Scores 5 of 5 on correctness: DESCRIPTION." or "... on correctness (5 = fully correct)." */
static enum arb_status criterion_sentence(const struct items *it, size_t ci, double v,
                                          struct arb_buf *b)
{
    const struct arb_criterion *cr = &it->suite->criteria[ci];
    const struct check_words *w = it->words;
    const char *anchor[3];
    const char *const given[3] = {cr->anchor[0], cr->anchor[1], cr->anchor[2]};
    int k = v >= 4.0 ? 2 : v > 2.0 ? 1 : 0;
    enum arb_status st = arb_buf_adds(b, "Scores ");
    size_t n;

    st = st ? st : add_score(b, v);
    st = st ? st : arb_buf_adds(b, " of 5 on ");
    st = st ? st : arb_buf_adds(b, cr->name);
    if (!st && cr->check_json) {
        st = arb_buf_adds(b, " (check: ");
        st = st ? st : describe(w, w ? w->crit : NULL, ci, w ? w->n_crit : 0, cr->check_json, b);
        st = st ? st : arb_buf_adds(b, ")");
    }
    if (st)
        return st;
    if (cr->description && cr->description[0]) {
        st = arb_buf_adds(b, ": ");
        st = st ? st : arb_buf_adds(b, cr->description);
        n = b->len;
        /* The description's own full stop or question mark ends the sentence. */
        if (!st && !(n && strchr(".?!", b->ptr[n - 1])))
            st = arb_buf_addc(b, '.');
        return st;
    }
    if (w && ci < w->n_crit)
        memcpy(anchor, w->anchor + 3 * ci, sizeof(anchor));
    else
        arb_judge_anchors(cr->name, given, anchor);
    st = arb_buf_adds(b, k == 2 ? " (5 = " : k == 1 ? " (3 = " : " (1 = ");
    st = st ? st : arb_buf_adds(b, anchor[k]);
    return st ? st : arb_buf_add(b, ").", 2);
}

/* "'text'" and, for a failed one, its check: "'cites a source' (contains: expected \"http\")". */
static enum arb_status expectation_words(const struct items *it, size_t i, int with_check,
                                         struct arb_buf *b)
{
    const struct arb_expectation *ex = item_expectation(it, i);
    const struct check_words *w = it->words;
    enum arb_status st = arb_buf_adds(b, "'");

    st = st ? st : add_cut(b, ex->text, 200);
    st = st ? st : arb_buf_adds(b, "'");
    if (!st && with_check && ex->check_json) {
        st = arb_buf_adds(b, " (");
        st = st ? st : describe(w, w ? w->exp : NULL, i, w ? w->n_exp : 0, ex->check_json, b);
        st = st ? st : arb_buf_adds(b, ")");
    }
    return st;
}

/* 1 when every item of the sentence (passed, or failed) has its words written once. */
static int said_all(const struct items *it, const struct side *x, int pass)
{
    const struct check_words *w = it->words;
    size_t i;

    if (!w)
        return 0;
    for (i = 0; i < it->n_exp; i++)
        if (x->exp[i] == (pass ? ARB_PASS : ARB_FAIL) &&
            (i >= w->n_exp || !w->exp_said[2 * i + !pass]))
            return 0;
    return 1;
}

/*
 * "Meets 3 of 4 expectations: 'a', 'b', 'c'." into good and "Passes 3 of 4 expectations;
 * fails 'd' (contains: expected \"http\")." into bad, counting only the decided ones.
 */
static int expectation_sentences(const struct items *it, const struct side *x,
                                 const struct sentence_sink *sink, struct arb_buf *b)
{
    size_t i, passed = 0, total = 0, k;
    enum arb_status st = ARB_OK;
    int pass, json;

    for (i = 0; i < it->n_exp; i++) {
        total += x->exp[i] == ARB_PASS || x->exp[i] == ARB_FAIL;
        passed += x->exp[i] == ARB_PASS;
    }
    for (pass = 1; pass >= 0; pass--) {
        if (pass ? !passed : passed == total)
            continue;
        /* as a JSON string at once when every item's words were written once (the words and
         * the sentence's own text need no escaping: escaping is byte by byte) */
        json = sink->put_json && said_all(it, x, pass);
        arb_buf_reset(b);
        st = json ? arb_buf_addc(b, '"') : ARB_OK;
        st = st ? st : arb_buf_adds(b, pass ? "Meets " : "Passes ");
        st = st ? st : add_count(b, passed);
        st = st ? st : arb_buf_adds(b, " of ");
        st = st ? st : add_count(b, total);
        st = st ? st : arb_buf_adds(b, total == 1 ? " expectation" : " expectations");
        st = st ? st : arb_buf_adds(b, pass ? ": " : "; fails ");
        for (i = 0, k = 0; !st && i < it->n_exp; i++) {
            if (x->exp[i] != (pass ? ARB_PASS : ARB_FAIL))
                continue;
            st = k++ ? arb_buf_adds(b, ", ") : ARB_OK;
            if (!st && json)
                st = arb_buf_adds(b, it->words->exp_said[2 * i + !pass]);
            else if (!st)
                st = expectation_words(it, i, !pass, b);
        }
        st = st ? st : arb_buf_adds(b, json ? ".\"" : ".");
        if (st || !(json ? sink->put_json(sink->ctx, pass, b->ptr)
                         : sink->put(sink->ctx, pass, b->ptr, b->len)))
            return 0;
    }
    return 1;
}

/* The judge's sentences: fb[key] (an array of strings), told to the sink. */
static int copy_sentences(const cJSON *fb, const char *key, int good,
                          const struct sentence_sink *sink)
{
    const cJSON *s;

    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(fb, key))
    {
        if (cJSON_IsString(s) &&
            !sink->put(sink->ctx, good, s->valuestring, strlen(s->valuestring)))
            return 0;
    }
    return 1;
}

int quality_each(const struct items *it, const struct side *x, const cJSON *fb,
                 const struct sentence_sink *sink, struct arb_buf *b)
{
    size_t i;
    int ok = 1;

    if (cJSON_IsObject(fb))
        return copy_sentences(fb, "strengths", 1, sink) &&
               copy_sentences(fb, "weaknesses", 0, sink);
    for (i = 0; ok && i < it->suite->n_criteria; i++) {
        double v = x->crit[i];

        const struct check_words *w = it->words;
        int slot = check_words_slot(v);

        if (isnan(v) || (v >= 3.0 && v < 4.0))
            continue;
        if (sink->put_json && w && i < w->n_crit && slot >= 0 && w->crit_said[4 * i + slot]) {
            ok = sink->put_json(sink->ctx, v >= 4.0, w->crit_said[4 * i + slot]);
            continue;
        }
        arb_buf_reset(b);
        ok = !criterion_sentence(it, i, v, b) && sink->put(sink->ctx, v >= 4.0, b->ptr, b->len);
    }
    return ok && expectation_sentences(it, x, sink, b);
}

struct to_arrays {
    cJSON *good, *bad;
};

static int push(void *ctx, int good, const char *s, size_t n)
{
    struct to_arrays *t = ctx;
    char *copy = arb_memdup0(s ? s : "", s ? n : 0);
    cJSON *item = copy ? cJSON_CreateString(copy) : NULL;

    free(copy);
    if (item && cJSON_AddItemToArray(good ? t->good : t->bad, item))
        return 1;
    cJSON_Delete(item);
    return 0;
}

int quality_sentences(const struct items *it, const struct side *x, const cJSON *fb, cJSON *good,
                      cJSON *bad)
{
    struct to_arrays t = {good, bad};
    struct sentence_sink sink = {push, NULL, &t};
    struct arb_buf b;
    int ok;

    arb_buf_init(&b, 0);
    ok = quality_each(it, x, fb, &sink, &b);
    arb_buf_release(&b);
    return ok;
}
