/*
 * decide.c - the verdict policy (DESIGN.md "Verdict policy",
 * seeds/blind-comparator-agent.md) and the comparison.json it writes.
 *
 * A criterion with a check scores 5 on pass and 1 on fail (1 + 4 * score
 * when graded); content_score and structure_score are the means of their
 * criteria rounded to one decimal, and overall_score is their sum, as the
 * seed's worked example adds them (2.7 + 2.7 = 5.4, where the unrounded means
 * would give 5.3): the figures the file shows add up, and the winner is
 * decided on them.  The winner has the higher overall score; within
 * tie_epsilon, the higher expectation pass rate; else TIE.  output_quality's
 * strengths and weaknesses are sentences (feedback.c).  A pair with any item unresolved on either
 * side is pending_judge and gets no winner: the policy never guesses.
 *
 * A judged pair (its unresolved items answered by the judge) is then decided
 * by policy.decide_by: "rubric" keeps the rule above, "judge" takes the
 * judge's winner when both orders name the same one, "rubric_then_judge" (the
 * default) breaks the rule's TIE with that winner.  Under every policy a pair
 * whose orders disagree is position_inconsistent (policy.position_inconsistent:
 * a tie, or undecided).  comparison.json records the policy and what decided.
 *
 * comparison.json is written as text (jtext.c), the bytes cJSON_PrintUnformatted printed of the
 * tree this file used to build; what every pair repeats (the suite's keys, sentences and
 * expectation items) comes written once per run from struct check_words.  decide_pair and
 * decide_judged still hand out a tree (the text parsed) for escalate.c and the tests.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "run_int.h"

const struct arb_expectation *item_expectation(const struct items *it, size_t i)
{
    if (i < it->suite->n_expectations)
        return &it->suite->expectations[i];
    return &it->kase->expectations[i - it->suite->n_expectations];
}

struct scores {
    double content, structure, overall, pass_rate;
    size_t passed, total;
};

static double dim_mean(const struct arb_suite *s, const struct side *x, enum arb_dim dim)
{
    double sum = 0;
    size_t i, n = 0;

    for (i = 0; i < s->n_criteria; i++) {
        if (s->criteria[i].dim != dim)
            continue;
        sum += x->crit[i];
        n++;
    }
    return n ? sum / (double)n : NAN;
}

/* Round to one decimal as the seed shows scores, keeping exact values exact. */
static double one_decimal(double v)
{
    return round(v * 10.0) / 10.0;
}

static void score_side(const struct items *it, const struct side *x, struct scores *sc)
{
    size_t i;

    sc->content = one_decimal(dim_mean(it->suite, x, ARB_DIM_CONTENT));
    sc->structure = one_decimal(dim_mean(it->suite, x, ARB_DIM_STRUCTURE));
    /* A dimension without criteria has no score (null), and adds nothing to the overall.  The
     * sum of the rounded means, rounded again: 4.7 + 4.3 is 9.000000000000002 in binary. */
    sc->overall = one_decimal((isnan(sc->content) ? 0.0 : sc->content) +
                              (isnan(sc->structure) ? 0.0 : sc->structure));
    sc->passed = sc->total = 0;
    for (i = 0; i < it->n_exp; i++) {
        sc->total++;
        sc->passed += x->exp[i] == ARB_PASS;
    }
    sc->pass_rate = sc->total ? (double)sc->passed / (double)sc->total : NAN;
}

