/*
 * fields.c - the fields operator: nested per-field comparators whose map has
 * the shape of the data (DESIGN.md, "Nested field comparators").
 *
 * The check is {"op": "fields", "fields": MAP, "expected": ..., "allow_extra":
 * false}.  MAP is compiled once into a tree (fields_map.c):
 *  - a leaf is an operator name ("exact", compiled as {"op": "exact"}) or a
 *    check object ({"op": "within", "tolerance": 5});
 *  - an object maps field names to configs (fields it does not list are not
 *    compared, so maps may be partial; a field named "op" or "unordered"
 *    cannot be mapped, those keys mean a check or an unordered array);
 *  - {"unordered": X} (no other key) is an array whose items are matched by
 *    best total similarity and compared with X.
 * A leaf check normally has no expected value of its own: it runs on the
 * observed leaf as text (a JSON string's content, any other value as its
 * RFC 8785 text) with the expected leaf value as the case's expected, so
 * observed 5 against expected 5 works with exact, numeric and within alike.
 * Leaves compare JSON values with their types (fields_types.c): exact and
 * every operator that does not normalize scores 0 when expected and observed
 * are of different JSON types (1 against "1", true against "true", null
 * against "null"), with the note "type mismatch: expected number, observed
 * string"; numbers compare as numbers (1 equals 1.0).  numeric and within
 * read a numeric string as a number, normalized_exact, name and icontains read
 * any value as its JSON text, regex and membership a non-string observed
 * value: the leaf's entry then names each conversion.
 *
 * Applying a node to an expected value E and an observed value O:
 *  - leaf: one comparison of the whole value, except that an array E is
 *    compared item by item, by position (so "tags": "exact" on ["a", "b"]);
 *  - map: E must be an object, or an array (then by position, item by item);
 *    anything else is a configuration error (ARB_ESCHEMA naming the data
 *    path and the map's path in the check).  Each mapped field present in E is
 *    compared with O's field; when O is not an object or lacks it, every leaf
 *    under E's field is missing and scores 0;
 *  - unordered X: E must be an array (else a configuration error).  Each
 *    pair (E[i], O[j]) scores the sum of X's leaf scores on it; the exact
 *    assignment (Hungarian, arb_assign_max, rectangular, deterministic ties)
 *    of greatest total pairs min(|E|, |O|) items; unmatched expected items are
 *    missed (their leaves score 0) and unmatched observed items are extra;
 *  - ordered arrays pair items by position; expected-only items are missed,
 *    observed-only items extra.
 * Leaves are counted from the expected side; unless allow_extra, each leaf X
 * would compare in an extra observed item also counts, scoring 0.  The score
 * is the mean over all counted leaves (0 with the note no_leaves when there is
 * none), so an unordered list of strings scores (sum of matched similarities)
 * / max(len(expected), len(observed)).  Without leaves, arrays that are empty
 * on both sides (and no expected array unmatched) score 1 with the note
 * "empty": two empty lists match, as the peers publish.  The verdict follows
 * threshold and fail_below as for any operator.
 *
 * The record's details: {"leaves": [{"path", "score", "record"} or {"path",
 * "score": 0, "missing" | "extra" | "depth_limit": true}; a leaf whose types
 * differ or were converted adds "types": {"expected", "observed"} (JSON type
 * names) and, when converted, "normalization": [steps] and "compared":
 * {"expected", "observed"} (the values as read)], "matchings":
 * [{"path", "pairs": [[expected index, observed index]], "missed": [...],
 * "extra": [...]}], "leaf_count": N}.  Paths join field names with '.' and
 * add [i] for array items: "" is the whole output, "[0]" an item of a root
 * array, "lineItems[2].price" a field; a matched or missed item carries its
 * expected index, an extra item its observed index.  Names are not escaped.
 *
 * Observed text that is not JSON scores 0 with json_parse_failed.  Recursion
 * stops at MAX_DEPTH levels of map and data nesting: a deeper value counts as
 * one leaf scoring 0 with a depth_limit note.  An unordered array of more
 * than MAX_CELLS item pairs is not matched (its expected leaves score 0, with
 * a note) rather than exhaust time and memory.
 *
 * Speed: the pair matrix runs each leaf check without keeping its record (one
 * reused struct arb_result, values converted to text once, fields_text.c);
 * costly leaves are run only on the pairs the matching needs (match_items);
 * only the matched pairs are run again to keep their records.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assign.h"
#include "arbiter/json.h"
#include "fields_int.h"

#define MAX_NOTES 50

/* What a pass over the data does. */
enum mode {
    MODE_SCORE, /* sum of leaf scores only: no paths, notes or records */
    MODE_BOUND, /* as MODE_SCORE, but a costly leaf adds its upper bound 1 unrun */
    MODE_CHECK, /* walk the expected side to find configuration errors */
    MODE_RECORD /* everything: counts, paths, notes and per-leaf records */
};

