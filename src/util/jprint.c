/*
 * jprint.c - compact JSON text of a cJSON tree, byte for byte what cJSON_PrintUnformatted
 * writes (cJSON 1.7.x: members in tree order, no white space, strings and numbers as jtext.c
 * writes them, which is as cJSON does), in a fraction of its time.
 *
 * A judge's request body and the comparison.json of every judged verdict were printed by
 * cJSON: a tenth of a judged run's instructions (issue 21), most of it spent finding room for
 * each character and printing every integer through sprintf.  jtext.c copies runs of plain
 * bytes eight at a time and gives integers and tenths their digits without printf.
 * tests/unit/test_jprint.c holds the output to cJSON's own over random trees and every kind
 * of number.
 */
#include <stdlib.h>
#include <string.h>

#include "arbiter/json.h"
#include "jtext.h"

#define MAX_DEPTH CJSON_NESTING_LIMIT

/* v's text through j; ARB_EUSAGE for what cJSON cannot print, ARB_ETOOBIG past MAX_DEPTH. */
static enum arb_status put_value(struct jtext *j, const cJSON *v, int depth)
{
    char num[JTEXT_NUMBER_MAX];
    const cJSON *c;
    int object;

    switch (v->type & 0xFF) {
    case cJSON_NULL:
        jtext_append(j, "null", 4);
        return j->st;
    case cJSON_False:
        jtext_append(j, "false", 5);
        return j->st;
    case cJSON_True:
        jtext_append(j, "true", 4);
        return j->st;
    case cJSON_Number:
        jtext_append(j, num, jtext_number(v->valuedouble, num));
        return j->st;
    case cJSON_String:
        /* cJSON prints a string without its text as "" */
        jtext_string(j, v->valuestring ? v->valuestring : "",
                     v->valuestring ? strlen(v->valuestring) : 0);
        return j->st;
    case cJSON_Raw:
        if (!v->valuestring)
            return ARB_EUSAGE;
        jtext_append(j, v->valuestring, strlen(v->valuestring));
        return j->st;
    case cJSON_Array:
    case cJSON_Object:
        break;
    default:
        return ARB_EUSAGE;
    }
    if (depth >= MAX_DEPTH)
        return ARB_ETOOBIG;
    object = (v->type & 0xFF) == cJSON_Object;
    jtext_append(j, object ? "{" : "[", 1);
    for (c = v->child; c && !j->st; c = c->next) {
        enum arb_status st;

        if (c != v->child)
            jtext_append(j, ",", 1);
        if (object) {
            jtext_string(j, c->string ? c->string : "", c->string ? strlen(c->string) : 0);
            jtext_append(j, ":", 1);
        }
        if ((st = put_value(j, c, depth + 1)))
            return st;
    }
    jtext_append(j, object ? "}" : "]", 1);
    return j->st;
}

enum arb_status arb_json_print(const cJSON *v, struct arb_buf *out)
{
    size_t at = out->len;
    struct jtext j;
    enum arb_status st;
    char *text;

    if (!v)
        return ARB_EUSAGE;
    jtext_init(&j, out);
    st = put_value(&j, v, 0);
    if (st != ARB_EUSAGE && st != ARB_ETOOBIG)
        return st;
    /* Deeper than the parser allows, or a value cJSON cannot print either: its verdict. */
    out->len = at;
    if (out->ptr)
        out->ptr[at] = '\0';
    text = cJSON_PrintUnformatted(v);
    if (!text)
        return ARB_EUSAGE;
    st = arb_buf_adds(out, text);
    cJSON_free(text);
    return st;
}

/* Copied out at its length, for a caller that keeps it (a judge's request body, held until
 * answered): the buffer, grown by doubling, holds up to twice the text. */
char *arb_json_print_string(const cJSON *v, size_t *len)
{
    struct arb_buf b;
    char *s = NULL;

    arb_buf_init(&b, 0);
    if (!arb_json_print(v, &b))
        s = arb_memdup0(b.ptr ? b.ptr : "", b.len);
    if (s && len)
        *len = b.len;
    arb_buf_release(&b);
    return s;
}
