/*
 * ops_numeric.c - numeric and within.
 *
 *  - numeric: pass when |o - e| <= atol + rtol * |e| (evalwire's
 *    numeric_tolerance, numpy.isclose's form; atol 1e-6, rtol 0 by default).
 *  - within: pass when |o - e| <= tolerance, or with "percent": true when
 *    |o - e| <= tolerance / 100 * |e| (didactic's within).
 *
 * Numbers are read from text the way people write them in outputs: optional
 * sign (ASCII '-' or '+', or U+2212 MINUS SIGN), currency symbols before or
 * after, thousands separators (","), a decimal point, an exponent, a trailing
 * "%", and accounting parentheses for negatives: "$1,234.50", "-€12",
 * "(42.00)", "1.5e3", "12 %".  Anything else (including words, two numbers,
 * inf and nan) is not_a_number: score 0.  An expected JSON number is used as
 * is; an expected string is read the same way as the output.
 *
 * Every conversion the reader makes is a normalization step of the record,
 * for the side it was made on (see step_names): dropped white space, currency
 * and other Unicode symbols, a '+', U+2212 read as '-', parentheses read as a
 * negative, dropped thousands separators, and a dropped '%' (the value is
 * kept as written: "12 %" reads as 12, not 0.12).  A sign that changes the
 * meaning ("<5", ">5", "≤5", "≥5", "~5", "≈5", "=5", "5 ± 0.1") is never
 * dropped: such text is not_a_number, and the note names the sign.  The two numbers compared
 * are the record's compared surfaces.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/unicode.h"
#include "ops.h"

/* The conversions read_number makes, as bits of its *steps; names in this order. */
enum num_step {
    NS_WHITESPACE = 1 << 0,
    NS_CURRENCY = 1 << 1,
    NS_SYMBOL = 1 << 2,
    NS_PLUS = 1 << 3,
    NS_UNICODE_MINUS = 1 << 4,
    NS_ACCOUNTING = 1 << 5,
    NS_THOUSANDS = 1 << 6,
    NS_PERCENT = 1 << 7
};

static const char *const step_names[] = {
    "whitespace",          /* white space dropped (around the number or between its parts) */
    "currency_symbol",     /* a Unicode currency symbol (Sc) dropped: "$", "€", "¥" */
    "other_symbol",        /* any other Unicode symbol (Sm, Sk, So) dropped: "°", "™" */
    "plus_sign",           /* a leading '+' dropped */
    "unicode_minus",       /* U+2212 MINUS SIGN read as '-' */
    "accounting_negative", /* "(42.00)" read as -42 */
    "thousands_separator", /* ',' between groups of three digits dropped */
    "percent_sign"         /* a trailing '%' dropped; the value is kept as written */
};

/* Unicode general category Sc (currency symbols), Unicode 15. */
static int is_currency(uint32_t cp)
{
    static const uint32_t ranges[][2] = {
        {0x24, 0x24},      {0xA2, 0xA5},     {0x58F, 0x58F},     {0x60B, 0x60B},
        {0x7FE, 0x7FF},    {0x9F2, 0x9F3},   {0x9FB, 0x9FB},     {0xAF1, 0xAF1},
        {0xBF9, 0xBF9},    {0xE3F, 0xE3F},   {0x17DB, 0x17DB},   {0x20A0, 0x20C0},
        {0xA838, 0xA838},  {0xFDFC, 0xFDFC}, {0xFE69, 0xFE69},   {0xFF04, 0xFF04},
        {0xFFE0, 0xFFE1},  {0xFFE5, 0xFFE6}, {0x11FDD, 0x11FE0}, {0x1E2FF, 0x1E2FF},
        {0x1ECB0, 0x1ECB0}};
    size_t k;

    for (k = 0; k < sizeof(ranges) / sizeof(ranges[0]); k++)
        if (cp >= ranges[k][0] && cp <= ranges[k][1])
            return 1;
    return 0;
}

/* U+2212 MINUS SIGN at s[i]: its UTF-8 bytes are E2 88 92. */
static int is_unicode_minus(const char *s, size_t len, size_t i)
{
    return i + 2 < len && (unsigned char)s[i] == 0xE2 && (unsigned char)s[i + 1] == 0x88 &&
           (unsigned char)s[i + 2] == 0x92;
}

/*
 * A sign that changes what a number means: a comparison ("<5" is not 5), an approximation
 * ("~5", "≈5"), an equation ("=5") or a tolerance ("±0.1").  Never dropped as a symbol.
 */
static int is_meaning_sign(uint32_t cp)
{
    static const uint32_t signs[] = {0xB1,   0x2213, 0x2260, 0x2264, 0x2265, 0x2248, 0x223C, 0x2243,
                                     0x2245, 0x2A7D, 0x2A7E, 0xFF1C, 0xFF1D, 0xFF1E, 0xFF5E};
    size_t k;

    if (cp < 0x80)
        return cp == '<' || cp == '>' || cp == '=' || cp == '~';
    for (k = 0; k < sizeof(signs) / sizeof(signs[0]); k++)
        if (cp == signs[k])
            return 1;
    return 0;
}

/*
 * Skip white space and currency/other symbols (not '+', '-', U+2212, digits or '.', nor a sign
 * is_meaning_sign names), adding what was skipped to *steps.
 */
