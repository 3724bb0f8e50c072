/*
 * test_view_wdiff.c - the case page's word diff (src/view/wdiff.c): the marks are a shortest
 * edit over words, white space and punctuation; removing every <del> from A's side and every
 * <ins> from B's gives the same common text; everything is escaped; past the caps the texts
 * are shown without marks.  Minimality is checked against a brute-force LCS over 20,000
 * random small texts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/report/html_int.h"
#include "../../src/view/view_int.h"

struct pair {
    struct arb_buf a, b;
    int diffed;
};

static void diff(struct pair *p, const char *a, const char *b)
{
    struct html ha = {&p->a, ARB_OK}, hb = {&p->b, ARB_OK};

    arb_buf_init(&p->a, 0);
    arb_buf_init(&p->b, 0);
    view_word_diff(&ha, &hb, a, b, &p->diffed);
    cr_assert_eq(ha.st, ARB_OK);
    cr_assert_eq(hb.st, ARB_OK);
    cr_assert(p->a.ptr != NULL || !*a);
    cr_assert(p->b.ptr != NULL || !*b);
}

static void release(struct pair *p)
{
    arb_buf_release(&p->a);
    arb_buf_release(&p->b);
}

static const char *text(const struct arb_buf *b)
{
    return b->ptr ? b->ptr : "";
}

/* The text with every element of tag (and its content) removed, other tags dropped. */
static char *without(const char *html, const char *tag)
{
    size_t n = strlen(html), o = 0, tl = strlen(tag);
    char *out = malloc(n + 1);
    int skip = 0;

    cr_assert(out);
    for (size_t i = 0; i < n;) {
        if (html[i] == '<') {
            if (html[i + 1] == '/' && strncmp(html + i + 2, tag, tl) == 0)
                skip = 0;
            else if (strncmp(html + i + 1, tag, tl) == 0)
                skip = 1;
            while (i < n && html[i] != '>')
                i++;
            i++;
            continue;
        }
        if (!skip)
            out[o++] = html[i];
        i++;
    }
    out[o] = '\0';
    return out;
}

static size_t count(const char *s, const char *needle)
{
    size_t k = 0;

    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
        k++;
    return k;
}

Test(view_wdiff, should_mark_only_the_changed_word)
{
    struct pair p;

    diff(&p, "the total is 42 dollars", "the total is 43 dollars");
    cr_assert(p.diffed);
    cr_assert_str_eq(text(&p.a), "the total is <del>42</del> dollars");
    cr_assert_str_eq(text(&p.b), "the total is <ins>43</ins> dollars");
    release(&p);
}

Test(view_wdiff, should_mark_insertions_and_deletions_apart)
{
    struct pair p;

    char *ca, *cb;

    diff(&p, "Acme Corp, invoice 7", "Acme invoice 7, paid");
    cr_assert(p.diffed);
    /* One run a side: "Corp," and ", paid" (white space separates, it is never compared). */
    cr_assert_eq(count(text(&p.a), "<del>"), 1);
    cr_assert_eq(count(text(&p.b), "<ins>"), 1);
    cr_assert(strstr(text(&p.a), "Corp,") > strstr(text(&p.a), "<del>"));
    cr_assert(strstr(text(&p.b), ", paid</ins>") != NULL);
    ca = without(text(&p.a), "del");
    cb = without(text(&p.b), "ins");
    cr_assert_str_eq(text(&p.a), "Acme <del>Corp,</del> invoice 7");
    cr_assert_str_eq(ca, "Acme  invoice 7");
    cr_assert_str_eq(cb, "Acme invoice 7");
    free(ca);
    free(cb);
    release(&p);
}

Test(view_wdiff, should_leave_equal_texts_unmarked)
{
    struct pair p;

    diff(&p, "same text\nhere", "same text\nhere");
    cr_assert(p.diffed);
    cr_assert_str_eq(text(&p.a), "same text\nhere");
    cr_assert_str_eq(text(&p.b), "same text\nhere");
    release(&p);
}

Test(view_wdiff, should_handle_empty_sides)
{
    struct pair p;

    diff(&p, "", "all new");
    cr_assert(p.diffed);
    cr_assert_str_eq(text(&p.a), "");
    cr_assert_str_eq(text(&p.b), "<ins>all new</ins>");
    release(&p);
    diff(&p, "all gone", "");
    cr_assert_str_eq(text(&p.a), "<del>all gone</del>");
    cr_assert_str_eq(text(&p.b), "");
    release(&p);
}

