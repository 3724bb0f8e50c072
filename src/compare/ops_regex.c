/*
 * ops_regex.c - the regex operator and regex extraction, on PCRE2.
 *
 * Patterns are UTF-8 and read as Python's re reads str patterns (LangChain's
 * RegexMatchStringEvaluator and most peers are Python): PCRE2_UTF and
 * PCRE2_UCP, so \d, \w and \b are Unicode-aware and '$' also matches before a
 * final newline.  Modes: search (default, re.search), match (anchored at the
 * start, re.match), fullmatch (anchored at both ends, re.fullmatch).  Flags:
 * any of "imsx".  Patterns are JIT-compiled where PCRE2 can, and matching has
 * backtracking limits so a pathological pattern ends instead of hanging: a
 * match that reaches PCRE2's match or depth limit (or, under JIT, its stack
 * limit, where the interpreter is tried first) is neither a match nor a
 * miss, so the record is unresolved with a note naming the limit
 * (regex_match_limit, regex_depth_limit, regex_heap_limit): Python's re
 * has no limit and may well match.  Only this file and src/schema/
 * include pcre2.h.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"

enum { MODE_SEARCH = 0, MODE_MATCH = 1, MODE_FULLMATCH = 2 };

#define MATCH_LIMIT 10000000u
#define DEPTH_LIMIT 100000u

struct regex_prog {
    pcre2_code *code;
    pcre2_match_data *md;
    pcre2_match_context *mctx;
};

void regex_free(struct regex_prog *p)
{
    if (!p)
        return;
    pcre2_match_data_free(p->md);
    pcre2_match_context_free(p->mctx);
    pcre2_code_free(p->code);
    free(p);
}

static int hex_digits(const char *p, size_t avail, size_t want)
{
    size_t k;

    if (avail < want)
        return 0;
    for (k = 0; k < want; k++)
        if (!((p[k] >= '0' && p[k] <= '9') || ((p[k] | 0x20) >= 'a' && (p[k] | 0x20) <= 'f')))
            return 0;
    return 1;
}

/*
 * Python's and JavaScript's code point escapes in PCRE2's spelling: \uXXXX, \UXXXXXXXX (Python)
 * and \u{X...} (JavaScript's u mode) become \x{...}, in a character class too.  An escaped
 * backslash (\\u) and text quoted by \Q...\E are left alone; in a comment of the x flag the
 * change is harmless (PCRE2 ignores the comment either way).  A \u PCRE2 would refuse anyway
 * (too few digits) is left for it to refuse.  *out is NULL when nothing needs translating, else
 * the caller frees it.
 */
static enum arb_status translate_escapes(const char *pat, size_t len, char **out, size_t *out_len)
{
    struct arb_buf b;
    size_t i = 0, from = 0, want, skip;
    enum arb_status st = ARB_OK;

    *out = NULL;
    if (!memchr(pat, '\\', len))
        return ARB_OK;
    arb_buf_init(&b, 0);
    while (i + 1 < len && !st) {
        const char *p = pat + i;

        if (p[0] != '\\') {
            i++;
            continue;
        }
        if (p[1] == 'Q') {
            const char *e = NULL;
            size_t k;

            for (k = i + 2; k + 1 < len && !e; k++)
                if (pat[k] == '\\' && pat[k + 1] == 'E')
                    e = pat + k;
            i = e ? (size_t)(e - pat) + 2 : len;
            continue;
        }
        want = p[1] == 'u' ? 4 : p[1] == 'U' ? 8 : 0;
        skip = 2;
        if (p[1] == 'u' && i + 2 < len && p[2] == '{') {
            const char *close = memchr(p + 3, '}', len - i - 3);

            want = close ? (size_t)(close - p - 3) : 0;
            if (!want || want > 8 || !hex_digits(p + 3, want, want)) {
                i += 2;
                continue;
            }
            skip = 3; /* the hex digits start after "\\u{" and the '}' is dropped below */
        } else if (!want || !hex_digits(p + 2, len - i - 2, want)) {
            i += 2; /* an escape pair: \\ never starts another escape */
            continue;
        }
        st = arb_buf_add(&b, pat + from, i - from);
        if (!st)
            st = arb_buf_adds(&b, "\\x{");
        if (!st)
            st = arb_buf_add(&b, p + skip, want);
        if (!st)
            st = arb_buf_addc(&b, '}');
        i += skip + want + (skip == 3);
        from = i;
    }
    if (!st && !b.ptr) {
        arb_buf_release(&b);
        return ARB_OK;
    }
    if (!st)
        st = arb_buf_add(&b, pat + from, len - from);
    if (st) {
        arb_buf_release(&b);
        return st;
    }
    *out = arb_buf_detach(&b, out_len);
    return *out ? ARB_OK : ARB_ENOMEM;
}

