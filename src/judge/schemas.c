/*
 * schemas.c - the reply schemas of a judge's questions, built and compiled once for all the
 * questions that ask for the same one (engine.h: struct judge_schemas).
 *
 * Every pairwise question of a rubric asks for the same reply schema, and building and
 * compiling it was a sixth of what asking a question cost (issue 21: at concurrency 64 the
 * first round's requests go out one after another, so what each costs delays the last).  The
 * pairwise schema (judge_schema, request.c) is made of nothing but whether the question asks
 * for feedback and its items' kinds and names, in order: those, written one after another,
 * are the key an entry is found by among the last JUDGE_SCHEMAS.  A single-output or template
 * question's schema is made of more; each gets an entry of its own, as before.  An entry is
 * counted by the table and by the questions that hold it; one pushed out of the table while
 * held is freed when the last of them lets go.
 */
#include <stdlib.h>
#include <string.h>

#include "engine.h"

#include "arbiter/schema.h"

static void entry_free(struct judge_schema *e)
{
    cJSON_Delete(e->tree);
    arb_schema_free(e->compiled);
    free(e->key);
    free(e);
}

/* q's schema built and compiled, as an entry held once (key taken over, also on failure). */
static enum arb_status entry_new(const struct arb_judge_question *q, char *key, size_t key_len,
                                 struct judge_schema **out, struct arb_err *err)
{
    struct judge_schema *e = calloc(1, sizeof(*e));
    enum arb_status st;

    *out = NULL;
    if (!e) {
        free(key);
        return ARB_ENOMEM;
    }
    e->key = key;
    e->key_len = key_len;
    if (!(e->tree = judge_schema(q))) {
        entry_free(e);
        return ARB_ENOMEM;
    }
    st = arb_schema_compile(e->tree, NULL, &e->compiled, err);
    if (st) {
        entry_free(e);
        return st;
    }
    e->refs = 1;
    *out = e;
    return ARB_OK;
}

/* What a pairwise question's schema is made of: feedback, then each item's kind and name. */
static char *pairwise_key(const struct arb_judge_question *q, size_t *len)
{
    size_t n = 1, i, at = 1, k;
    char *key;

    for (i = 0; i < q->n_items; i++)
        n += 2 + strlen(q->items[i].name);
    if (!(key = malloc(n)))
        return NULL;
    key[0] = q->feedback ? 'f' : '-';
    for (i = 0; i < q->n_items; i++) {
        k = strlen(q->items[i].name);
        key[at++] = (char)('0' + (int)q->items[i].kind);
        memcpy(key + at, q->items[i].name, k + 1); /* with its NUL: "ab"+"c" != "a"+"bc" */
        at += k + 1;
    }
    *len = n;
    return key;
}

enum arb_status judge_schema_get(struct judge_schemas *c, const struct arb_judge_question *q,
                                 struct judge_schema **out, struct arb_err *err)
{
    size_t len = 0, i, last = JUDGE_SCHEMAS - 1;
    struct judge_schema *e;
    enum arb_status st;
    char *key;

    *out = NULL;
    if (q->template_text || judge_is_single(q))
        return entry_new(q, NULL, 0, out, err);
    if (!(key = pairwise_key(q, &len)))
        return ARB_ENOMEM;
    for (i = 0; i < JUDGE_SCHEMAS && (e = c->slot[i]); i++) {
        if (e->key_len != len || memcmp(e->key, key, len) != 0)
            continue;
        free(key);
        memmove(c->slot + 1, c->slot, i * sizeof(c->slot[0])); /* the most recent first */
        c->slot[0] = e;
        e->refs++;
        *out = e;
        return ARB_OK;
    }
    st = entry_new(q, key, len, &e, err);
    if (st)
        return st;
    /* the least recent makes room: freed now, or by the last question holding it */
    judge_schema_put(c->slot[last]);
    memmove(c->slot + 1, c->slot, last * sizeof(c->slot[0]));
    c->slot[0] = e;
    e->refs++; /* the table's */
    *out = e;
    return ARB_OK;
}

void judge_schema_put(struct judge_schema *e)
{
    if (e && !--e->refs)
        entry_free(e);
}

void judge_schemas_release(struct judge_schemas *c)
{
    size_t i;

    for (i = 0; i < JUDGE_SCHEMAS; i++) {
        judge_schema_put(c->slot[i]);
        c->slot[i] = NULL;
    }
}