static void rubric_side(struct jtext *jt, const char *label, const struct items *it,
                        const struct side *x, const struct scores *sc, int resolved)
{
    size_t i, dim;

    jtext_open(jt, label, '{');
    /* content criteria come first in the suite, structure after (suite.h) */
    for (dim = 0; dim < 2; dim++) {
        jtext_open(jt, dim ? "structure" : "content", '{');
        for (i = 0; i < it->suite->n_criteria; i++) {
            const struct arb_criterion *cr = &it->suite->criteria[i];

            if ((cr->dim == ARB_DIM_CONTENT) != !dim)
                continue;
            /* Graded criteria give fractions: two decimals are plenty on a 1-5 scale. */
            if (it->words && i < it->words->n_crit)
                jtext_key_json(jt, it->words->crit_key[i]);
            else
                jtext_key(jt, cr->name);
            jtext_num(jt, NULL, round(x->crit[i] * 100.0) / 100.0);
        }
        jtext_close(jt, '}');
    }
    jtext_num(jt, "content_score", resolved ? one_decimal(sc->content) : NAN);
    jtext_num(jt, "structure_score", resolved ? one_decimal(sc->structure) : NAN);
    jtext_num(jt, "overall_score", resolved ? one_decimal(sc->overall) : NAN);
    jtext_close(jt, '}');
}

/* The sentences of one side, gathered as the items of two JSON arrays. */
struct two_lists {
    struct jtext good, bad;
};

static int put_sentence(void *ctx, int good, const char *s, size_t n)
{
    struct two_lists *t = ctx;
    struct jtext *j = good ? &t->good : &t->bad;

    jtext_raw(j, NULL, "", 0); /* the separator */
    jtext_string(j, s, n);
    return j->st == ARB_OK;
}

static int put_sentence_json(void *ctx, int good, const char *json)
{
    struct two_lists *t = ctx;
    struct jtext *j = good ? &t->good : &t->bad;

    jtext_raw(j, NULL, json, strlen(json));
    return j->st == ARB_OK;
}

/* fb: the judge's sentences on this side, or NULL (feedback.c builds them). */
static void quality_side(struct jtext *jt, const char *label, const struct items *it,
                         const struct side *x, const struct scores *sc, int resolved,
                         const cJSON *fb, struct decide_scratch *ds)
{
    struct two_lists t;
    struct sentence_sink sink = {put_sentence, put_sentence_json, &t};

    jtext_open(jt, label, '{');
    /* A whole 1-10 rating, as the seed's example rates an overall_score of 5.4 a 5. */
    jtext_num(jt, "score", resolved ? round(sc->overall) : NAN);
    arb_buf_reset(&ds->good);
    arb_buf_reset(&ds->bad);
    jtext_init(&t.good, &ds->good);
    jtext_init(&t.bad, &ds->bad);
    if (!jt->st && !quality_each(it, x, fb, &sink, &ds->sentence))
        jt->st = t.good.st ? t.good.st : t.bad.st ? t.bad.st : ARB_ENOMEM;
    jtext_open(jt, "strengths", '[');
    jtext_raw(jt, NULL, ds->good.ptr ? ds->good.ptr : "", ds->good.len);
    jtext_close(jt, ']');
    jtext_open(jt, "weaknesses", '[');
    jtext_raw(jt, NULL, ds->bad.ptr ? ds->bad.ptr : "", ds->bad.len);
    jtext_close(jt, ']');
    jtext_close(jt, '}');
}

static void expectations_side(struct jtext *jt, const char *label, const struct items *it,
                              const struct side *x, const struct scores *sc)
{
    size_t i;

    jtext_open(jt, label, '{');
    jtext_num(jt, "passed", (double)sc->passed);
    jtext_num(jt, "total", (double)sc->total);
    jtext_num(jt, "pass_rate", sc->pass_rate);
    jtext_open(jt, "details", '[');
    for (i = 0; i < it->n_exp; i++) {
        const struct arb_expectation *ex = item_expectation(it, i);
        const struct check_words *w = it->words;

        if (w && i < w->n_exp && w->exp_head[i]) { /* {"id":...,"text":...,"passed": */
            jtext_raw(jt, NULL, w->exp_head[i], strlen(w->exp_head[i]));
            if (x->exp[i] == ARB_UNRESOLVED)
                jtext_append(jt, "null}", 5);
            else
                jtext_append(jt, x->exp[i] == ARB_PASS ? "true}" : "false}",
                             x->exp[i] == ARB_PASS ? 5 : 6);
            continue;
        }
        jtext_open(jt, NULL, '{');
        jtext_str(jt, "id", ex->id);
        jtext_str(jt, "text", ex->text);
        if (x->exp[i] == ARB_UNRESOLVED)
            jtext_null(jt, "passed");
        else
            jtext_bool(jt, "passed", x->exp[i] == ARB_PASS);
        jtext_close(jt, '}');
    }
    jtext_close(jt, ']');
    jtext_close(jt, '}');
}

