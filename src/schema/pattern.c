/*
 * pattern.c - ECMA-262 regular expressions ("pattern", "patternProperties")
 * on PCRE2.
 *
 * Patterns are unanchored, `$` matches only at the very end
 * (PCRE2_DOLLAR_ENDONLY), \d \w \b are ASCII (PCRE2_UCP is left off, as
 * ECMA-262 has them), \s is rewritten to ECMA-262's white space and line
 * terminators, \v is the vertical tab, \uXXXX and \u{...} are code points
 * (PCRE2_ALT_BSUX), \p{Letter} and other long property names are made short,
 * `[]` matches nothing and `[^]` anything.  A string that is not valid UTF-8
 * matches nothing.  (PCRE2_MATCH_INVALID_UTF would match it, but PCRE2 10.42's
 * JIT then gets \D and \W wrong on multibyte characters.)  U+0000, held as
 * C0 80 (json.h), is \x00 in a pattern and a NUL byte in the text matched
 * (validate_kw.c).  Patterns are JIT-compiled when PCRE2 can; a failure there
 * is ignored.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema_int.h"

/* ECMA-262 WhiteSpace and LineTerminator, in ALT_BSUX escapes. */
static const char ws_chars[] =
    "\\t\\n\\x0b\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff";

/* ECMA-262 long names (and aliases) of general categories that PCRE2 knows short. */
static const char *const categories[][2] = {
    {"Cased_Letter", "LC"},
    {"Close_Punctuation", "Pe"},
    {"Connector_Punctuation", "Pc"},
    {"Control", "Cc"},
    {"cntrl", "Cc"},
    {"Currency_Symbol", "Sc"},
    {"Dash_Punctuation", "Pd"},
    {"Decimal_Number", "Nd"},
    {"digit", "Nd"},
    {"Enclosing_Mark", "Me"},
    {"Final_Punctuation", "Pf"},
    {"Format", "Cf"},
    {"Initial_Punctuation", "Pi"},
    {"Letter", "L"},
    {"Letter_Number", "Nl"},
    {"Line_Separator", "Zl"},
    {"Lowercase_Letter", "Ll"},
    {"Mark", "M"},
    {"Combining_Mark", "M"},
    {"Math_Symbol", "Sm"},
    {"Modifier_Letter", "Lm"},
    {"Modifier_Symbol", "Sk"},
    {"Nonspacing_Mark", "Mn"},
    {"Number", "N"},
    {"Open_Punctuation", "Ps"},
    {"Other", "C"},
    {"Other_Letter", "Lo"},
    {"Other_Number", "No"},
    {"Other_Punctuation", "Po"},
    {"Other_Symbol", "So"},
    {"Paragraph_Separator", "Zp"},
    {"Private_Use", "Co"},
    {"Punctuation", "P"},
    {"punct", "P"},
    {"Separator", "Z"},
    {"Space_Separator", "Zs"},
    {"Spacing_Mark", "Mc"},
    {"Surrogate", "Cs"},
    {"Symbol", "S"},
    {"Titlecase_Letter", "Lt"},
    {"Unassigned", "Cn"},
    {"Uppercase_Letter", "Lu"},
};

/*
 * Copy the name of \p{name} (name[0..len)) in PCRE2's spelling to out:
 * "General_Category=" / "gc=" and "Script=" / "sc=" dropped, "scx=" as
 * "scx:", long category names made short.  Returns bytes written (<= len + 1).
 */
static size_t property_name(const char *name, size_t len, char *out)
{
    static const char *const drop[] = {"General_Category=", "gc=", "Script=", "sc="};
    size_t i, o = 0;

    for (i = 0; i < sizeof(drop) / sizeof(drop[0]); i++) {
        size_t n = strlen(drop[i]);

        if (len > n && !strncmp(name, drop[i], n)) {
            name += n;
            len -= n;
        }
    }
    if (len > 4 && (!strncmp(name, "scx=", 4) || !strncmp(name, "Script_Extensions=", 18))) {
        size_t n = name[3] == '=' ? 4 : 18;

        memcpy(out, "scx:", 4);
        o = 4;
        name += n;
        len -= n;
    }
    for (i = 0; i < sizeof(categories) / sizeof(categories[0]); i++) {
        if (strlen(categories[i][0]) == len && !strncmp(name, categories[i][0], len)) {
            name = categories[i][1];
            len = strlen(name);
            break;
        }
    }
    memcpy(out + o, name, len);
    return o + len;
}