enum side { SIDE_EXPECTED, SIDE_OBSERVED };

struct run {
    const struct fields_priv *fp;
    struct arb_result *res;    /* the fields record (notes) */
    struct arb_result scratch; /* leaf runs whose record is not kept */
    struct text_cache texts;   /* observed and expected values as text */
    struct arb_buf path;       /* data path of the current value (not in MODE_SCORE) */
    cJSON *leaves, *matchings;
    size_t n_notes;
    size_t empty_agreed, empty_unmatched; /* empty expected arrays, by what was observed */
    int depth_noted;
    struct arb_err *err;
};

struct tally {
    double sum;  /* leaf scores (an upper bound of them when inexact) */
    size_t n;    /* leaves counted (only in MODE_CHECK and MODE_RECORD) */
    int inexact; /* MODE_BOUND left a costly leaf unrun */
};

/* Modes that keep no path, note or record. */
static int quiet(enum mode mode)
{
    return mode == MODE_SCORE || mode == MODE_BOUND;
}

static enum arb_status apply(struct run *x, const struct node *nd, const cJSON *e, const cJSON *o,
                             enum mode mode, int depth, struct tally *t);

/* ---- small helpers ------------------------------------------------------------------- */

static const char *path_str(const struct run *x)
{
    return x->path.ptr ? x->path.ptr : "";
}

/* Where a path is shown in a message: the root has no name of its own. */
static const char *path_shown(const struct run *x)
{
    return x->path.len ? x->path.ptr : "(the whole output)";
}

static enum arb_status push_field(struct run *x, enum mode mode, const char *name)
{
    enum arb_status st = ARB_OK;

    if (quiet(mode))
        return ARB_OK;
    if (x->path.len)
        st = arb_buf_addc(&x->path, '.');
    return st ? st : arb_buf_adds(&x->path, name);
}

static enum arb_status push_index(struct run *x, enum mode mode, size_t i)
{
    if (quiet(mode))
        return ARB_OK;
    return arb_buf_printf(&x->path, "[%zu]", i);
}

static void pop_to(struct run *x, size_t mark)
{
    if (x->path.ptr && mark <= x->path.len) {
        x->path.len = mark;
        x->path.ptr[mark] = '\0';
    }
}

static const char *type_name(const cJSON *v)
{
    if (cJSON_IsObject(v))
        return "an object";
    if (cJSON_IsArray(v))
        return "an array";
    if (cJSON_IsString(v))
        return "a string";
    if (cJSON_IsNumber(v))
        return "a number";
    if (cJSON_IsBool(v))
        return "a boolean";
    return "null";
}