/* Items either side leaves unresolved: how many, and with jt as [{"kind", "item"}]. */
static int list_unresolved(const struct items *it, const struct side *a, const struct side *b,
                           struct jtext *jt)
{
    size_t i;
    int n = 0;

    for (i = 0; i < it->suite->n_criteria; i++) {
        if (isnan(a->crit[i]) || isnan(b->crit[i])) {
            if (jt) {
                jtext_open(jt, NULL, '{');
                jtext_str(jt, "kind", "criterion");
                jtext_str(jt, "item", it->suite->criteria[i].name);
                jtext_close(jt, '}');
            }
            n++;
        }
    }
    for (i = 0; i < it->n_exp; i++) {
        if (a->exp[i] == ARB_UNRESOLVED || b->exp[i] == ARB_UNRESOLVED) {
            if (jt) {
                jtext_open(jt, NULL, '{');
                jtext_str(jt, "kind", "expectation");
                jtext_str(jt, "item", item_expectation(it, i)->id);
                jtext_close(jt, '}');
            }
            n++;
        }
    }
    return n;
}

/* %.1f of v into out when v is a tenth (one_decimal's figures) from 0 to 10^9: 1, else 0. */
static int tenth(double v, char *out)
{
    double k = round(v * 10.0);
    unsigned long u;
    char tmp[24];
    size_t n = 0, i = sizeof(tmp);

    if (!(v >= 0.0 && v < 1e9) || k / 10.0 != v || (v == 0.0 && signbit(v)))
        return 0;
    u = (unsigned long)k;
    tmp[--i] = (char)('0' + u % 10);
    tmp[--i] = '.';
    u /= 10;
    do {
        tmp[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    while (i < sizeof(tmp))
        out[n++] = tmp[i++];
    out[n] = '\0';
    return 1;
}

/* "W has the higher overall rubric score (H vs L)." with its figures already written. */
static void higher_sentence(char *out, size_t len, const char *w, const char *h, const char *l)
{
    static const char mid[] = " has the higher overall rubric score (", vs[] = " vs ";
    size_t n = 0;
    const char *part[5] = {w, mid, h, vs, l};
    size_t i, k;

    for (i = 0; i < 5; i++)
        for (k = 0; part[i][k] && n + 3 < len; k++)
            out[n++] = part[i][k];
    out[n++] = ')';
    out[n++] = '.';
    out[n] = '\0';
}

static void reasoning(const struct items *it, const struct decision *d, const struct scores *sa,
                      const struct scores *sb, int n_unresolved, char *out, size_t len)
{
    double eps = it->suite->policy.tie_epsilon;

    if (n_unresolved) {
        snprintf(out, len,
                 "Not decided by the deterministic checks: %d item(s) are unresolved and go to "
                 "the judge.",
                 n_unresolved);
    } else if (fabs(sa->overall - sb->overall) > eps) {
        double hi = d->winner == 'A' ? sa->overall : sb->overall;
        double lo = d->winner == 'A' ? sb->overall : sa->overall;
        char h[24], l[24];

        if (tenth(hi, h) && tenth(lo, l)) /* the usual sentence, without printf */
            higher_sentence(out, len, d->winner == 'A' ? "A" : "B", h, l);
        else
            snprintf(out, len, "%s has the higher overall rubric score (%.1f vs %.1f).",
                     d->winner == 'A' ? "A" : "B", hi, lo);
    } else if (d->winner != 'T') {
        snprintf(out, len,
                 "Equal overall rubric scores (%.1f); %s passes more expectations (%zu/%zu vs "
                 "%zu/%zu).",
                 sa->overall, d->winner == 'A' ? "A" : "B",
                 d->winner == 'A' ? sa->passed : sb->passed, sa->total,
                 d->winner == 'A' ? sb->passed : sa->passed, sb->total);
    } else {
        snprintf(out, len, "Equal overall rubric scores (%.1f) and expectation pass rates.",
                 sa->overall);
    }
}

static const char *winner_word(char w)
{
    return w == 'A' ? "A" : w == 'B' ? "B" : w == 'T' ? "TIE" : NULL;
}

/* The "judge" member of a judged pair's comparison.json. */
static void add_judge(struct jtext *jt, const struct judged *j)
{
    int o;

    jtext_open(jt, "judge", '{');
    if (j->failed) {
        jtext_str(jt, "error", j->error ? j->error : "failed");
    } else {
        jtext_str(jt, "winner", j->winner ? j->winner : "none");
        jtext_bool(jt, "position_inconsistent", j->position_inconsistent);
        jtext_num(jt, "sample_agreement", j->sample_agreement);
        /* Each order's own winner, in the pair's A/B: [A shown first, B shown first]; one
         * element when the judge does not swap. */
        jtext_open(jt, "order_winners", '[');
        for (o = 0; o < j->n_orders && o < 2; o++) {
            const char *w = winner_word(j->order_winner[o]);

            if (w)
                jtext_str(jt, NULL, w);
            else
                jtext_null(jt, NULL);
        }
        jtext_close(jt, ']');
    }
    /* Whether a reply came from the cache is in the judgments table, not here: a verdict
     * must not depend on it (a replay answers everything from the cache). */
    jtext_num(jt, "judgments", j->n_judgments);
    jtext_close(jt, '}');
}

/*
 * The judge's winner when its orders agree (one order: that order's), else 0; *none is set
 * when no order named a winner.
 */
static char consistent_winner(const struct judged *j, int *none)
{
    char w0 = j->order_winner[0], w1 = j->order_winner[1];

    *none = !w0 && !w1;
    if (j->position_inconsistent)
        return 0;
    return w0 ? w0 : w1;
}

/*
 * policy.decide_by on a judged pair the rubric rule has decided (d->winner set); why holds
 * the rubric's sentence and receives the judge's when the judge decides.
 */
static void judge_decides(const struct items *it, const struct judged *j, struct decision *d,
                          char *why, size_t len)
{
    const struct arb_policy *p = &it->suite->policy;
    int none = 0;
    char jw = consistent_winner(j, &none);
    const char *jword, *both;

    if (j->failed) {
        d->status = j->refused ? "judge_refused" : "judge_failed";
        d->decided_by = NULL;
        snprintf(why, len, "No verdict: the judge %s (%s).", j->refused ? "refused" : "failed",
                 j->error ? j->error : "no valid reply");
        return;
    }
    if (j->position_inconsistent) {
        /* The orders disagree about the winner: a tie by default, else left undecided. */
        d->decided_by = "position_inconsistent";
        snprintf(why, len,
                 "The judge's orders disagree (%s with A shown first, %s with B shown first): %s.",
                 winner_word(j->order_winner[0]) ? winner_word(j->order_winner[0]) : "none",
                 winner_word(j->order_winner[1]) ? winner_word(j->order_winner[1]) : "none",
                 p->inconsistent == ARB_INCONSISTENT_TIE ? "a tie" : "left undecided");
        if (p->inconsistent == ARB_INCONSISTENT_TIE) {
            d->winner = 'T';
        } else {
            d->status = "position_inconsistent";
            d->winner = 0;
        }
        return;
    }
    if (!d->winner || none || !jw)
        return; /* undecided items, or no winner named: the rubric's outcome stands */
    jword = jw == 'T' ? "TIE" : jw == 'A' ? "A" : "B";
    both = j->n_orders == 2 ? ", the same in both orders" : "";
    if (p->decide_by == ARB_DECIDE_JUDGE) {
        snprintf(why, len, "The judge's winner%s: %s.", both, jword);
    } else if (p->decide_by == ARB_DECIDE_RUBRIC_THEN_JUDGE && d->winner == 'T') {
        size_t n = strlen(why);

        /* "Equal overall rubric scores (7.0) and expectation pass rates." + the judge's */
        if (n && why[n - 1] == '.')
            why[--n] = '\0';
        snprintf(why + n, len - n, "; the judge's winner%s: %s.", both, jword);
    } else {
        return;
    }
    d->winner = jw;
    d->decided_by = "judge";
}

/* The policy that decided, and what decided: every verdict records them. */
static void add_policy(struct jtext *jt, const struct arb_policy *p, const struct decision *d,
                       const char *why)
{
    jtext_open(jt, "policy", '{');
    /* A judged pair's reasoning is the judge's: why says what decided its verdict. */
    if (why)
        jtext_str(jt, "why", why);
    jtext_str(jt, "decide_by", arb_decide_by_name(p->decide_by));
    jtext_str(jt, "position_inconsistent",
              p->inconsistent == ARB_INCONSISTENT_TIE ? "tie" : "unresolved");
    if (d->decided_by)
        jtext_str(jt, "decided_by", d->decided_by);
    else
        jtext_null(jt, "decided_by");
    jtext_close(jt, '}');
}

/* comparison.json of a pair with a missing output. */
static void write_missing(struct jtext *jt, const struct items *it, const struct side *a,
                          const struct side *b, struct decision *d)
{
    const struct side *present = a->missing ? (b->missing ? NULL : b) : a;
    const char *label = present == a ? "A" : "B";
    struct scores sp;
    int resolved = 1;
    size_t i;

    d->status = "missing_output";
    add_policy(jt, &it->suite->policy, d, NULL);
    jtext_null(jt, "winner");
    jtext_str(jt, "status", d->status);
    jtext_str(jt, "reasoning",
              a->missing && b->missing ? "Neither output exists for this case."
              : a->missing             ? "Output A does not exist for this case."
                                       : "Output B does not exist for this case.");
    if (!present)
        return;
    /* The output that exists was still checked: keep its results for the report. */
    score_side(it, present, &sp);
    for (i = 0; i < it->suite->n_criteria; i++)
        resolved = resolved && !isnan(present->crit[i]);
    jtext_open(jt, "rubric", '{');
    rubric_side(jt, label, it, present, &sp, resolved);
    jtext_close(jt, '}');
    if (it->n_exp) {
        jtext_open(jt, "expectation_results", '{');
        expectations_side(jt, label, it, present, &sp);
        jtext_close(jt, '}');
    }
}

/* The rubric rule on a pair with both outputs: status and winner. */
static void rubric_rule(const struct items *it, const struct scores *sa, const struct scores *sb,
                        int n_unres, struct decision *d)
{
    double eps = it->suite->policy.tie_epsilon;

    d->pass_rate_a = sa->pass_rate;
    d->pass_rate_b = sb->pass_rate;
    if (n_unres) {
        d->status = "pending_judge";
    } else {
        d->status = "decided";
        d->score_a = sa->overall;
        d->score_b = sb->overall;
        if (fabs(sa->overall - sb->overall) > eps)
            d->winner = sa->overall > sb->overall ? 'A' : 'B';
        else if (sa->total && sa->passed != sb->passed)
            d->winner = sa->passed > sb->passed ? 'A' : 'B';
        else
            d->winner = 'T';
    }
    d->decided_by = d->winner ? "rubric" : NULL;
}

void decide_scratch_init(struct decide_scratch *ds)
{
    size_t i;

    memset(&ds->nums, 0, sizeof(ds->nums));
    arb_buf_init(&ds->sentence, 0);
    arb_buf_init(&ds->good, 0);
    arb_buf_init(&ds->bad, 0);
    arb_buf_init(&ds->memo.key, 0);
    ds->memo.evict = 0;
    for (i = 0; i < DECIDE_MEMO; i++) {
        arb_buf_init(&ds->memo.kept[i], 0);
        ds->memo.key_len[i] = 0;
    }
}

void decide_scratch_release(struct decide_scratch *ds)
{
    size_t i;

    arb_buf_release(&ds->sentence);
    arb_buf_release(&ds->good);
    arb_buf_release(&ds->bad);
    arb_buf_release(&ds->memo.key);
    for (i = 0; i < DECIDE_MEMO; i++)
        arb_buf_release(&ds->memo.kept[i]);
}

static enum arb_status write_pair(const struct items *it, const struct side *a,
                                  const struct side *b, const struct judged *j, struct decision *d,
                                  struct decide_scratch *ds, struct arb_buf *out)
{
    struct scores sa, sb;
    const cJSON *fb;
    char why[400];
    int n_unres;
    struct jtext jt;

    memset(d, 0, sizeof(*d));
    d->score_a = d->score_b = d->pass_rate_a = d->pass_rate_b = NAN;
    jtext_init(&jt, out);
    jt.nums = &ds->nums;
    jtext_open(&jt, NULL, '{');
    if (a->missing || b->missing) {
        write_missing(&jt, it, a, b, d);
        jtext_close(&jt, '}');
        return jt.st;
    }
    score_side(it, a, &sa);
    score_side(it, b, &sb);
    n_unres = list_unresolved(it, a, b, NULL);
    rubric_rule(it, &sa, &sb, n_unres, d);
    reasoning(it, d, &sa, &sb, n_unres, why, sizeof(why));
    if (j)
        judge_decides(it, j, d, why, sizeof(why));
    if (d->winner)
        jtext_str(&jt, "winner", winner_word(d->winner));
    else
        jtext_null(&jt, "winner");
    jtext_str(&jt, "status", d->status);
    jtext_str(&jt, "reasoning", j && !j->failed && j->reasoning ? j->reasoning : why);
    add_policy(&jt, &it->suite->policy, d, j ? why : NULL);
    jtext_open(&jt, "rubric", '{');
    rubric_side(&jt, "A", it, a, &sa, !n_unres);
    rubric_side(&jt, "B", it, b, &sb, !n_unres);
    jtext_close(&jt, '}');
    fb = j && !j->failed ? j->feedback : NULL;
    jtext_open(&jt, "output_quality", '{');
    quality_side(&jt, "A", it, a, &sa, !n_unres, cJSON_GetObjectItemCaseSensitive(fb, "A"), ds);
    quality_side(&jt, "B", it, b, &sb, !n_unres, cJSON_GetObjectItemCaseSensitive(fb, "B"), ds);
    jtext_close(&jt, '}');
    if (it->n_exp) {
        jtext_open(&jt, "expectation_results", '{');
        expectations_side(&jt, "A", it, a, &sa);
        expectations_side(&jt, "B", it, b, &sb);
        jtext_close(&jt, '}');
    }
    jtext_open(&jt, "unresolved", '[');
    list_unresolved(it, a, b, &jt);
    jtext_close(&jt, ']');
    if (j)
        add_judge(&jt, j);
    jtext_close(&jt, '}');
    return jt.st;
}

/* What decides a pair without a judge (struct decide_memo) as bytes into key; its hash. */
static size_t memo_key(const struct items *it, const struct side *a, const struct side *b,
                       struct arb_buf *key, enum arb_status *st)
{
    const struct side *s[2] = {a, b};
    size_t n_crit = it->suite->n_criteria, i;
    uint64_t h = 14695981039346656037u;
    int k;

    arb_buf_reset(key);
    *st = ARB_OK;
    for (k = 0; k < 2 && !*st; k++) {
        *st = arb_buf_add(key, &s[k]->missing, sizeof(s[k]->missing));
        if (!*st && n_crit)
            *st = arb_buf_add(key, s[k]->crit, n_crit * sizeof(*s[k]->crit));
        if (!*st && it->n_exp)
            *st = arb_buf_add(key, s[k]->exp, it->n_exp * sizeof(*s[k]->exp));
    }
    for (i = 0; !*st && i < key->len; i++) /* FNV-1a */
        h = (h ^ (unsigned char)key->ptr[i]) * 1099511628211u;
    return (size_t)(h % DECIDE_MEMO);
}

/* The slot of m holding m->key, or DECIDE_MEMO; *free_slot: where to keep it when none does. */
static size_t memo_find(struct decide_memo *m, size_t home, size_t *free_slot)
{
    size_t i, slot;

    /* four slots from its home: two frequent pairs of one home do not push each other out */
    *free_slot = DECIDE_MEMO;
    for (i = 0; i < DECIDE_PROBES; i++) {
        slot = (home + i) % DECIDE_MEMO;
        if (m->key_len[slot] == m->key.len &&
            memcmp(m->kept[slot].ptr, m->key.ptr, m->key.len) == 0)
            return slot;
        if (!m->key_len[slot] && *free_slot == DECIDE_MEMO)
            *free_slot = slot;
    }
    if (*free_slot == DECIDE_MEMO)
        *free_slot = (home + m->evict++ % DECIDE_PROBES) % DECIDE_MEMO;
    return DECIDE_MEMO;
}

enum arb_status decide_write(const struct items *it, const struct side *a, const struct side *b,
                             const struct judged *j, struct decision *d, struct decide_scratch *ds,
                             struct arb_buf *out)
{
    struct decide_memo *m = &ds->memo;
    size_t at = out->len, slot = DECIDE_MEMO, home, hit;
    int memo = !j && it->kase && it->kase->n_expectations == 0;
    enum arb_status st;

    if (memo) {
        home = memo_key(it, a, b, &m->key, &st);
        if (st)
            return st;
        hit = memo_find(m, home, &slot);
        if (hit != DECIDE_MEMO) {
            *d = m->d[hit];
            return arb_buf_add(out, m->kept[hit].ptr + m->key_len[hit],
                               m->kept[hit].len - m->key_len[hit]);
        }
    }
    st = write_pair(it, a, b, j, d, ds, out);
    if (!st && memo) {
        /* a slot that cannot grow stays empty: the next such pair is written again */
        arb_buf_reset(&m->kept[slot]);
        m->key_len[slot] = 0;
        if (arb_buf_add(&m->kept[slot], m->key.ptr, m->key.len) == ARB_OK &&
            arb_buf_add(&m->kept[slot], out->ptr + at, out->len - at) == ARB_OK) {
            m->key_len[slot] = m->key.len;
            m->d[slot] = *d;
        }
    }
    return st;
}

/* decide_write, then its text as a cJSON tree (which prints as the same text). */
static enum arb_status decide_tree(const struct items *it, const struct side *a,
                                   const struct side *b, const struct judged *j, struct decision *d,
                                   cJSON **comparison)
{
    struct decide_scratch ds;
    struct arb_buf out;
    enum arb_status st;

    *comparison = NULL;
    decide_scratch_init(&ds);
    arb_buf_init(&out, 0);
    st = decide_write(it, a, b, j, d, &ds, &out);
    if (!st && !(*comparison = cJSON_ParseWithLength(out.ptr, out.len)))
        st = ARB_ENOMEM;
    arb_buf_release(&out);
    decide_scratch_release(&ds);
    return st;
}

enum arb_status decide_pair(const struct items *it, const struct side *a, const struct side *b,
                            struct decision *d, cJSON **comparison)
{
    return decide_tree(it, a, b, NULL, d, comparison);
}

enum arb_status decide_judged(const struct items *it, const struct side *a, const struct side *b,
                              const struct judged *j, struct decision *d, cJSON **comparison)
{
    return decide_tree(it, a, b, j, d, comparison);
}
