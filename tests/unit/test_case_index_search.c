/*
 * Unit tests for the search of the case index (case_index.h, arb_case_query.search;
 * src/store/case_index_search.c and case_index_corpus.c): which cases a text finds, where
 * their texts meet, in binary outputs, with and without case, in UTF-8, per run, and the
 * same cases whether the run's texts are held in memory or its rows scanned with LIKE.
 * test_case_index.c has the search's filters, pages and steps.
 *
 * Run 1, systems x and y, no verdicts (one row per case):
 *   seq id        prompt                outputs
 *   0   alpha-1   "Where is the Café?"  x "Plain ÉCOLE text", y "ends here"
 *   1   beta-2    "second prompt"       x binary (its text given as "hidden words"),
 *                                       y "before" NUL "after NUL" (a NUL inside)
 *   2   gamma-3   "100% of_it \ back"   x "text x", y "mixed CaSe Words"
 *   3   delta-4   (none)                x "ΑΒΓ δέλτα 東京", y ""
 */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/store/case_index_int.h"
#include "arbiter/case_index.h"
#include "arbiter/status.h"
#include "arbiter/store.h"
#include "store_fixture.h"

struct out {
    const char *text;
    size_t len; /* 0: strlen(text) */
    int binary;
};

struct case_def {
    const char *id, *prompt;
    struct out x, y;
};

static const struct case_def run1[] = {
    {"alpha-1",
     "Where is the Caf\xc3\xa9?",
     {"Plain \303\211COLE text", 0, 0},
     {"ends here", 0, 0}},
    {"beta-2", "second prompt", {"hidden words", 0, 1}, {"before\0after NUL", 16, 0}},
    {"gamma-3", "100% of_it \\ back", {"text x", 0, 0}, {"mixed CaSe Words", 0, 0}},
    {"delta-4",
     NULL,
     {"\xce\x91\xce\x92\xce\x93 \xce\xb4\xce\xad\xce\xbb\xcf\x84\xce\xb1 "
      "\xe6\x9d\xb1\xe4\xba\xac",
      0, 0},
     {"", 0, 0}},
};

static void ok(enum arb_status rc, const struct arb_err *err)
{
    cr_assert_eq(rc, ARB_OK, "%s", err->msg);
}

static void put_output(struct arb_store *st, int64_t run, const char *c, const char *sys,
                       const struct out *o)
{
    struct arb_output_row r = {c,         sys, "",   o->text, o->len ? o->len : strlen(o->text),
                               o->binary, "h", NULL, 0};
    struct arb_err err = {{0}};

    ok(arb_store_put_output(st, run, &r, &err), &err);
}

/* A new run of cases (n of them) written through a store of its own; its id. */
static int64_t write_run(const struct case_def *cases, int n)
{
    struct arb_run_row r = {.suite_path = "suite.json",
                            .suite_name = "search",
                            .suite_sha256 = "00ff",
                            .suite_json = "{}",
                            .systems_json = "[{\"name\":\"x\"},{\"name\":\"y\"}]",
                            .version = "0"};
    struct arb_store *st = fx_open_store(0);
    struct arb_err err = {{0}};
    int64_t run = 0;

    ok(arb_store_begin(st, &err), &err);
    ok(arb_store_run_create(st, &r, &run, &err), &err);
    for (int i = 0; i < n; i++) {
        ok(arb_store_put_case(st, run, cases[i].id, i, cases[i].prompt, NULL, "{}", &err), &err);
        put_output(st, run, cases[i].id, "x", &cases[i].x);
        put_output(st, run, cases[i].id, "y", &cases[i].y);
    }
    ok(arb_store_commit(st, &err), &err);
    arb_store_close(st);
    return run;
}

static struct arb_store *the_run(void)
{
    cr_assert_eq(write_run(run1, 4), 1);
    return fx_open_store(ARB_STORE_READONLY);
}

static int on_row(void *ctx, const struct arb_case_entry *e)
{
    char *out = ctx;
    size_t len = strlen(out);

    snprintf(out + len, 256 - len, "%s%s", len ? " " : "", e->case_id);
    return 0;
}

/* The ids of the cases of run that text finds, in reading order, joined by spaces; the
 * query's total must count them. */
static const char *found(struct arb_store *st, int64_t run, const char *text)
{
    static char out[256];
    struct arb_case_query q = {.run = run, .limit = 100, .search = text};
    struct arb_err err = {{0}};
    int64_t total = -1, words = 0;

    out[0] = '\0';
    ok(arb_case_index_query(st, &q, on_row, out, &total, &err), &err);
    for (const char *c = out; *c; c++)
        words += c == out || *c == ' ';
    cr_assert_eq(total, words, "total %lld for '%s'", (long long)total, out);
    return out;
}