/* A note on the fields record, at most MAX_NOTES of them (then one saying so). */
static enum arb_status note(struct run *x, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static enum arb_status note(struct run *x, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    if (x->n_notes > MAX_NOTES)
        return ARB_OK;
    if (x->n_notes++ == MAX_NOTES)
        return result_note(x->res, "more notes omitted");
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return result_note(x->res, msg);
}

static enum arb_status shape_error(struct run *x, const struct node *nd, const cJSON *v,
                                   enum mode mode)
{
    const char *want =
        nd->kind == NODE_MAP ? "a map of fields (for an object)" : "unordered (for an array)";

    if (quiet(mode)) /* cannot happen: MODE_CHECK ran first */
        return arb_err_set(x->err, ARB_ESCHEMA, "%s: the map does not fit the expected value",
                           nd->cfg_path);
    return arb_err_set(x->err, ARB_ESCHEMA,
                       "%s: the comparator here is %s but the expected value at '%s' is %s",
                       nd->cfg_path, want, path_shown(x), type_name(v));
}

/* The text a leaf check sees for value v (valid while the run lasts). */
static enum arb_status observed_text(struct run *x, const cJSON *v, const char **s, size_t *n)
{
    return text_cache_get(&x->texts, v, s, n, x->err);
}

/* ---- leaves without a counterpart ---------------------------------------------------- */

/* One leaf entry in the details (*out, when not NULL); takes record (may be NULL). */
static enum arb_status emit(struct run *x, const char *flag, double score, cJSON *record,
                            cJSON **out)
{
    cJSON *e = cJSON_CreateObject();

    if (out)
        *out = e;
    if (!e) {
        cJSON_Delete(record);
        return ARB_ENOMEM;
    }
    cJSON_AddItemToArray(x->leaves, e);
    if (!cJSON_AddStringToObject(e, "path", path_str(x)) ||
        (flag && !cJSON_AddTrueToObject(e, flag)) || !cJSON_AddNumberToObject(e, "score", score)) {
        cJSON_Delete(record);
        return ARB_ENOMEM;
    }
    if (record)
        cJSON_AddItemToObject(e, "record", record);
    return ARB_OK;
}

/* A value nested deeper than MAX_DEPTH: one leaf scoring 0. */
static enum arb_status too_deep(struct run *x, enum mode mode, struct tally *t)
{
    enum arb_status st;

    t->n++;
    if (mode != MODE_RECORD)
        return ARB_OK;
    if (!x->depth_noted) {
        x->depth_noted = 1;
        st = note(x,
                  "depth_limit: values nested deeper than 200 levels are not compared "
                  "(first at '%s'); each counts as one leaf scoring 0",
                  path_shown(x));
        if (st)
            return st;
    }
    return emit(x, "depth_limit", 0.0, NULL, NULL);
}

/*
 * Count (and in MODE_RECORD list) the leaves nd would compare in v, each
 * scoring 0: an expected value without an observed counterpart (missing) or
 * an observed item without an expected one (extra).  On the expected side a
 * map that does not fit v is a configuration error; on the observed side the
 * misfit counts as one leaf.
 */
static enum arb_status walk(struct run *x, const struct node *nd, const cJSON *v, enum side side,
                            enum mode mode, int depth, struct tally *t)
{
    const char *flag = side == SIDE_EXPECTED ? "missing" : "extra";
    const cJSON *item;
    enum arb_status st = ARB_OK;
    size_t i = 0, mark = x->path.len;

    if (depth > MAX_DEPTH)
        return too_deep(x, mode, t);
    if (cJSON_IsArray(v) && !v->child && side == SIDE_EXPECTED && mode == MODE_RECORD)
        x->empty_unmatched++;
    if (cJSON_IsArray(v)) {
        const struct node *sub = nd->kind == NODE_UNORDERED ? nd->kids[0] : nd;

        cJSON_ArrayForEach(item, v)
        {
            st = push_index(x, mode, i++);
            if (!st)
                st = walk(x, sub, item, side, mode, depth + 1, t);
            pop_to(x, mark);
            if (st)
                return st;
        }
        return ARB_OK;
    }
    if (nd->kind == NODE_MAP && cJSON_IsObject(v)) {
        for (i = 0; i < nd->n && !st; i++) {
            item = cJSON_GetObjectItemCaseSensitive(v, nd->names[i]);
            if (!item)
                continue;
            st = push_field(x, mode, nd->names[i]);
            if (!st)
                st = walk(x, nd->kids[i], item, side, mode, depth + 1, t);
            pop_to(x, mark);
        }
        return st;
    }
    if (nd->kind != NODE_LEAF && side == SIDE_EXPECTED)
        return shape_error(x, nd, v, mode);
    t->n++;
    return mode == MODE_RECORD ? emit(x, flag, 0.0, NULL, NULL) : ARB_OK;
}

/* Missing or extra leaves count only when the total is being kept. */
static enum arb_status unpaired(struct run *x, const struct node *nd, const cJSON *v,
                                enum side side, enum mode mode, int depth, struct tally *t)
{
    if (quiet(mode) || (side == SIDE_OBSERVED && x->fp->allow_extra))
        return ARB_OK;
    return walk(x, nd, v, side, mode, depth, t);
}

/* An empty expected array: whether the observed value agrees (two empty lists match). */
static void count_empty(struct run *x, const cJSON *e, const cJSON *o, enum mode mode)
{
    if (mode != MODE_RECORD || e->child)
        return;
    if (cJSON_IsArray(o) && (!o->child || x->fp->allow_extra))
        x->empty_agreed++;
    else
        x->empty_unmatched++;
}

/* ---- comparisons --------------------------------------------------------------------- */

/*
 * A leaf whose values are of types its operator does not read as each other
 * (fields_types.c): score 0 without running the check, and a record saying so.
 */
static enum arb_status mismatched(struct run *x, const struct node *nd, const struct leaf_types *lt,
                                  const cJSON *e, const cJSON *o, enum mode mode, struct tally *t)
{
    struct arb_result r;
    char msg[96];
    double score = nd->check->negate ? 1.0 : 0.0;
    cJSON *rec, *entry = NULL;
    enum arb_status st;

    t->sum += score;
    t->n++;
    if (mode != MODE_RECORD)
        return ARB_OK;
    snprintf(msg, sizeof(msg), "type mismatch: expected %s, observed %s",
             leaf_json_type(leaf_expected(nd, e)), leaf_json_type(o));
    arb_result_init(&r);
    st = arb_check_fail(nd->check, e, msg, &r);
    if (!st)
        st = observed_text(x, o, &r.observed, &r.observed_len);
    if (!st && nd->check->negate) {
        r.score = 1.0;
        r.verdict = ARB_PASS;
    }
    rec = st ? NULL : arb_result_to_cjson(&r);
    if (!st)
        st = rec ? emit(x, NULL, score, rec, &entry) : ARB_ENOMEM;
    if (!st)
        st = leaf_types_record(nd, lt, e, o, &x->texts, entry, x->err);
    arb_result_release(&r);
    return st;
}

/* A leaf in MODE_RECORD: its own record, kept in the details with what the type rule did. */
static enum arb_status leaf_record(struct run *x, const struct node *nd, const cJSON *e,
                                   const cJSON *o, const struct leaf_types *lt, struct tally *t)
{
    struct arb_result r;
    cJSON *rec, *entry = NULL;
    const char *s;
    size_t n;
    enum arb_status st = observed_text(x, o, &s, &n);

    if (st)
        return st;
    arb_result_init(&r);
    st = arb_check_run(nd->check, s, n, e, &r, x->err);
    if (st) {
        arb_result_release(&r);
        return arb_err_prefix(x->err, st, "%s (at '%s')", nd->cfg_path, path_shown(x));
    }
    t->sum += r.score;
    t->n++;
    /* an object or array leaf reached the operator as its RFC 8785 text: say so */
    if (cJSON_IsObject(o) || cJSON_IsArray(o))
        result_norm_side(&r, "observed_as_json_text", ARB_SIDE_OBSERVED);
    if (r.limited) {
        /* A leaf a resource limit stopped has no score: the whole map is unresolved. */
        x->res->limited = 1;
        st = note(x, "unresolved: a resource limit stopped the leaf at '%s'", path_shown(x));
    }
    if (!st) {
        rec = arb_result_to_cjson(&r);
        st = rec ? emit(x, NULL, r.score, rec, &entry) : ARB_ENOMEM;
    }
    if (!st)
        st = leaf_types_record(nd, lt, e, o, &x->texts, entry, x->err);
    arb_result_release(&r);
    return st;
}

static enum arb_status leaf(struct run *x, const struct node *nd, const cJSON *e, const cJSON *o,
                            enum mode mode, struct tally *t)
{
    struct leaf_types lt;
    const char *s;
    size_t n;
    enum arb_status st;

    lt.mismatch = 0;
    lt.n_steps = 0;
    if (!leaf_types_trivial(nd, e, o))
        leaf_types_decide(nd, e, o, &lt);
    if (lt.mismatch)
        return mismatched(x, nd, &lt, e, o, mode, t);
    if (mode == MODE_RECORD)
        return leaf_record(x, nd, e, o, &lt, t);
    if (mode == MODE_BOUND && !nd->cheap) {
        t->sum += 1.0;
        t->inexact = 1;
        return ARB_OK;
    }
    st = observed_text(x, o, &s, &n);
    if (st)
        return st;
    if (nd->plain_exact) {
        const char *es;
        size_t en;

        /* exact's own rule (expected_text is observed_text's rule), minus the record */
        st = observed_text(x, e, &es, &en);
        if (!st)
            t->sum += en == n && memcmp(es, s, n) == 0 ? 1.0 : 0.0;
        return st;
    }
    st = arb_check_run(nd->check, s, n, e, &x->scratch, x->err);
    if (st)
        return arb_err_prefix(x->err, st, "%s", nd->cfg_path);
    x->res->limited |= x->scratch.limited; /* a limit is never a score: see below */
    t->sum += x->scratch.score;
    t->n++;
    return ARB_OK;
}

static enum arb_status map(struct run *x, const struct node *nd, const cJSON *e, const cJSON *o,
                           enum mode mode, int depth, struct tally *t)
{
    size_t i, mark = x->path.len;
    int o_obj = cJSON_IsObject(o);
    enum arb_status st = ARB_OK;

    if (!o_obj && mode == MODE_RECORD)
        st = note(x, "missing: the observed value at '%s' is not an object", path_shown(x));
    for (i = 0; i < nd->n && !st; i++) {
        const cJSON *ev = cJSON_GetObjectItemCaseSensitive(e, nd->names[i]);
        const cJSON *ov;

        if (!ev)
            continue;
        ov = o_obj ? cJSON_GetObjectItemCaseSensitive(o, nd->names[i]) : NULL;
        st = push_field(x, mode, nd->names[i]);
        if (!st && !ov && o_obj && mode == MODE_RECORD)
            st = note(x, "missing: no observed value at '%s'", path_str(x));
        if (!st)
            st = ov ? apply(x, nd->kids[i], ev, ov, mode, depth + 1, t)
                    : unpaired(x, nd->kids[i], ev, SIDE_EXPECTED, mode, depth + 1, t);
        pop_to(x, mark);
    }
    return st;
}

/* nd (a leaf or a map) applied to the items of e and o by position. */
static enum arb_status ordered(struct run *x, const struct node *nd, const cJSON *e, const cJSON *o,
                               enum mode mode, int depth, struct tally *t)
{
    const cJSON *ei = e->child, *oi = cJSON_IsArray(o) ? o->child : NULL;
    size_t i = 0, mark = x->path.len;
    enum arb_status st = ARB_OK;

    count_empty(x, e, o, mode);
    if (!cJSON_IsArray(o) && mode == MODE_RECORD)
        st = note(x, "missing: the observed value at '%s' is not an array", path_shown(x));
    for (; !st && ei; ei = ei->next, i++) {
        st = push_index(x, mode, i);
        if (!st)
            st = oi ? apply(x, nd, ei, oi, mode, depth + 1, t)
                    : unpaired(x, nd, ei, SIDE_EXPECTED, mode, depth + 1, t);
        pop_to(x, mark);
        oi = oi ? oi->next : NULL;
    }
    for (; !st && oi; oi = oi->next, i++) {
        st = push_index(x, mode, i);
        if (!st)
            st = unpaired(x, nd, oi, SIDE_OBSERVED, mode, depth + 1, t);
        pop_to(x, mark);
    }
    return st;
}

static enum arb_status score_pair(struct run *x, const struct node *item, struct pairs *p, size_t i,
                                  size_t j, enum mode mode, int depth)
{
    struct tally pt = {0.0, 0, 0};
    enum arb_status st = apply(x, item, p->ev[i], p->ov[j], mode, depth + 1, &pt);

    p->m[i * p->no + j] = pt.sum;
    p->inexact[i * p->no + j] = (unsigned char)pt.inexact;
    return st;
}

/*
 * Every pair scored in MODE_BOUND.  For items compared with a map of fields,
 * each item's fields are looked up once rather than once per pair (the same
 * as map() does in a quiet mode: absent fields add nothing).
 */
static enum arb_status fill_bounds(struct run *x, const struct node *item, struct pairs *p,
                                   int depth)
{
    const cJSON **ef, **of;
    size_t i, j, f, k = item->n;
    enum arb_status st = ARB_OK;

    if (item->kind != NODE_MAP) {
        for (i = 0; i < p->ne && !st; i++)
            for (j = 0; j < p->no && !st; j++)
                st = score_pair(x, item, p, i, j, MODE_BOUND, depth);
        return st;
    }
    ef = calloc(p->ne * k + 1, sizeof(*ef));
    of = calloc(p->no * k + 1, sizeof(*of));
    if (!ef || !of)
        st = ARB_ENOMEM;
    for (i = 0; !st && i < p->ne; i++)
        for (f = 0; f < k && cJSON_IsObject(p->ev[i]); f++)
            ef[i * k + f] = cJSON_GetObjectItemCaseSensitive(p->ev[i], item->names[f]);
    for (j = 0; !st && j < p->no; j++)
        for (f = 0; f < k && cJSON_IsObject(p->ov[j]); f++)
            of[j * k + f] = cJSON_GetObjectItemCaseSensitive(p->ov[j], item->names[f]);
    for (i = 0; i < p->ne && !st; i++) {
        if (!cJSON_IsObject(p->ev[i])) { /* an array of objects: map() decides */
            for (j = 0; j < p->no && !st; j++)
                st = score_pair(x, item, p, i, j, MODE_BOUND, depth);
            continue;
        }
        for (j = 0; j < p->no && !st; j++) {
            struct tally pt = {0.0, 0, 0};

            for (f = 0; f < k && !st; f++)
                if (ef[i * k + f] && of[j * k + f])
                    st = apply(x, item->kids[f], ef[i * k + f], of[j * k + f], MODE_BOUND,
                               depth + 2, &pt);
            p->m[i * p->no + j] = pt.sum;
            p->inexact[i * p->no + j] = (unsigned char)pt.inexact;
        }
    }
    free(ef);
    free(of);
    return st;
}

/*
 * Fill p->row_to_col with the best matching of expected to observed items.
 * The matrix starts as upper bounds (MODE_BOUND: costly leaves count 1 unrun);
 * the assignment that is best for the bounds is optimal for the true scores
 * as soon as every pair it uses is exact, since no other assignment's true
 * total can exceed its bound.  So the pairs it uses are scored exactly and the
 * matrix solved again, for at most MAX_ROUNDS rounds; then every remaining
 * pair is scored exactly and solved once more.  With exact_needed 0 (inside a
 * bound) one solve on the bounds is enough: its total bounds the true one.
 */
#define MAX_ROUNDS 8

static enum arb_status match_items(struct run *x, const struct node *item, struct pairs *p,
                                   int exact_needed, int depth)
{
    size_t i, j, n = p->ne * p->no, refined = 1, round;
    int any_inexact = 0;
    enum arb_status st = ARB_OK;

    st = fill_bounds(x, item, p, depth);
    for (i = 0; i < n; i++)
        any_inexact |= p->inexact[i];
    if (!st && any_inexact && exact_needed) {
        for (round = 0; round < MAX_ROUNDS && refined && !st; round++) {
            st = arb_assign_max(p->m, p->ne, p->no, p->row_to_col, NULL, x->err);
            for (i = 0, refined = 0; i < p->ne && !st; i++) {
                j = p->row_to_col[i];
                if (j != ARB_ASSIGN_NONE && p->inexact[i * p->no + j]) {
                    st = score_pair(x, item, p, i, j, MODE_SCORE, depth);
                    refined++;
                }
            }
        }
        if (!refined)
            return st; /* the last solve used exact pairs only */
        for (i = 0; i < p->ne && !st; i++)
            for (j = 0; j < p->no && !st; j++)
                if (p->inexact[i * p->no + j])
                    st = score_pair(x, item, p, i, j, MODE_SCORE, depth);
    }
    if (!st)
        st = arb_assign_max(p->m, p->ne, p->no, p->row_to_col, NULL, x->err);
    return st;
}

static enum arb_status unordered(struct run *x, const struct node *nd, const cJSON *e,
                                 const cJSON *o, enum mode mode, int depth, struct tally *t)
{
    const struct node *item = nd->kids[0];
    struct pairs p;
    size_t i, j, mark = x->path.len;
    unsigned char *used = NULL;
    enum arb_status st;

    if (!cJSON_IsArray(e))
        return shape_error(x, nd, e, mode);
    count_empty(x, e, o, mode);
    st = pairs_init(&p, e, o);
    if (st == ARB_ETOOBIG) {
        p.no = 0; /* nothing matched, and the observed items are not counted either */
        st = mode == MODE_RECORD
                 ? note(x,
                        "input_too_large: the unordered array at '%s' has too many item "
                        "pairs to match (limit 4,000,000); its expected items score 0",
                        path_shown(x))
                 : ARB_OK;
    } else if (!st && !cJSON_IsArray(o) && mode == MODE_RECORD) {
        st = note(x, "missing: the observed value at '%s' is not an array", path_shown(x));
    } else if (!st && p.ne && p.no) {
        st = match_items(x, item, &p, mode != MODE_BOUND, depth);
    }
    if (!st && quiet(mode)) { /* the matrix already holds the pairs' scores */
        for (i = 0; i < p.ne; i++) {
            j = p.row_to_col[i];
            if (j != ARB_ASSIGN_NONE) {
                t->sum += p.m[i * p.no + j];
                t->inexact |= p.inexact[i * p.no + j];
            }
        }
        goto out;
    }
    used = calloc(p.no + 1, 1);
    if (!st && !used)
        st = ARB_ENOMEM;
    for (i = 0; !st && i < p.ne; i++)
        if (p.row_to_col[i] != ARB_ASSIGN_NONE)
            used[p.row_to_col[i]] = 1;
    if (!st && mode == MODE_RECORD && cJSON_IsArray(o))
        st = record_matching(x->matchings, path_str(x), p.row_to_col, p.ne, used, p.no);
    for (i = 0; !st && i < p.ne; i++) {
        st = push_index(x, mode, i);
        if (!st)
            st = p.row_to_col[i] != ARB_ASSIGN_NONE
                     ? apply(x, item, p.ev[i], p.ov[p.row_to_col[i]], mode, depth + 1, t)
                     : unpaired(x, item, p.ev[i], SIDE_EXPECTED, mode, depth + 1, t);
        pop_to(x, mark);
    }
    for (i = 0; !st && i < p.no; i++) {
        if (used[i])
            continue;
        st = push_index(x, mode, i);
        if (!st)
            st = unpaired(x, item, p.ov[i], SIDE_OBSERVED, mode, depth + 1, t);
        pop_to(x, mark);
    }
out:
    free(used);
    pairs_release(&p);
    return st;
}

static enum arb_status apply(struct run *x, const struct node *nd, const cJSON *e, const cJSON *o,
                             enum mode mode, int depth, struct tally *t)
{
    if (depth > MAX_DEPTH)
        return too_deep(x, mode, t);
    if (nd->kind == NODE_UNORDERED)
        return unordered(x, nd, e, o, mode, depth, t);
    if (cJSON_IsArray(e))
        return ordered(x, nd, e, o, mode, depth, t);
    if (nd->kind == NODE_LEAF)
        return leaf(x, nd, e, o, mode, t);
    if (!cJSON_IsObject(e))
        return shape_error(x, nd, e, mode);
    return map(x, nd, e, o, mode, depth, t);
}

/* ---- the operator -------------------------------------------------------------------- */

static void run_release(struct run *x)
{
    text_cache_release(&x->texts);
    arb_result_release(&x->scratch);
    arb_buf_release(&x->path);
    cJSON_Delete(x->leaves);
    cJSON_Delete(x->matchings);
}

/* Move the per-leaf records and matchings into res->details. */
static enum arb_status finish_details(struct run *x, struct arb_result *res, size_t n)
{
    cJSON *d = cJSON_CreateObject();

    if (!d)
        return ARB_ENOMEM;
    cJSON_AddItemToObject(d, "leaves", x->leaves);
    x->leaves = NULL;
    cJSON_AddItemToObject(d, "matchings", x->matchings);
    x->matchings = NULL;
    res->details = d;
    return cJSON_AddNumberToObject(d, "leaf_count", (double)n) ? ARB_OK : ARB_ENOMEM;
}

OP_RUN(op_fields_run)
{
    const struct fields_priv *fp = c->priv;
    cJSON *owned = NULL, *doc = NULL;
    const cJSON *e = expected_json(in->expected, &owned);
    struct run x;
    struct tally t = {0.0, 0, 0};
    enum arb_status st;

    memset(&x, 0, sizeof(x));
    x.fp = fp;
    x.res = res;
    x.err = in->err;
    arb_result_init(&x.scratch);
    arb_buf_init(&x.path, 0);
    /* Configuration errors first, so they do not depend on the observed text. */
    st = walk(&x, fp->root, e, SIDE_EXPECTED, MODE_CHECK, 0, &t);
    pop_to(&x, 0);
    if (!st)
        st = observed_json(in, res, &doc);
    if (st || !doc)
        goto out;
    x.leaves = cJSON_CreateArray();
    x.matchings = cJSON_CreateArray();
    if (!x.leaves || !x.matchings) {
        st = ARB_ENOMEM;
        goto out;
    }
    t.sum = 0.0;
    t.n = 0;
    st = apply(&x, fp->root, e, doc, MODE_RECORD, 0, &t);
    if (!st)
        st = finish_details(&x, res, t.n);
    if (!st && t.n == 0 && x.empty_agreed && !x.empty_unmatched) {
        res->score = 1.0; /* as the peers publish: two empty lists match */
        st = result_note(res, "empty: every array compared is empty on both sides");
    } else if (!st && t.n == 0) {
        st = result_note(res, "no_leaves: the map selects no field present in expected");
    }
    if (!st && t.n)
        res->score = t.sum / (double)t.n;
out:
    run_release(&x);
    cJSON_Delete(doc);
    cJSON_Delete(owned);
    return st;
}