Test(view_wdiff, should_escape_markup_in_outputs)
{
    struct pair p;
    char *ca, *cb;

    diff(&p, "<script>alert(1)</script> ok", "<img src=x onerror=alert(1)> ok");
    cr_assert(p.diffed);
    cr_assert_null(strstr(text(&p.a), "<script"));
    cr_assert_null(strstr(text(&p.b), "<img"));
    ca = without(text(&p.a), "none"); /* the marks dropped, their content kept */
    cb = without(text(&p.b), "none");
    cr_assert_str_eq(ca, "&lt;script&gt;alert(1)&lt;/script&gt; ok");
    cr_assert_str_eq(cb, "&lt;img src=x onerror=alert(1)&gt; ok");
    free(ca);
    free(cb);
    release(&p);
}

/* A shortest edit: one word changed among many gives one mark a side; the common text of
 * both sides (marks removed) is the same. */
Test(view_wdiff, should_find_a_shortest_edit_over_long_texts)
{
    struct arb_buf a, b;
    struct pair p;
    char *ca, *cb;

    arb_buf_init(&a, 0);
    arb_buf_init(&b, 0);
    for (int i = 0; i < 3000; i++) {
        cr_assert_eq(arb_buf_printf(&a, "w%d ", i), ARB_OK);
        cr_assert_eq(arb_buf_printf(&b, i == 1500 ? "changed " : "w%d ", i), ARB_OK);
    }
    diff(&p, a.ptr, b.ptr);
    cr_assert(p.diffed);
    cr_assert_eq(count(text(&p.a), "<del>"), 1);
    cr_assert_eq(count(text(&p.b), "<ins>"), 1);
    ca = without(text(&p.a), "del");
    cb = without(text(&p.b), "ins");
    cr_assert_str_eq(ca, cb);
    free(ca);
    free(cb);
    release(&p);
    arb_buf_release(&a);
    arb_buf_release(&b);
}

Test(view_wdiff, should_give_up_past_the_edit_cap_and_show_plain_text)
{
    struct arb_buf a, b;
    struct pair p;

    arb_buf_init(&a, 0);
    arb_buf_init(&b, 0);
    for (int i = 0; i < 2000; i++) {
        cr_assert_eq(arb_buf_printf(&a, "a%d ", i), ARB_OK);
        cr_assert_eq(arb_buf_printf(&b, "b%d ", i), ARB_OK);
    }
    diff(&p, a.ptr, b.ptr);
    cr_assert_eq(p.diffed, 0);
    cr_assert_str_eq(text(&p.a), a.ptr);
    cr_assert_str_eq(text(&p.b), b.ptr);
    release(&p);
    arb_buf_release(&a);
    arb_buf_release(&b);
}

/* A text laid out again (pretty-printed JSON against compact) shows no change. */
Test(view_wdiff, should_not_mark_white_space_changes)
{
    struct pair p;

    diff(&p, "{\n  \"a\": 1,\n  \"b\": [1, 2]\n}", "{\"a\": 1, \"b\": [1,2]}");
    cr_assert(p.diffed);
    cr_assert_null(strstr(text(&p.a), "<del>"));
    cr_assert_null(strstr(text(&p.b), "<ins>"));
    release(&p);
    diff(&p, "{\n  \"a\": 1\n}", "{\"a\": 2}");
    cr_assert_str_eq(text(&p.a), "{\n  &quot;a&quot;: <del>1</del>\n}");
    cr_assert_str_eq(text(&p.b), "{&quot;a&quot;: <ins>2</ins>}");
    release(&p);
}

/* Non-ASCII letters are part of words: a changed accented word is one mark. */
Test(view_wdiff, should_keep_utf8_words_whole)
{
    struct pair p;

    diff(&p, "caf\xc3\xa9 cr\xc3\xa8me", "caf\xc3\xa9 cr\xc3\xa9me");
    cr_assert_str_eq(text(&p.a), "caf\xc3\xa9 <del>cr\xc3\xa8me</del>");
    cr_assert_str_eq(text(&p.b), "caf\xc3\xa9 <ins>cr\xc3\xa9me</ins>");
    release(&p);
}

/* ---- a brute-force check over random small texts ------------------------------------------ */

/* xorshift64 with a fixed seed, so no test touches the global rand() state. */
static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

#define MAX_RAND_TOKENS 14

/* Tokens of a random text: words (one non-ASCII) and punctuation, each its own token. */
static size_t random_tokens(uint64_t *s, const char **tok)
{
    static const char *const vocab[] = {"a", "b", "c", ",", "\xc3\xa9t\xc3\xa9"};
    size_t n = (size_t)(next_rand(s) % (MAX_RAND_TOKENS + 1));

    for (size_t i = 0; i < n; i++)
        tok[i] = vocab[next_rand(s) % (sizeof(vocab) / sizeof(vocab[0]))];
    return n;
}