Test(case_index_search, should_not_match_across_two_texts, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = the_run();

    cr_assert_str_eq(found(st, 1, "ends here"), "alpha-1");
    cr_assert_str_eq(found(st, 1, "alpha-1where"), "", "id, then prompt");
    cr_assert_str_eq(found(st, 1, "caf\xc3\xa9?plain"), "", "prompt, then an output");
    cr_assert_str_eq(found(st, 1, "textends"), "", "one output, then another");
    cr_assert_str_eq(found(st, 1, "herebeta"), "", "a case, then the next");
    cr_assert_str_eq(found(st, 1, "text xmixed"), "");
    arb_store_close(st);
}

Test(case_index_search, should_not_search_binary_outputs_nor_past_a_nul, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_store *st = the_run();

    cr_assert_str_eq(found(st, 1, "hidden"), "", "a binary output has no text");
    cr_assert_str_eq(found(st, 1, "before"), "beta-2");
    cr_assert_str_eq(found(st, 1, "after"), "", "a text ends at a NUL, as for SQL LIKE");
    arb_store_close(st);
}

Test(case_index_search, should_fold_ascii_letters_only, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = the_run();

    cr_assert_str_eq(found(st, 1, "MIXED case wORDS"), "gamma-3");
    cr_assert_str_eq(found(st, 1, "WHERE IS THE"), "alpha-1");
    cr_assert_str_eq(found(st, 1, "SECOND"), "beta-2");
    /* "ÉCOLE": É is two bytes taken as they are, the ASCII letters after it fold. */
    cr_assert_str_eq(found(st, 1, "\303\211cole"), "alpha-1");
    cr_assert_str_eq(found(st, 1, "\303\251cole"), "", "é is not É");
    cr_assert_str_eq(found(st, 1, "CAF\xc3\x89"), "", "É is not é");
    arb_store_close(st);
}

Test(case_index_search, should_match_multibyte_utf8_exactly, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = the_run();

    cr_assert_str_eq(found(st, 1, "caf\xc3\xa9"), "alpha-1");
    cr_assert_str_eq(found(st, 1, "cafe"), "");
    cr_assert_str_eq(found(st, 1, "\xe6\x9d\xb1\xe4\xba\xac"), "delta-4");
    cr_assert_str_eq(found(st, 1, "\xce\xb4\xce\xad\xce\xbb\xcf\x84\xce\xb1"), "delta-4");
    cr_assert_str_eq(found(st, 1, "\xce\x91\xce\x92\xce\x93 \xce\xb4"), "delta-4");
    cr_assert_str_eq(found(st, 1, "\xce\xb1\xce\xb2\xce\xb3"), "", "no Greek case folding");
    arb_store_close(st);
}

/* Run 2: its cases hold "plain" at seq 1 and 2, run 1's at seq 0 (the same seqs, other cases). */
static const struct case_def run2[] = {
    {"two-a", "nothing", {"x", 0, 0}, {"y", 0, 0}},
    {"two-b", "plain prompt", {"x", 0, 0}, {"y", 0, 0}},
    {"two-c", "p", {"PLAIN output", 0, 0}, {"ends here", 0, 0}},
};

Test(case_index_search, should_keep_the_hits_of_each_run_apart, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_store *st = the_run();

    cr_assert_str_eq(found(st, 1, "plain"), "alpha-1");
    cr_assert_str_eq(found(st, 1, "ends here"), "alpha-1");
    /* A run written and indexed after run 1's texts were read, on the same connection. */
    cr_assert_eq(write_run(run2, 3), 2);
    cr_assert_str_eq(found(st, 2, "plain"), "two-b two-c");
    cr_assert_str_eq(found(st, 2, "ends here"), "two-c");
    cr_assert_str_eq(found(st, 1, "ends here"), "alpha-1", "the same text, the other run");
    cr_assert_str_eq(found(st, 1, "plain"), "alpha-1");
    cr_assert_str_eq(found(st, 2, "plain"), "two-b two-c");
    cr_assert_str_eq(found(st, 2, "alpha"), "");
    arb_store_close(st);
}

Test(case_index_search, should_report_what_the_texts_take, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = the_run();
    struct arb_err err = {{0}};
    size_t bytes = 0;

    ok(arb_case_index_load_search(st, 1, &bytes, &err), &err);
    /* The 13 texts that are not empty (154 bytes), a NUL after each and one at the end, and
     * four records. */
    cr_assert_eq(bytes, 154 + 13 + 1 + 4 * sizeof(struct store_ci_rec));
    cr_assert_eq(arb_case_index_load_search(st, 9, &bytes, &err), ARB_EUSAGE);
    cr_assert_eq(bytes, 0);
    ok(arb_case_index_build(st, 1, &err), &err);
    arb_store_close(st);
}