static size_t skip_decor(const char *s, size_t len, size_t i, unsigned *steps)
{
    while (i < len) {
        size_t next = i;
        uint32_t cp = arb_utf8_next(s, len, &next);

        if (cp == '+' || cp == '-' || cp == 0x2212 || cp == '(' || cp == ')' || cp == '.' ||
            cp == ',' || cp == '%' || (cp >= '0' && cp <= '9'))
            break;
        if (arb_uc_is_space(cp))
            *steps |= NS_WHITESPACE;
        else if (cp < 0x80 ? cp == '<' || cp == '>' || cp == '=' || cp == '~' : is_meaning_sign(cp))
            break; /* the ASCII signs inline: "$" on the hot path costs no call */
        else if (is_currency(cp))
            *steps |= NS_CURRENCY;
        else if (arb_uc_is_symbol(cp))
            *steps |= NS_SYMBOL;
        else
            break;
        i = next;
    }
    return i;
}

/*
 * Read a number from s as described in the file comment; 0 on success.  *steps receives the
 * conversions made (enum num_step bits).
 */
static int read_number(const char *s, size_t len, double *out, unsigned *steps)
{
    char digits[128];
    size_t i = 0, nd = 0, group_len = 0;
    int neg = 0, paren = 0, seen_digit = 0, seen_point = 0, grouped = 0;
    char *end;

    *steps = 0;
    i = skip_decor(s, len, i, steps);
    if (i < len && s[i] == '(') {
        paren = 1;
        i = skip_decor(s, len, i + 1, steps);
    }
    if (i < len && (s[i] == '-' || s[i] == '+')) {
        neg = s[i] == '-';
        if (!neg)
            *steps |= NS_PLUS;
        i = skip_decor(s, len, i + 1, steps);
    } else if (is_unicode_minus(s, len, i)) {
        neg = 1;
        *steps |= NS_UNICODE_MINUS;
        i = skip_decor(s, len, i + 3, steps);
    }
    for (; i < len; i++) {
        char ch = s[i];

        if (ch >= '0' && ch <= '9') {
            if (nd + 2 >= sizeof(digits))
                return -1;
            digits[nd++] = ch;
            seen_digit = 1;
            if (!seen_point)
                group_len++;
        } else if (ch == ',' && !seen_point && seen_digit) {
            /* Thousands separator: groups after the first must be three digits. */
            if (grouped && group_len != 3)
                return -1;
            if (!grouped && group_len > 3)
                return -1;
            grouped = 1;
            group_len = 0;
            *steps |= NS_THOUSANDS;
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
    i = skip_decor(s, len, i, steps);
    if (i < len && s[i] == '%') {
        *steps |= NS_PERCENT;
        i = skip_decor(s, len, i + 1, steps);
    }
    if (paren) {
        if (i >= len || s[i] != ')' || neg)
            return -1;
        neg = 1;
        *steps |= NS_ACCOUNTING;
        i = skip_decor(s, len, i + 1, steps);
    }
    if (i != len)
        return -1;
    *out = strtod(digits, &end);
    if (*end || !isfinite(*out))
        return -1;
    if (neg)
        *out = -*out;
    return 0;
}

/*
 * Why s[0..len) is not a number, for the note: "not_a_number" (with prefix), and the sign that
 * made it so when there is one ("not_a_number: sign '<' ...").  Only on the failing path.
 */
static enum arb_status not_a_number(struct arb_result *res, const char *prefix, const char *s,
                                    size_t len)
{
    size_t i = 0;

    while (i < len) {
        size_t at = i;
        uint32_t cp = arb_utf8_next(s, len, &i);

        if (is_meaning_sign(cp))
            return result_notef(res,
                                "not_a_number%s: sign '%.*s' (a comparison, approximation or "
                                "tolerance is not a plain number)",
                                prefix, (int)(i - at), s + at);
    }
    return result_notef(res, "not_a_number%s", prefix);
}

/* Record the steps in bits as applied to side. */
static void record_steps(struct arb_result *res, unsigned bits, unsigned side)
{
    size_t k;

    /* stops after the last step that applied: most numbers need one or two, or none */
    for (k = 0; bits && k < sizeof(step_names) / sizeof(step_names[0]); k++, bits >>= 1)
        if (bits & 1u)
            result_norm_side(res, step_names[k], side);
}

/*
 * Read both numbers; *ok is 1 when both read, and then the record names each side's
 * conversions and holds the two numbers as its compared surfaces.
 */
static enum arb_status both_numbers(const struct op_input *in, struct arb_result *res, double *e,
                                    double *o, int *ok)
{
    const cJSON *x = in->expected;
    unsigned esteps = 0, osteps = 0;

    *ok = 0;
    if (x && (x->type & 0xFF) == cJSON_Array && x->child && !x->child->next) {
        /* evalwire's expected_items[0]: a one-item list is its item */
        result_norm_side(res, "expected_single_item_list", ARB_SIDE_EXPECTED);
        x = x->child;
    }
    if (cJSON_IsNumber(x) && isfinite(x->valuedouble)) {
        *e = x->valuedouble;
    } else if (!cJSON_IsString(x)) {
        return result_note(res, "not_a_number: expected value");
    } else if (read_number(x->valuestring, strlen(x->valuestring), e, &esteps)) {
        return not_a_number(res, ": expected value", x->valuestring, strlen(x->valuestring));
    }
    if (read_number(in->text, in->len, o, &osteps))
        return not_a_number(res, "", in->text, in->len);
    record_steps(res, esteps, ARB_SIDE_EXPECTED);
    record_steps(res, osteps, ARB_SIDE_OBSERVED);
    result_compared_numbers(res, *e, *o);
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
    unsigned steps;

    if (cJSON_IsArray(x) && x->child && !x->child->next)
        x = x->child;
    if (cJSON_IsNumber(x))
        return isfinite(x->valuedouble);
    return cJSON_IsString(x) &&
           read_number(x->valuestring, strlen(x->valuestring), &e, &steps) == 0;
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