/* The tokens joined by white space of random shape (one space, a newline, two spaces). */
static void join(uint64_t *s, const char **tok, size_t n, char *out)
{
    static const char *const gaps[] = {" ", "\n", "  "};

    *out = '\0';
    for (size_t i = 0; i < n; i++) {
        if (i)
            strcat(out, gaps[next_rand(s) % 3]);
        strcat(out, tok[i]);
    }
}

static size_t lcs(const char **a, size_t na, const char **b, size_t nb)
{
    size_t t[MAX_RAND_TOKENS + 1][MAX_RAND_TOKENS + 1];

    for (size_t i = 0; i <= na; i++)
        for (size_t j = 0; j <= nb; j++)
            t[i][j] = i == 0 || j == 0                  ? 0
                      : strcmp(a[i - 1], b[j - 1]) == 0 ? t[i - 1][j - 1] + 1
                      : t[i - 1][j] > t[i][j - 1]       ? t[i - 1][j]
                                                        : t[i][j - 1];
    return t[na][nb];
}

/*
 * Read one side of the diff back: the text without its marks into plain, each token with
 * whether it was inside a mark.  Returns the number of tokens.
 */
static size_t read_side(const char *html, char *plain, const char **tok, int *marked, char *store)
{
    size_t n = 0, o = 0;
    int in = 0, fresh = 1;

    for (const char *p = html; *p;) {
        if (*p == '<') {
            in = p[1] != '/';
            p = strchr(p, '>') + 1;
            continue;
        }
        plain[o++] = *p;
        if (*p == ' ' || *p == '\n') {
            *store++ = '\0';
            fresh = 1;
        } else {
            if (fresh) {
                cr_assert(n < MAX_RAND_TOKENS);
                tok[n] = store;
                marked[n++] = in;
                fresh = 0;
            } else {
                cr_assert_eq(marked[n - 1], in, "a mark splits a token in '%s'", html);
            }
            *store++ = *p;
        }
        p++;
    }
    *store = '\0';
    plain[o] = '\0';
    return n;
}

/* The marks are a shortest edit script: they reconstruct both texts, what is left unmarked
 * is common to both, and there are exactly |a| + |b| - 2 LCS(a, b) of them. */
Test(view_wdiff, should_mark_a_minimal_edit_on_random_texts)
{
    uint64_t seed = 0x9e3779b97f4a7c15u;

    for (int round = 0; round < 20000; round++) {
        const char *ta[MAX_RAND_TOKENS], *tb[MAX_RAND_TOKENS];
        const char *ra[MAX_RAND_TOKENS], *rb[MAX_RAND_TOKENS];
        const char *ka[MAX_RAND_TOKENS], *kb[MAX_RAND_TOKENS];
        int ma[MAX_RAND_TOKENS], mb[MAX_RAND_TOKENS];
        char a[256], b[256], pa[256], pb[256], sa[256], sb[256];
        size_t na = random_tokens(&seed, ta), nb = random_tokens(&seed, tb), nka = 0, nkb = 0;
        size_t edits = 0, want;
        struct pair p;

        join(&seed, ta, na, a);
        join(&seed, tb, nb, b);
        diff(&p, a, b);
        cr_assert(p.diffed);
        cr_assert_eq(read_side(text(&p.a), pa, ra, ma, sa), na, "'%s'", a);
        cr_assert_eq(read_side(text(&p.b), pb, rb, mb, sb), nb, "'%s'", b);
        cr_assert_str_eq(pa, a);
        cr_assert_str_eq(pb, b);
        cr_assert_null(strstr(text(&p.a), "<ins>"));
        cr_assert_null(strstr(text(&p.b), "<del>"));
        for (size_t i = 0; i < na; i++) {
            cr_assert_str_eq(ra[i], ta[i]);
            if (ma[i])
                edits++;
            else
                ka[nka++] = ta[i];
        }
        for (size_t i = 0; i < nb; i++) {
            cr_assert_str_eq(rb[i], tb[i]);
            if (mb[i])
                edits++;
            else
                kb[nkb++] = tb[i];
        }
        cr_assert_eq(nka, nkb, "'%s' vs '%s': unmarked parts differ in length", a, b);
        for (size_t i = 0; i < nka; i++)
            cr_assert_str_eq(ka[i], kb[i], "'%s' vs '%s': unmarked parts differ", a, b);
        want = na + nb - 2 * lcs(ta, na, tb, nb);
        cr_assert_eq(edits, want, "'%s' vs '%s': %zu edits, a shortest script has %zu", a, b, edits,
                     want);
        release(&p);
    }
}