/* Needles for comparing the two ways of searching: each of the tests above and a few more. */
static const char *const needles[] = {"ends here",
                                      "alpha-1where",
                                      "caf\xc3\xa9?plain",
                                      "textends",
                                      "herebeta",
                                      "hidden",
                                      "before",
                                      "after",
                                      "MIXED case wORDS",
                                      "\303\211cole",
                                      "\303\251cole",
                                      "cafe",
                                      "caf\xc3\xa9",
                                      "\xe6\x9d\xb1",
                                      "100%",
                                      "% of",
                                      "of_it",
                                      "_",
                                      "%",
                                      "\\",
                                      "\\ back",
                                      "e",
                                      "E",
                                      "t",
                                      "-",
                                      "?",
                                      " ",
                                      "plain",
                                      "x",
                                      "here",
                                      "second prompt",
                                      "delta-4"};

Test(case_index_search, should_find_what_a_scan_of_the_rows_finds, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_store *held = the_run(), *scanned = fx_open_store(ARB_STORE_READONLY);
    struct arb_err err = {{0}};
    size_t bytes = 1;

    cr_assert_eq(write_run(run2, 3), 2);
    /* A cap of 8 bytes: run 1's texts are not held, its rows are scanned with LIKE. */
    ok(arb_case_index_build(scanned, 2, &err), &err);
    scanned->ci_search->corpus.max = 8;
    ok(arb_case_index_load_search(scanned, 1, &bytes, &err), &err);
    cr_assert_eq(bytes, 0, "not held");
    for (size_t i = 0; i < sizeof(needles) / sizeof(needles[0]); i++) {
        char want[256];

        snprintf(want, sizeof(want), "%s", found(held, 1, needles[i]));
        cr_assert_str_eq(found(scanned, 1, needles[i]), want, "'%s'", needles[i]);
    }
    arb_store_close(held);
    arb_store_close(scanned);
}

/* ---- the scan, against a naive one ---------------------------------------------------------- */

static uint32_t next(uint32_t *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 16;
}

/* A random text of n bytes from few letters (many near misses), some upper case. */
static void random_text(char *out, size_t n, uint32_t *seed)
{
    static const char letters[] = "abAB \xc3";

    for (size_t i = 0; i < n; i++)
        out[i] = letters[next(seed) % (sizeof(letters) - 1)];
    out[n] = '\0';
}

static void fold_ascii(char *s)
{
    for (; *s; s++)
        if (*s >= 'A' && *s <= 'Z')
            *s = (char)(*s - 'A' + 'a');
}

static enum arb_status collect(void *ctx, int64_t seq)
{
    char *out = ctx;
    size_t len = strlen(out);

    snprintf(out + len, 4096 - len, "%lld ", (long long)seq);
    return ARB_OK;
}

Test(case_index_search, should_find_what_a_naive_search_finds, .init = fx_setup,
     .fini = fx_teardown)
{
    enum { N_RECS = 60 };
    static char texts[N_RECS][3][80];
    static char corpus[N_RECS * 3 * 81];
    struct store_ci_rec recs[N_RECS];
    struct store_ci_corpus c = {.run = 1, .text = corpus, .recs = recs, .n = N_RECS};
    struct arb_err err = {{0}};
    uint32_t seed = 7;

    /* Records of three texts of 0 to 79 bytes, folded, each followed by a NUL. */
    for (int r = 0; r < N_RECS; r++) {
        for (int t = 0; t < 3; t++) {
            size_t n = next(&seed) % 80;

            random_text(texts[r][t], n, &seed);
            fold_ascii(texts[r][t]);
            memcpy(corpus + c.len, texts[r][t], n + 1);
            c.len += n + 1;
        }
        recs[r] = (struct store_ci_rec){c.len, 100 + r};
        c.hist[(unsigned char)texts[r][0][0]] += r;
    }
    for (int k = 0; k < 400; k++) {
        char needle[8], low[8], want[4096] = "", got[4096] = "";

        random_text(needle, 1 + next(&seed) % 6, &seed);
        memcpy(low, needle, sizeof(low));
        fold_ascii(low);
        for (int r = 0; r < N_RECS; r++)
            if (strstr(texts[r][0], low) || strstr(texts[r][1], low) || strstr(texts[r][2], low))
                collect(want, 100 + r);
        ok(store_ci_corpus_find(&c, needle, collect, got, &err), &err);
        cr_assert_str_eq(got, want, "'%s'", needle);
    }
}
