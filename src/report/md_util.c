/*
 * md_util.c - the markdown writers' shared cells and text (md_int.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "md_int.h"

double md_num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

const char *md_str(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

    return cJSON_IsString(v) ? v->valuestring : "";
}

void md_cell(char *out, size_t len, double v, int decimals, int percent)
{
    if (isnan(v))
        snprintf(out, len, "-");
    else if (percent)
        snprintf(out, len, "%.*f%%", decimals, 100.0 * v);
    else
        snprintf(out, len, "%.*f", decimals, v);
}

void md_ci(char *out, size_t len, const cJSON *iv, int decimals, int percent)
{
    char lo[32], hi[32];

    if (!cJSON_IsArray(iv) || cJSON_GetArraySize(iv) != 2) {
        snprintf(out, len, "-");
        return;
    }
    md_cell(lo, sizeof(lo), cJSON_GetArrayItem(iv, 0)->valuedouble, decimals, percent);
    md_cell(hi, sizeof(hi), cJSON_GetArrayItem(iv, 1)->valuedouble, decimals, percent);
    snprintf(out, len, "[%s, %s]", lo, hi);
}

/* The first n bytes of s, table-safe. */
static enum arb_status text_n(struct arb_buf *out, const char *s, size_t n)
{
    enum arb_status st = ARB_OK;
    size_t i;

    for (i = 0; !st && i < n; i++) {
        if (s[i] == '|')
            st = arb_buf_add(out, "\\|", 2);
        else if (s[i] == '\n' || s[i] == '\r')
            st = arb_buf_addc(out, ' ');
        else
            st = arb_buf_addc(out, s[i]);
    }
    return st;
}

enum arb_status md_text(struct arb_buf *out, const char *s)
{
    return text_n(out, s, strlen(s));
}

enum arb_status md_text_cut(struct arb_buf *out, const char *s, size_t max)
{
    size_t n = strlen(s);
    enum arb_status st;

    if (n <= max)
        return text_n(out, s, n);
    while (max && ((unsigned char)s[max] & 0xC0) == 0x80)
        max--;
    st = text_n(out, s, max);
    return st ? st : arb_buf_adds(out, " [...]");
}
