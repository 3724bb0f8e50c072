/*
 * clean.c - the answer's JSON found in what a model wrote: reasoning models and local servers
 * wrap it in a <think> block, a code fence, a byte order mark or a sentence of prose.  What
 * is taken off is named (judge_calls.normalization), never done silently; the answer itself
 * is never changed, only found.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/json.h"
#include "judge_int.h"

static const char *skip_space(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

static void note(struct judge_reply *r, const char *step)
{
    size_t n = strlen(r->normalization);

    if (strstr(r->normalization, step))
        return;
    /* The longest list, every step once, fits: ["sse","bom","think","fence","prose"]. */
    if (n == 0)
        snprintf(r->normalization, sizeof(r->normalization), "[\"%s\"]", step);
    else
        snprintf(r->normalization + n - 1, sizeof(r->normalization) - (n - 1), ",\"%s\"]",
                 step);
}

/* After a byte order mark (U+FEFF in UTF-8) and white space, wherever a server left them. */
static const char *skip_bom(const char *p, struct judge_reply *r)
{
    for (;;) {
        p = skip_space(p);
        if ((unsigned char)p[0] != 0xEF || (unsigned char)p[1] != 0xBB ||
            (unsigned char)p[2] != 0xBF)
            return p;
        note(r, "bom");
        p += 3;
    }
}

/* Past the reasoning blocks a model wrote before its answer: <think>, <thinking>, <reasoning>;
 * NULL when one is never closed (a reply cut short: what is inside is a draft, not an answer). */
static const char *skip_think(const char *p, struct judge_reply *r)
{
    static const char *const tags[] = {"think", "thinking", "reasoning"};
    size_t i;

    for (;;) {
        const char *end = NULL;

        p = skip_bom(p, r);
        for (i = 0; i < sizeof(tags) / sizeof(tags[0]) && !end; i++) {
            size_t n = strlen(tags[i]);
            char close[24];

            if (p[0] != '<' || strncmp(p + 1, tags[i], n) != 0 || p[n + 1] != '>')
                continue;
            snprintf(close, sizeof(close), "</%s>", tags[i]);
            end = strstr(p + n + 2, close);
            if (!end)
                return NULL;
            end += strlen(close);
        }
        if (!end)
            return p;
        note(r, "think");
        p = end;
    }
}

/*
 * An object parsed from p's first JSON value, with *end after it; NULL when p holds none.
 * cJSON finds where the value ends; arb_json_parse reads it, strictly (it refuses a \u0000
 * that would silently shorten a string).
 */
static cJSON *object_at(const char *p, const char **end)
{
    cJSON *v = cJSON_ParseWithOpts(p, end, 0);
    int object = cJSON_IsObject(v);

    cJSON_Delete(v);
    v = NULL;
    if (!object || arb_json_parse(p, (size_t)(*end - p), 0, &v, NULL) != ARB_OK)
        return NULL;
    return v;
}

/* The object inside the first ``` fence of p (``` or ```json, to the closing ```), or NULL. */
static cJSON *fenced(const char *p, struct judge_reply *r)
{
    const char *open = strstr(p, "```"), *body, *close, *end = NULL;
    cJSON *v;

    if (!open)
        return NULL;
    body = strchr(open + 3, '\n');
    if (!body)
        return NULL;
    close = strstr(body, "```");
    v = object_at(skip_space(body), &end);
    if (!v)
        return NULL;
    /* Nothing but white space between the object and the closing fence. */
    if (!close || skip_space(end) != close) {
        cJSON_Delete(v);
        return NULL;
    }
    note(r, "fence");
    if (skip_space(close + 3)[0] || open != p)
        note(r, "prose");
    return v;
}

cJSON *judge_clean_answer(const char *text, struct judge_reply *r)
{
    const char *p = skip_think(text, r), *end = NULL, *q;
    cJSON *v;

    if (!p)
        return NULL;
    /* A reply that starts as JSON is the answer, whole or not at all: an object inside a cut
     * answer, or inside an array, is a fragment. */
    if (*p == '{' || *p == '[') {
        v = *p == '{' ? object_at(p, &end) : NULL;
        if (v && *skip_space(end))
            note(r, "prose"); /* a remark after the object */
        return v;
    }
    v = fenced(p, r);
    if (v)
        return v;
    /* Prose before it: the first '{' that starts an object. */
    for (q = strchr(p, '{'); q; q = strchr(q + 1, '{')) {
        v = object_at(q, &end);
        if (v) {
            note(r, "prose");
            return v;
        }
    }
    return NULL;
}
