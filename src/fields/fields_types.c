/*
 * fields_types.c - the type rule of the fields operator's leaves.  A leaf
 * compares JSON values with their types: 1 is not "1", true is not "true",
 * null is not "null" (numbers compare as numbers, so 1 equals 1.0).  An
 * operator that normalizes may read one type as another (numeric and within
 * read a numeric string as a number; normalized_exact, name and icontains read
 * any value as its JSON text; regex and membership read a non-string observed
 * value as its JSON text), and the leaf's details entry then names each
 * conversion and the values as read.  Any other mismatch scores the leaf 0
 * with a note.  Running the leaf is fields.c's job; this file only decides
 * and records.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fields_int.h"

static const struct {
    const char *op;
    enum leaf_typing typing;
} typing_table[] = {
    {"numeric", TYPING_NUMBER},
    {"within", TYPING_NUMBER},
    {"normalized_exact", TYPING_TEXT},
    {"name", TYPING_TEXT},
    {"icontains", TYPING_TEXT},
    {"regex", TYPING_PATTERN},
    {"membership", TYPING_PATTERN},
    /* operators that read JSON structure, a schema or child checks: their own rules */
    {"json_valid", TYPING_NONE},
    {"json_schema", TYPING_NONE},
    {"fields", TYPING_NONE},
    {"top_k", TYPING_NONE},
    {"trajectory_exact", TYPING_NONE},
    {"trajectory_in_order", TYPING_NONE},
    {"trajectory_any_order", TYPING_NONE},
    {"all", TYPING_NONE},
    {"any", TYPING_NONE},
    {"k_of_n", TYPING_NONE},
    {"weighted_mean", TYPING_NONE},
};

/* Any operator not listed does not normalize (exact, contains, levenshtein, json_match, ...). */
enum leaf_typing leaf_typing_of(const struct arb_check *c)
{
    size_t i;

    if (c->extract != EXTRACT_NONE) /* it compares a part of the text, not the JSON value */
        return TYPING_NONE;
    for (i = 0; i < sizeof(typing_table) / sizeof(typing_table[0]); i++)
        if (strcmp(typing_table[i].op, arb_check_op(c)) == 0)
            return typing_table[i].typing;
    return TYPING_STRICT;
}

const char *leaf_json_type(const cJSON *v)
{
    if (cJSON_IsString(v))
        return "string";
    if (cJSON_IsNumber(v))
        return "number";
    if (cJSON_IsBool(v))
        return "boolean";
    if (cJSON_IsObject(v))
        return "object";
    if (cJSON_IsArray(v))
        return "array";
    return "null";
}

/* The conversion of a non-string value to its JSON text. */
static const char *to_string_step(const cJSON *v)
{
    if (cJSON_IsNumber(v))
        return "number_to_string";
    if (cJSON_IsBool(v))
        return "boolean_to_string";
    if (cJSON_IsObject(v))
        return "object_to_string";
    if (cJSON_IsArray(v))
        return "array_to_string";
    return "null_to_string";
}

static void add_step(struct leaf_types *lt, const char *step, unsigned char side)
{
    size_t i;

    for (i = 0; i < lt->n_steps; i++) {
        if (lt->steps[i] == step) {
            lt->side[i] |= side;
            return;
        }
    }
    if (lt->n_steps < sizeof(lt->steps) / sizeof(lt->steps[0])) {
        lt->steps[lt->n_steps] = step;
        lt->side[lt->n_steps++] = side;
    }
}

static int same_type(const cJSON *a, const cJSON *b)
{
    /* cJSON's true and false are two types; JSON has one boolean */
    if (cJSON_IsBool(a) || cJSON_IsBool(b))
        return cJSON_IsBool(a) && cJSON_IsBool(b);
    return (a->type & 0xFF) == (b->type & 0xFF);
}

static int number_or_string(const cJSON *v)
{
    return cJSON_IsNumber(v) || cJSON_IsString(v);
}

const cJSON *leaf_expected(const struct node *nd, const cJSON *e)
{
    return nd->check->expected ? nd->check->expected : e;
}

