/*
 * ops_numeric.c - numeric and within.
 *
 *  - numeric: pass when |o - e| <= atol + rtol * |e| (evalwire's
 *    numeric_tolerance, numpy.isclose's form; atol 1e-6, rtol 0 by default).
 *  - within: pass when |o - e| <= tolerance, or with "percent": true when
 *    |o - e| <= tolerance / 100 * |e| (didactic's within).
 *
 * Numbers are read from text the way people write them in outputs: optional
 * sign, currency symbols before or after, thousands separators (","), a
 * decimal point, an exponent, a trailing "%", and accounting parentheses for
 * negatives: "$1,234.50", "-€12", "(42.00)", "1.5e3", "12 %".  Anything else
 * (including words, two numbers, inf and nan) is not_a_number: score 0.
 * An expected JSON number is used as is; an expected string is read the same
 * way as the output.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/unicode.h"
#include "ops.h"

/* Skip white space and currency/other symbols (not '+', '-', digits or '.'). */
static size_t skip_decor(const char *s, size_t len, size_t i)
{
    while (i < len) {
        size_t next = i;
        uint32_t cp = arb_utf8_next(s, len, &next);

        if (cp == '+' || cp == '-' || cp == '(' || cp == ')' || cp == '.' || cp == ',' ||
            cp == '%' || (cp >= '0' && cp <= '9'))
            break;
        if (!(arb_uc_is_space(cp) || arb_uc_is_symbol(cp)))
            break;
        i = next;
    }
    return i;
}

/* Read a number from s as described in the file comment; 0 on success. */
static int read_number(const char *s, size_t len, double *out)
{
    char digits[128];
    size_t i = 0, nd = 0, int_digits = 0, group_len = 0;
    int neg = 0, paren = 0, seen_digit = 0, seen_point = 0, grouped = 0;
    char *end;

    i = skip_decor(s, len, i);
    if (i < len && s[i] == '(') {
        paren = 1;
        i = skip_decor(s, len, i + 1);
    }
    if (i < len && (s[i] == '-' || s[i] == '+')) {
        neg = s[i] == '-';
        i = skip_decor(s, len, i + 1);
    }
    for (; i < len; i++) {
        char ch = s[i];

        if (ch >= '0' && ch <= '9') {
            if (nd + 2 >= sizeof(digits))
                return -1;
            digits[nd++] = ch;
            seen_digit = 1;
            if (!seen_point) {
                int_digits++;
                group_len++;
            }
        } else if (ch == ',' && !seen_point && seen_digit) {
            /* Thousands separator: groups after the first must be three digits. */
            if (grouped && group_len != 3)
                return -1;
            if (!grouped && group_len > 3)
                return -1;
            grouped = 1;
            group_len = 0;
        } else if (ch == '.' && !seen_point) {
            if (grouped && group_len != 3)
                return -1;
            seen_point = 1;
            digits[nd++] = '.';
        } else {
            break;
        }
    }
    if (!seen_digit || (grouped && !seen_point && group_len != 3))
        return -1;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;

        if (j < len && (s[j] == '+' || s[j] == '-'))
            j++;
        if (j < len && isdigit((unsigned char)s[j])) {
            digits[nd++] = 'e';
            for (j = i + 1; j < len && (isdigit((unsigned char)s[j]) || s[j] == '+' || s[j] == '-');
                 j++) {
                if (nd + 2 >= sizeof(digits))
                    return -1;
                digits[nd++] = s[j];
            }
            i = j;
        }
    }
    digits[nd] = '\0';
    i = skip_decor(s, len, i);
    if (i < len && s[i] == '%')
        i = skip_decor(s, len, i + 1);
    if (paren) {
        if (i >= len || s[i] != ')' || neg)
            return -1;
        neg = 1;
        i = skip_decor(s, len, i + 1);
    }
    if (i != len)
        return -1;
    (void)int_digits;
    *out = strtod(digits, &end);
    if (*end || !isfinite(*out))
        return -1;
    if (neg)
        *out = -*out;
    return 0;
}

