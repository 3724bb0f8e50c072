/*
 * test_view_wdiff.c - the case page's word diff (src/view/wdiff.c): the marks are a shortest
 * edit over words, white space and punctuation; removing every <del> from A's side and every
 * <ins> from B's gives the same common text; everything is escaped; past the caps the texts
 * are shown without marks.
 */
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
