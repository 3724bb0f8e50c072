/*
 * fields_text.c - the fields operator's cache of JSON values as text.  A leaf
 * check runs on text, and an unordered array's pair matrix asks for the same
 * value's text once per pair, so each non-string value is written in its
 * RFC 8785 form once and found again by its node's address (and so is a
 * string holding U+0000, as text with a NUL byte).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/json.h"
#include "fields_int.h"

static size_t slot_of(const cJSON *node, size_t cap)
{
    uint64_t h = (uint64_t)(uintptr_t)node * UINT64_C(0x9E3779B97F4A7C15);

    return (size_t)(h >> 32) & (cap - 1);
}

static enum arb_status grow(struct text_cache *tc)
{
    size_t cap = tc->cap ? tc->cap * 2 : 256, i;
    struct text_slot *v = calloc(cap, sizeof(*v));

    if (!v)
        return ARB_ENOMEM;
    for (i = 0; i < tc->cap; i++) {
        size_t k;

        if (!tc->v[i].node)
            continue;
        for (k = slot_of(tc->v[i].node, cap); v[k].node; k = (k + 1) & (cap - 1))
            ;
        v[k] = tc->v[i];
    }
    free(tc->v);
    tc->v = v;
    tc->cap = cap;
    return ARB_OK;
}

enum arb_status text_cache_get(struct text_cache *tc, const cJSON *v, const char **s, size_t *n,
                               struct arb_err *err)
{
    size_t k;
    enum arb_status st;

    if (cJSON_IsString(v)) {
        *s = v->valuestring;
        *n = strlen(v->valuestring);
        /* a string holding U+0000 (C0 80, json.h) is text with a NUL byte: cached below */
        if (!memchr(*s, 0xC0, *n))
            return ARB_OK;
    }
    for (k = tc->cap ? slot_of(v, tc->cap) : 0; tc->cap && tc->v[k].node;
         k = (k + 1) & (tc->cap - 1)) {
        if (tc->v[k].node == v) {
            *s = tc->v[k].text;
            *n = tc->v[k].len;
            return ARB_OK;
        }
    }
    if (2 * (tc->n + 1) > tc->cap) {
        st = grow(tc);
        if (st)
            return st;
    }
    for (k = slot_of(v, tc->cap); tc->v[k].node; k = (k + 1) & (tc->cap - 1))
        ;
    if (cJSON_IsString(v)) {
        tc->v[k].text = arb_json_text(v->valuestring, &tc->v[k].len);
        st = tc->v[k].text ? ARB_OK : ARB_ENOMEM;
    } else {
        st = arb_jcs_string(v, &tc->v[k].text, &tc->v[k].len, err);
    }
    if (st)
        return st;
    tc->v[k].node = v;
    tc->n++;
    *s = tc->v[k].text;
    *n = tc->v[k].len;
    return ARB_OK;
}

void text_cache_release(struct text_cache *tc)
{
    size_t i;

    for (i = 0; i < tc->cap; i++)
        free(tc->v[i].text);
    free(tc->v);
    memset(tc, 0, sizeof(*tc));
}