/* U+0000 as a schema read with ARB_JSON_ALLOW_NUL holds it (C0 80, json.h) starts at s. */
static int is_nul(const char *s)
{
    return (unsigned char)s[0] == 0xC0 && (unsigned char)s[1] == 0x80;
}

/*
 * Rewrite ecma into a malloc'd PCRE2 pattern (U+0000 becomes \x00, which PCRE2 takes where C0 80
 * is invalid UTF-8); NULL when out of memory.
 */
static char *translate(const char *ecma)
{
    size_t n = strlen(ecma), o = 0, i;
    /* Each source byte grows to at most one ws class ("[^" ws "]"). */
    char *out = malloc(n * (sizeof(ws_chars) + 3) + 1);
    int in_class = 0;

    if (!out)
        return NULL;
    for (i = 0; i < n; i++) {
        char ch = ecma[i];

        if (ch == '\\' && i + 1 < n) {
            char next = ecma[++i];

            if (next == 's' || (next == 'S' && !in_class)) {
                if (!in_class)
                    out[o++] = '[';
                if (next == 'S')
                    out[o++] = '^';
                memcpy(out + o, ws_chars, sizeof(ws_chars) - 1);
                o += sizeof(ws_chars) - 1;
                if (!in_class)
                    out[o++] = ']';
            } else if ((next == 'p' || next == 'P') && ecma[i + 1] == '{' &&
                       strchr(ecma + i + 2, '}')) {
                const char *name = ecma + i + 2;
                size_t len = (size_t)(strchr(name, '}') - name);

                out[o++] = '\\';
                out[o++] = next;
                out[o++] = '{';
                o += property_name(name, len, out + o);
                out[o++] = '}';
                i += len + 2;
            } else if (next == 'v') {
                memcpy(out + o, "\\x0b", 4);
                o += 4;
            } else if (is_nul(ecma + i)) {
                memcpy(out + o, "\\x00", 4);
                o += 4;
                i++;
            } else {
                out[o++] = '\\';
                out[o++] = next;
            }
            continue;
        }
        if (is_nul(ecma + i)) {
            memcpy(out + o, "\\x00", 4);
            o += 4;
            i++;
            continue;
        }
        if (ch == '[' && !in_class) {
            in_class = 1;
        } else if (ch == ']' && in_class) {
            in_class = 0;
        }
        out[o++] = ch;
    }
    out[o] = '\0';
    return out;
}

/*
 * Compile an ECMA-262 pattern.  On failure returns NULL and writes PCRE2's
 * reason (or "out of memory") into why.
 */
pcre2_code *pattern_compile(const char *ecma, char *why, size_t why_len)
{
    uint32_t opts = PCRE2_UTF | PCRE2_DOLLAR_ENDONLY | PCRE2_ALT_BSUX | PCRE2_ALLOW_EMPTY_CLASS;
    pcre2_compile_context *cc;
    pcre2_code *re;
    PCRE2_SIZE offset = 0;
    int code = 0;
    char *pat = translate(ecma);

    if (!pat) {
        snprintf(why, why_len, "out of memory");
        return NULL;
    }
    cc = pcre2_compile_context_create(NULL);
    if (!cc) {
        free(pat);
        snprintf(why, why_len, "out of memory");
        return NULL;
    }
    pcre2_set_compile_extra_options(cc, PCRE2_EXTRA_ALT_BSUX);
    re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, opts, &code, &offset, cc);
    pcre2_compile_context_free(cc);
    free(pat);
    if (!re) {
        PCRE2_UCHAR msg[160];

        if (pcre2_get_error_message(code, msg, sizeof(msg)) < 0)
            snprintf((char *)msg, sizeof(msg), "error %d", code);
        snprintf(why, why_len, "%s", (const char *)msg);
        return NULL;
    }
    (void)pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
    return re;
}

/* Search s[0..len) for re.  1 found, 0 not found, negative PCRE2 error. */
int pattern_match(const pcre2_code *re, const char *s, size_t len, pcre2_match_data **md)
{
    int rc;

    if (!*md) {
        *md = pcre2_match_data_create(1, NULL);
        if (!*md)
            return PCRE2_ERROR_NOMEMORY;
    }
    rc = pcre2_match(re, (PCRE2_SPTR)s, len, 0, 0, *md, NULL);
    if (rc >= 0)
        return 1;
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    if (rc <= PCRE2_ERROR_UTF8_ERR1 && rc >= PCRE2_ERROR_UTF8_ERR21)
        return 0;
    return rc;
}
