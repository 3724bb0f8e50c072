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
 */
#include <math.h>
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

static int add_number(cJSON *o, const char *k, double v)
{
    return isnan(v) ? cJSON_AddNullToObject(o, k) != NULL
                    : cJSON_AddNumberToObject(o, k, v) != NULL;
}

static cJSON *rubric_side(const struct items *it, const struct side *x, const struct scores *sc,
                          int resolved)
{
    cJSON *r = cJSON_CreateObject(), *content, *structure;
    size_t i;
    int ok = r != NULL;

    content = ok ? cJSON_AddObjectToObject(r, "content") : NULL;
    structure = ok ? cJSON_AddObjectToObject(r, "structure") : NULL;
    ok = content && structure;
    for (i = 0; ok && i < it->suite->n_criteria; i++) {
        const struct arb_criterion *cr = &it->suite->criteria[i];

        /* Graded criteria give fractions: two decimals are plenty on a 1-5 scale. */
        ok = add_number(cr->dim == ARB_DIM_CONTENT ? content : structure, cr->name,
                        round(x->crit[i] * 100.0) / 100.0);
    }
    ok = ok && add_number(r, "content_score", resolved ? one_decimal(sc->content) : NAN);
    ok = ok && add_number(r, "structure_score", resolved ? one_decimal(sc->structure) : NAN);
    ok = ok && add_number(r, "overall_score", resolved ? one_decimal(sc->overall) : NAN);
    if (!ok) {
        cJSON_Delete(r);
        return NULL;
    }
    return r;
}

/* fb: the judge's sentences on this side, or NULL (feedback.c builds them). */
static cJSON *quality_side(const struct items *it, const struct side *x, const struct scores *sc,
                           int resolved, const cJSON *fb)
{
    cJSON *q = cJSON_CreateObject(), *good, *bad;
    int ok = q != NULL;

    /* A whole 1-10 rating, as the seed's example rates an overall_score of 5.4 a 5. */
    ok = ok && add_number(q, "score", resolved ? round(sc->overall) : NAN);
    good = ok ? cJSON_AddArrayToObject(q, "strengths") : NULL;
    bad = ok ? cJSON_AddArrayToObject(q, "weaknesses") : NULL;
    ok = good && bad && quality_sentences(it, x, fb, good, bad);
    if (!ok) {
        cJSON_Delete(q);
        return NULL;
    }
    return q;
}

static cJSON *expectations_side(const struct items *it, const struct side *x,
                                const struct scores *sc)
{
    cJSON *e = cJSON_CreateObject(), *details;
    size_t i;
    int ok = e != NULL;

    ok = ok && cJSON_AddNumberToObject(e, "passed", (double)sc->passed);
    ok = ok && cJSON_AddNumberToObject(e, "total", (double)sc->total);
    ok = ok && add_number(e, "pass_rate", sc->pass_rate);
    details = ok ? cJSON_AddArrayToObject(e, "details") : NULL;
    ok = details != NULL;
    for (i = 0; ok && i < it->n_exp; i++) {
        const struct arb_expectation *ex = item_expectation(it, i);
        cJSON *d = cJSON_CreateObject();

        ok = d && cJSON_AddItemToArray(details, d);
        ok = ok && cJSON_AddStringToObject(d, "id", ex->id);
        ok = ok && cJSON_AddStringToObject(d, "text", ex->text);
        if (ok && x->exp[i] == ARB_UNRESOLVED)
            ok = cJSON_AddNullToObject(d, "passed") != NULL;
        else if (ok)
            ok = cJSON_AddBoolToObject(d, "passed", x->exp[i] == ARB_PASS) != NULL;
    }
    if (!ok) {
        cJSON_Delete(e);
        return NULL;
    }
    return e;
}