void leaf_types_decide(const struct node *nd, const cJSON *e, const cJSON *o, struct leaf_types *lt)
{
    const cJSON *ev = leaf_expected(nd, e);

    memset(lt, 0, sizeof(*lt));
    switch (nd->typing) {
    case TYPING_STRICT:
        lt->mismatch = !same_type(ev, o);
        return;
    case TYPING_NUMBER:
        if (!same_type(ev, o) && !(number_or_string(ev) && number_or_string(o))) {
            lt->mismatch = 1;
            return;
        }
        if (cJSON_IsString(ev))
            add_step(lt, "string_to_number", 1);
        if (cJSON_IsString(o))
            add_step(lt, "string_to_number", 2);
        return;
    case TYPING_TEXT:
        if (!cJSON_IsString(ev))
            add_step(lt, to_string_step(ev), 1);
        if (!cJSON_IsString(o))
            add_step(lt, to_string_step(o), 2);
        return;
    case TYPING_PATTERN:
        if (!cJSON_IsString(o))
            add_step(lt, to_string_step(o), 2);
        return;
    case TYPING_NONE:
        return;
    }
}

/* The side's conversion in lt, or NULL. */
static const char *step_of(const struct leaf_types *lt, unsigned char side)
{
    size_t i;

    for (i = 0; i < lt->n_steps; i++)
        if (lt->side[i] & side)
            return lt->steps[i];
    return NULL;
}

/* A numeric string as the number it spells when it is plain JSON number text, else NULL. */
static cJSON *plain_number(const char *s)
{
    char *end;
    double d;

    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    if (!(*s == '-' || (*s >= '0' && *s <= '9')))
        return NULL; /* strtod would also take "inf", "0x1p3" and a leading '+' */
    d = strtod(s, &end);
    while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
        end++;
    if (*end || !isfinite(d) || strpbrk(s, "xXpP"))
        return NULL;
    return cJSON_CreateNumber(d);
}

/* Value v as the operator read it, after step (NULL: as it is). */
static enum arb_status read_as(const cJSON *v, const char *step, struct text_cache *tc, cJSON **out,
                               struct arb_err *err)
{
    const char *s;
    size_t n;
    enum arb_status st;
    char *copy;

    *out = NULL;
    if (step && strcmp(step, "string_to_number") == 0)
        *out = plain_number(v->valuestring);
    if (*out)
        return ARB_OK;
    if (!step || strcmp(step, "string_to_number") == 0) {
        *out = cJSON_Duplicate(v, 1);
        return *out ? ARB_OK : ARB_ENOMEM;
    }
    st = text_cache_get(tc, v, &s, &n, err);
    if (st)
        return st;
    copy = malloc(n + 1);
    if (!copy)
        return ARB_ENOMEM;
    memcpy(copy, s, n);
    copy[n] = '\0';
    *out = cJSON_CreateString(copy);
    free(copy);
    return *out ? ARB_OK : ARB_ENOMEM;
}

static enum arb_status add_pair(cJSON *entry, const char *key, cJSON *ev, cJSON *ov)
{
    cJSON *pair = cJSON_CreateObject();

    if (!pair || !cJSON_AddItemToObject(entry, key, pair)) {
        cJSON_Delete(pair);
        cJSON_Delete(ev);
        cJSON_Delete(ov);
        return ARB_ENOMEM;
    }
    if (!ev || !cJSON_AddItemToObject(pair, "expected", ev)) {
        cJSON_Delete(ev);
        cJSON_Delete(ov);
        return ARB_ENOMEM;
    }
    if (!ov || !cJSON_AddItemToObject(pair, "observed", ov)) {
        cJSON_Delete(ov);
        return ARB_ENOMEM;
    }
    return ARB_OK;
}

enum arb_status leaf_types_record(const struct node *nd, const struct leaf_types *lt,
                                  const cJSON *e, const cJSON *o, struct text_cache *tc,
                                  cJSON *entry, struct arb_err *err)
{
    const cJSON *ev = leaf_expected(nd, e);
    cJSON *steps, *ce = NULL, *co = NULL;
    enum arb_status st;
    size_t i;

    if (!lt->mismatch && !lt->n_steps)
        return ARB_OK;
    st = add_pair(entry, "types", cJSON_CreateString(leaf_json_type(ev)),
                  cJSON_CreateString(leaf_json_type(o)));
    if (st || lt->mismatch)
        return st;
    steps = cJSON_AddArrayToObject(entry, "normalization");
    if (!steps)
        return ARB_ENOMEM;
    for (i = 0; i < lt->n_steps; i++)
        if (!cJSON_AddItemToArray(steps, cJSON_CreateString(lt->steps[i])))
            return ARB_ENOMEM;
    st = read_as(ev, step_of(lt, 1), tc, &ce, err);
    if (!st)
        st = read_as(o, step_of(lt, 2), tc, &co, err);
    if (st) {
        cJSON_Delete(ce);
        return st;
    }
    return add_pair(entry, "compared", ce, co);
}