static enum arb_status both_numbers(const struct op_input *in, struct arb_result *res, double *e,
                                    double *o, int *ok)
{
    const cJSON *x = in->expected;

    *ok = 0;
    if (cJSON_IsNumber(x) && isfinite(x->valuedouble)) {
        *e = x->valuedouble;
    } else if (!cJSON_IsString(x) || read_number(x->valuestring, strlen(x->valuestring), e)) {
        return result_note(res, "not_a_number: expected value");
    }
    if (read_number(in->text, in->len, o))
        return result_note(res, "not_a_number");
    *ok = 1;
    return ARB_OK;
}

struct num_priv {
    double atol, rtol, tolerance;
    int percent;
};

int numeric_expected_ok(const cJSON *x)
{
    double e;

    if (cJSON_IsNumber(x))
        return isfinite(x->valuedouble);
    return cJSON_IsString(x) && read_number(x->valuestring, strlen(x->valuestring), &e) == 0;
}

enum arb_status numeric_expected_error(const cJSON *x, const char *path, struct arb_err *err)
{
    const char *type = cJSON_IsString(x)   ? NULL
                       : cJSON_IsNull(x)   ? "null"
                       : cJSON_IsBool(x)   ? "a boolean"
                       : cJSON_IsArray(x)  ? "an array"
                       : cJSON_IsObject(x) ? "an object"
                                           : "a number out of range";

    if (type)
        return arb_err_set(err, ARB_ESCHEMA,
                           "%s%sexpected a number, or text that reads as one (\"$1,234.50\", "
                           "\"12 %%\"), got %s",
                           path, path[0] ? ": " : "", type);
    return arb_err_set(err, ARB_ESCHEMA,
                       "%s%sexpected a number, or text that reads as one (\"$1,234.50\", "
                       "\"12 %%\"), got '%.60s'",
                       path, path[0] ? ": " : "", x->valuestring);
}

/* The check's own expected is read once, here: a value no run can read is a compile error. */
static enum arb_status own_expected(const struct arb_check *c, const char *path,
                                    struct arb_err *err)
{
    char at[512];

    if (!c->expected || numeric_expected_ok(c->expected))
        return ARB_OK;
    snprintf(at, sizeof(at), "%s/expected", path);
    return numeric_expected_error(c->expected, at, err);
}

OP_COMPILE(op_numeric_compile)
{
    struct num_priv *np = calloc(1, sizeof(*np));
    enum arb_status st;

    if (!np)
        return ARB_ENOMEM;
    c->priv = np;
    np->atol = 1e-6;
    np->rtol = 0.0;
    st = param_number(cfg, "atol", path, &np->atol, NULL, err);
    if (!st)
        st = param_number(cfg, "rtol", path, &np->rtol, NULL, err);
    if (!st && (np->atol < 0 || np->rtol < 0))
        st = arb_err_set(err, ARB_ESCHEMA, "%s: atol and rtol must be >= 0", path);
    return st ? st : own_expected(c, path, err);
}

OP_RUN(op_numeric_run)
{
    const struct num_priv *np = c->priv;
    double e = 0, o = 0;
    int ok;
    enum arb_status st = both_numbers(in, res, &e, &o, &ok);

    if (!st && ok)
        res->score = fabs(o - e) <= np->atol + np->rtol * fabs(e) ? 1.0 : 0.0;
    return st;
}

OP_COMPILE(op_within_compile)
{
    struct num_priv *np = calloc(1, sizeof(*np));
    int present = 0;
    enum arb_status st;

    if (!np)
        return ARB_ENOMEM;
    c->priv = np;
    st = param_number(cfg, "tolerance", path, &np->tolerance, &present, err);
    if (!st && !present)
        st = arb_err_set(err, ARB_ESCHEMA, "%s: operator 'within' needs a 'tolerance'",
                         path[0] ? path : "/");
    if (!st && np->tolerance < 0)
        st = arb_err_set(err, ARB_ESCHEMA, "%s/tolerance: expected a number >= 0", path);
    if (!st)
        st = param_bool(cfg, "percent", path, &np->percent, err);
    return st ? st : own_expected(c, path, err);
}

OP_RUN(op_within_run)
{
    const struct num_priv *np = c->priv;
    double e = 0, o = 0, limit;
    int ok;
    enum arb_status st = both_numbers(in, res, &e, &o, &ok);

    if (st || !ok)
        return st;
    limit = np->percent ? np->tolerance / 100.0 * fabs(e) : np->tolerance;
    res->score = fabs(o - e) <= limit ? 1.0 : 0.0;
    return ARB_OK;
}