enum arb_status regex_compile(const char *pattern, size_t len, const char *flags, unsigned mode,
                              struct regex_prog **out, char *errbuf, size_t errlen)
{
    uint32_t opts = PCRE2_UTF | PCRE2_UCP;
    struct regex_prog *p;
    int code;
    PCRE2_SIZE off;
    PCRE2_UCHAR msg[160];
    const char *f;
    char *translated = NULL;
    size_t tlen = 0;
    int was_translated;

    *out = NULL;
    for (f = flags; f && *f; f++) {
        switch (*f) {
        case 'i':
            opts |= PCRE2_CASELESS;
            break;
        case 'm':
            opts |= PCRE2_MULTILINE;
            break;
        case 's':
            opts |= PCRE2_DOTALL;
            break;
        case 'x':
            opts |= PCRE2_EXTENDED;
            break;
        default:
            snprintf(errbuf, errlen, "unknown flag '%c' (valid: i, m, s, x)", *f);
            return ARB_ESCHEMA;
        }
    }
    if (mode == MODE_MATCH)
        opts |= PCRE2_ANCHORED;
    else if (mode == MODE_FULLMATCH)
        opts |= PCRE2_ANCHORED | PCRE2_ENDANCHORED;
    if (translate_escapes(pattern, len, &translated, &tlen))
        return ARB_ENOMEM;
    p = calloc(1, sizeof(*p));
    if (!p) {
        free(translated);
        return ARB_ENOMEM;
    }
    p->code = pcre2_compile((PCRE2_SPTR)(translated ? translated : pattern),
                            translated ? tlen : len, opts, &code, &off, NULL);
    was_translated = translated != NULL;
    free(translated);
    if (!p->code) {
        pcre2_get_error_message(code, msg, sizeof(msg));
        snprintf(errbuf, errlen, "%s at offset %zu%s", (const char *)msg, (size_t)off,
                 was_translated ? " (after \\u escapes became \\x{...})" : "");
        free(p);
        return ARB_ESCHEMA;
    }
    /* JIT is an optimisation: when it is unavailable the interpreter runs. */
    (void)pcre2_jit_compile(p->code, PCRE2_JIT_COMPLETE);
    p->md = pcre2_match_data_create_from_pattern(p->code, NULL);
    p->mctx = pcre2_match_context_create(NULL);
    if (!p->md || !p->mctx) {
        regex_free(p);
        return ARB_ENOMEM;
    }
    pcre2_set_match_limit(p->mctx, MATCH_LIMIT);
    pcre2_set_depth_limit(p->mctx, DEPTH_LIMIT);
    *out = p;
    return ARB_OK;
}

size_t regex_groups(const struct regex_prog *p)
{
    uint32_t n = 0;

    pcre2_pattern_info(p->code, PCRE2_INFO_CAPTURECOUNT, &n);
    return n;
}

int regex_exec(struct regex_prog *p, const char *s, size_t len, int utf8_valid, int want_group,
               size_t *gstart, size_t *glen, char *errbuf, size_t errlen)
{
    uint32_t opts = utf8_valid ? PCRE2_NO_UTF_CHECK : 0;
    int rc = pcre2_match(p->code, (PCRE2_SPTR)s, len, 0, opts, p->md, p->mctx);
    PCRE2_UCHAR msg[160];

    /* JIT's stack is small and fixed; the interpreter has the limits below. */
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT)
        rc = pcre2_match(p->code, (PCRE2_SPTR)s, len, 0, opts | PCRE2_NO_JIT, p->md, p->mctx);
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    if (rc == PCRE2_ERROR_MATCHLIMIT) {
        snprintf(errbuf, errlen,
                 "regex_match_limit: PCRE2's match limit (%u) was reached before the pattern "
                 "matched or failed",
                 MATCH_LIMIT);
        return -2;
    }
    if (rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT) {
        if (rc == PCRE2_ERROR_DEPTHLIMIT)
            snprintf(errbuf, errlen,
                     "regex_depth_limit: PCRE2's depth limit (%u) was reached before the pattern "
                     "matched or failed",
                     DEPTH_LIMIT);
        else
            snprintf(errbuf, errlen,
                     "regex_heap_limit: PCRE2's heap limit was reached before the pattern "
                     "matched or failed");
        return -2;
    }
    if (rc < 0) {
        if (rc <= PCRE2_ERROR_UTF8_ERR1 && rc >= PCRE2_ERROR_UTF8_ERR21)
            snprintf(errbuf, errlen, "invalid_utf8");
        else {
            pcre2_get_error_message(rc, msg, sizeof(msg));
            snprintf(errbuf, errlen, "regex_error: %s", (const char *)msg);
        }
        return -1;
    }
    if (want_group) {
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(p->md);

        if (rc < 2 || ov[2] == PCRE2_UNSET) {
            *gstart = 0;
            *glen = 0;
            return 0;
        }
        *gstart = ov[2];
        *glen = ov[3] - ov[2];
    }
    return 1;
}

/* ---- the operator -------------------------------------------------------------------- */