/* Items either side leaves unresolved, as [{"kind", "item"}]. */
static int list_unresolved(const struct items *it, const struct side *a, const struct side *b,
                           cJSON *out)
{
    size_t i;
    int n = 0;

    for (i = 0; i < it->suite->n_criteria; i++) {
        if (isnan(a->crit[i]) || isnan(b->crit[i])) {
            cJSON *o = cJSON_CreateObject();

            if (!o || !cJSON_AddItemToArray(out, o) ||
                !cJSON_AddStringToObject(o, "kind", "criterion") ||
                !cJSON_AddStringToObject(o, "item", it->suite->criteria[i].name))
                return -1;
            n++;
        }
    }
    for (i = 0; i < it->n_exp; i++) {
        if (a->exp[i] == ARB_UNRESOLVED || b->exp[i] == ARB_UNRESOLVED) {
            cJSON *o = cJSON_CreateObject();

            if (!o || !cJSON_AddItemToArray(out, o) ||
                !cJSON_AddStringToObject(o, "kind", "expectation") ||
                !cJSON_AddStringToObject(o, "item", item_expectation(it, i)->id))
                return -1;
            n++;
        }
    }
    return n;
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
        snprintf(out, len, "%s has the higher overall rubric score (%.1f vs %.1f).",
                 d->winner == 'A' ? "A" : "B", d->winner == 'A' ? sa->overall : sb->overall,
                 d->winner == 'A' ? sb->overall : sa->overall);
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
static int add_judge(cJSON *c, const struct judged *j)
{
    cJSON *jo = cJSON_AddObjectToObject(c, "judge"), *orders;
    int ok = jo != NULL, o;

    if (ok && j->failed)
        ok = cJSON_AddStringToObject(jo, "error", j->error ? j->error : "failed") != NULL;
    else if (ok) {
        ok = cJSON_AddStringToObject(jo, "winner", j->winner ? j->winner : "none") &&
             cJSON_AddBoolToObject(jo, "position_inconsistent", j->position_inconsistent) &&
             cJSON_AddNumberToObject(jo, "sample_agreement", j->sample_agreement);
        /* Each order's own winner, in the pair's A/B: [A shown first, B shown first]; one
         * element when the judge does not swap. */
        orders = ok ? cJSON_AddArrayToObject(jo, "order_winners") : NULL;
        ok = orders != NULL;
        for (o = 0; ok && o < j->n_orders && o < 2; o++) {
            const char *w = winner_word(j->order_winner[o]);

            ok = cJSON_AddItemToArray(orders, w ? cJSON_CreateString(w) : cJSON_CreateNull());
        }
    }
    /* Whether a reply came from the cache is in the judgments table, not here: a verdict
     * must not depend on it (a replay answers everything from the cache). */
    return ok && cJSON_AddNumberToObject(jo, "judgments", j->n_judgments);
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
static int add_policy(cJSON *c, const struct arb_policy *p, const struct decision *d,
                      const char *why)
{
    cJSON *o = cJSON_AddObjectToObject(c, "policy");

    /* A judged pair's reasoning is the judge's: why says what decided its verdict. */
    if (o && why && !cJSON_AddStringToObject(o, "why", why))
        return 0;
    return o && cJSON_AddStringToObject(o, "decide_by", arb_decide_by_name(p->decide_by)) &&
           cJSON_AddStringToObject(o, "position_inconsistent",
                                   p->inconsistent == ARB_INCONSISTENT_TIE ? "tie"
                                                                           : "unresolved") &&
           (d->decided_by ? cJSON_AddStringToObject(o, "decided_by", d->decided_by)
                          : cJSON_AddNullToObject(o, "decided_by")) != NULL;
}

enum arb_status decide_pair(const struct items *it, const struct side *a, const struct side *b,
                            struct decision *d, cJSON **comparison)
{
    return decide_judged(it, a, b, NULL, d, comparison);
}

enum arb_status decide_judged(const struct items *it, const struct side *a, const struct side *b,
                              const struct judged *j, struct decision *d, cJSON **comparison)
{
    struct scores sa, sb;
    cJSON *c = cJSON_CreateObject(), *unres, *rubric, *quality, *exps;
    const cJSON *fb;
    char why[400];
    int n_unres, ok = c != NULL;
    double eps = it->suite->policy.tie_epsilon;

    *comparison = NULL;
    memset(d, 0, sizeof(*d));
    d->score_a = d->score_b = d->pass_rate_a = d->pass_rate_b = NAN;
    if (!ok)
        return ARB_ENOMEM;
    if (a->missing || b->missing) {
        const struct side *present = a->missing ? (b->missing ? NULL : b) : a;
        const char *label = present == a ? "A" : "B";
        struct scores sp;
        cJSON *r_obj, *e_obj;

        d->status = "missing_output";
        ok = add_policy(c, &it->suite->policy, d, NULL) && cJSON_AddNullToObject(c, "winner") &&
             cJSON_AddStringToObject(c, "status", d->status) &&
             cJSON_AddStringToObject(c, "reasoning",
                                     a->missing && b->missing
                                         ? "Neither output exists for this case."
                                     : a->missing ? "Output A does not exist for this case."
                                                  : "Output B does not exist for this case.");
        /* The output that exists was still checked: keep its results for the report. */
        if (ok && present) {
            int resolved = 1;
            size_t i;

            score_side(it, present, &sp);
            for (i = 0; i < it->suite->n_criteria; i++)
                resolved = resolved && !isnan(present->crit[i]);
            r_obj = cJSON_AddObjectToObject(c, "rubric");
            ok = r_obj &&
                 cJSON_AddItemToObject(r_obj, label, rubric_side(it, present, &sp, resolved));
            if (ok && it->n_exp) {
                e_obj = cJSON_AddObjectToObject(c, "expectation_results");
                ok = e_obj &&
                     cJSON_AddItemToObject(e_obj, label, expectations_side(it, present, &sp));
            }
        }
        if (!ok) {
            cJSON_Delete(c);
            return ARB_ENOMEM;
        }
        *comparison = c;
        return ARB_OK;
    }
    score_side(it, a, &sa);
    score_side(it, b, &sb);
    unres = cJSON_CreateArray();
    n_unres = unres ? list_unresolved(it, a, b, unres) : -1;
    if (n_unres < 0) {
        cJSON_Delete(unres);
        cJSON_Delete(c);
        return ARB_ENOMEM;
    }
    d->pass_rate_a = sa.pass_rate;
    d->pass_rate_b = sb.pass_rate;
    if (n_unres) {
        d->status = "pending_judge";
    } else {
        d->status = "decided";
        d->score_a = sa.overall;
        d->score_b = sb.overall;
        if (fabs(sa.overall - sb.overall) > eps)
            d->winner = sa.overall > sb.overall ? 'A' : 'B';
        else if (sa.total && sa.passed != sb.passed)
            d->winner = sa.passed > sb.passed ? 'A' : 'B';
        else
            d->winner = 'T';
    }
    d->decided_by = d->winner ? "rubric" : NULL;
    reasoning(it, d, &sa, &sb, n_unres, why, sizeof(why));
    if (j)
        judge_decides(it, j, d, why, sizeof(why));
    if (d->winner)
        ok = cJSON_AddStringToObject(c, "winner", winner_word(d->winner)) != NULL;
    else
        ok = cJSON_AddNullToObject(c, "winner") != NULL;
    ok = ok && cJSON_AddStringToObject(c, "status", d->status);
    ok = ok && cJSON_AddStringToObject(c, "reasoning",
                                       j && !j->failed && j->reasoning ? j->reasoning : why);
    ok = ok && add_policy(c, &it->suite->policy, d, j ? why : NULL);
    rubric = ok ? cJSON_AddObjectToObject(c, "rubric") : NULL;
    quality = rubric ? cJSON_AddObjectToObject(c, "output_quality") : NULL;
    ok = quality != NULL;
    ok = ok && cJSON_AddItemToObject(rubric, "A", rubric_side(it, a, &sa, !n_unres));
    ok = ok && cJSON_AddItemToObject(rubric, "B", rubric_side(it, b, &sb, !n_unres));
    fb = j && !j->failed ? j->feedback : NULL;
    ok = ok && cJSON_AddItemToObject(
                   quality, "A",
                   quality_side(it, a, &sa, !n_unres, cJSON_GetObjectItemCaseSensitive(fb, "A")));
    ok = ok && cJSON_AddItemToObject(
                   quality, "B",
                   quality_side(it, b, &sb, !n_unres, cJSON_GetObjectItemCaseSensitive(fb, "B")));
    if (ok && it->n_exp) {
        exps = cJSON_AddObjectToObject(c, "expectation_results");
        ok = exps && cJSON_AddItemToObject(exps, "A", expectations_side(it, a, &sa)) &&
             cJSON_AddItemToObject(exps, "B", expectations_side(it, b, &sb));
    }
    ok = ok && cJSON_AddItemToObject(c, "unresolved", unres);
    ok = ok && (!j || add_judge(c, j));
    if (!ok) {
        if (!unres->string) /* not attached to c, so not freed with it */
            cJSON_Delete(unres);
        cJSON_Delete(c);
        return ARB_ENOMEM;
    }
    *comparison = c;
    return ARB_OK;
}