struct regex_priv {
    unsigned mode;
    char flags[8];
    struct regex_prog *own;  /* the check's own pattern, compiled once */
    struct regex_prog *last; /* the last case pattern, with its text */
    char *last_pattern;
    size_t last_len;
};

void op_regex_free(void *priv)
{
    struct regex_priv *rp = priv;

    regex_free(rp->own);
    regex_free(rp->last);
    free(rp->last_pattern);
    free(rp);
}

OP_COMPILE(op_regex_compile)
{
    struct regex_priv *rp = calloc(1, sizeof(*rp));
    const char *mode = NULL, *flags = NULL;
    char msg[200];
    enum arb_status st;

    if (!rp)
        return ARB_ENOMEM;
    c->priv = rp;
    st = param_string(cfg, "mode", path, &mode, err);
    if (!st)
        st = param_string(cfg, "flags", path, &flags, err);
    if (st)
        return st;
    if (!mode || strcmp(mode, "search") == 0)
        rp->mode = MODE_SEARCH;
    else if (strcmp(mode, "match") == 0)
        rp->mode = MODE_MATCH;
    else if (strcmp(mode, "fullmatch") == 0)
        rp->mode = MODE_FULLMATCH;
    else
        return arb_err_set(err, ARB_ESCHEMA,
                           "%s/mode: unknown mode '%s' (valid: search, match, fullmatch)", path,
                           mode);
    if (flags) {
        if (strlen(flags) >= sizeof(rp->flags) || strspn(flags, "imsx") != strlen(flags))
            return arb_err_set(err, ARB_ESCHEMA, "%s/flags: expected any of \"imsx\", got '%s'",
                               path, flags);
        memcpy(rp->flags, flags, strlen(flags) + 1);
    }
    if (!c->expected)
        return ARB_OK;
    if (!cJSON_IsString(c->expected))
        return arb_err_set(err, ARB_ESCHEMA, "%s/expected: expected the pattern as a string", path);
    st = regex_compile(c->expected->valuestring, strlen(c->expected->valuestring), rp->flags,
                       rp->mode, &rp->own, msg, sizeof(msg));
    if (st == ARB_ENOMEM)
        return st;
    if (st) {
        /* Kept as a note on every run: `arbiter check` must report, not refuse. */
        size_t n = strlen(msg) + 64;

        c->problem = malloc(n);
        if (!c->problem)
            return ARB_ENOMEM;
        snprintf(c->problem, n, "invalid_regex_pattern: %s", msg);
    }
    return ARB_OK;
}

static enum arb_status case_pattern(struct regex_priv *rp, const cJSON *e, struct arb_result *res,
                                    struct regex_prog **out)
{
    char msg[200];
    size_t n;
    enum arb_status st;

    *out = NULL;
    if (!cJSON_IsString(e)) {
        st = result_note(res, "invalid_regex_pattern");
        return st ? st : result_note(res, "invalid_regex_pattern: expected a string pattern");
    }
    n = strlen(e->valuestring);
    if (rp->last && n == rp->last_len && memcmp(rp->last_pattern, e->valuestring, n) == 0) {
        *out = rp->last;
        return ARB_OK;
    }
    regex_free(rp->last);
    free(rp->last_pattern);
    rp->last = NULL;
    rp->last_pattern = NULL;
    st = regex_compile(e->valuestring, n, rp->flags, rp->mode, &rp->last, msg, sizeof(msg));
    if (st == ARB_ENOMEM)
        return st;
    if (st) {
        st = result_note(res, "invalid_regex_pattern");
        return st ? st : result_notef(res, "invalid_regex_pattern: %s", msg);
    }
    rp->last_pattern = strdup(e->valuestring);
    if (!rp->last_pattern)
        return ARB_ENOMEM;
    rp->last_len = n;
    *out = rp->last;
    return ARB_OK;
}

OP_RUN(op_regex_run)
{
    struct regex_priv *rp = c->priv;
    struct regex_prog *prog = NULL;
    char msg[200];
    enum arb_status st;
    int m;

    res->score = 0.0;
    /* An empty pattern would match anything; evalwire's regex_match says False for it (as
     * for a missing one), and so does Arbiter, with a note. */
    if (cJSON_IsString(in->expected) && !in->expected->valuestring[0])
        return result_note(res, "empty_pattern");
    if (in->expected == c->expected && c->expected) {
        if (c->problem) {
            st = result_note(res, "invalid_regex_pattern");
            return st ? st : result_note(res, c->problem);
        }
        prog = rp->own;
    } else {
        st = case_pattern(rp, in->expected, res, &prog);
        if (st || !prog)
            return st;
    }
    if (!in->utf8_ok)
        return ARB_OK; /* already noted invalid_utf8; PCRE2 cannot match it in UTF mode */
    m = regex_exec(prog, in->text, in->len, 1, 0, NULL, NULL, msg, sizeof(msg));
    if (m == -2)
        res->limited = 1;
    if (m < 0)
        return result_note(res, msg);
    res->score = m ? 1.0 : 0.0;
    return ARB_OK;
}
