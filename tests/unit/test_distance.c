/*
 * Unit tests for the string distances.  Besides published values, the fast
 * algorithms are checked against textbook full-matrix implementations on
 * pseudo-random strings (fixed seed), which is where off-by-one bugs in
 * bit-parallel code show up.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/compare/distance.h"
#include "arbiter/unicode.h"

#define GRINNING "\xf0\x9f\x98\x80" /* U+1F600, four bytes */

struct cps {
    uint32_t *v;
    size_t n;
};

static struct cps cps_of(const char *s)
{
    struct cps c;

    cr_assert_eq(arb_utf8_to_cps(s, strlen(s), &c.v, &c.n), ARB_OK);
    return c;
}

static size_t lev(const char *x, const char *y, long max)
{
    struct cps a = cps_of(x), b = cps_of(y);
    size_t d = 999999;

    cr_assert_eq(arb_levenshtein(a.v, a.n, b.v, b.n, max, &d), ARB_OK);
    free(a.v);
    free(b.v);
    return d;
}

static size_t dlev(const char *x, const char *y)
{
    struct cps a = cps_of(x), b = cps_of(y);
    size_t d = 999999;

    cr_assert_eq(arb_damerau_levenshtein(a.v, a.n, b.v, b.n, &d), ARB_OK);
    free(a.v);
    free(b.v);
    return d;
}

static double jw(const char *x, const char *y)
{
    struct cps a = cps_of(x), b = cps_of(y);
    double s = -1.0;

    cr_assert_eq(arb_jaro_winkler(a.v, a.n, b.v, b.n, &s), ARB_OK);
    free(a.v);
    free(b.v);
    return s;
}

/* ---- reference implementations ---------------------------------------- */

static size_t min3(size_t a, size_t b, size_t c)
{
    size_t m = a < b ? a : b;

    return m < c ? m : c;
}

static size_t ref_levenshtein(const uint32_t *a, size_t n, const uint32_t *b, size_t m)
{
    size_t *d = malloc((n + 1) * (m + 1) * sizeof(*d));
    size_t i, j, r;

    cr_assert_not_null(d);
    for (i = 0; i <= n; i++)
        d[i * (m + 1)] = i;
    for (j = 0; j <= m; j++)
        d[j] = j;
    for (i = 1; i <= n; i++)
        for (j = 1; j <= m; j++)
            d[i * (m + 1) + j] = min3(d[(i - 1) * (m + 1) + j] + 1, d[i * (m + 1) + j - 1] + 1,
                                      d[(i - 1) * (m + 1) + j - 1] + (a[i - 1] != b[j - 1]));
    r = d[n * (m + 1) + m];
    free(d);
    return r;
}

/* Lowrance-Wagner with the full (n + 2) x (m + 2) matrix and a linear last-seen search. */
static size_t ref_damerau(const uint32_t *a, size_t n, const uint32_t *b, size_t m)
{
    size_t w = m + 2, big = n + m, i, j, r;
    size_t *d = malloc((n + 2) * w * sizeof(*d));

    cr_assert_not_null(d);
    d[0] = big;
    for (i = 0; i <= n; i++) {
        d[(i + 1) * w] = big;
        d[(i + 1) * w + 1] = i;
    }
    for (j = 0; j <= m; j++) {
        d[j + 1] = big;
        d[w + j + 1] = j;
    }
    for (i = 1; i <= n; i++) {
        size_t db = 0;

        for (j = 1; j <= m; j++) {
            size_t k = 0, l = db, ii, cost = a[i - 1] != b[j - 1], v;

            for (ii = i - 1; ii >= 1; ii--) {
                if (a[ii - 1] == b[j - 1]) {
                    k = ii;
                    break;
                }
            }
            if (!cost)
                db = j;
            v = min3(d[i * w + j] + cost, d[(i + 1) * w + j] + 1, d[i * w + j + 1] + 1);
            if (d[k * w + l] + (i - k - 1) + 1 + (j - l - 1) < v)
                v = d[k * w + l] + (i - k - 1) + 1 + (j - l - 1);
            d[(i + 1) * w + j + 1] = v;
        }
    }
    r = d[(n + 1) * w + m + 1];
    free(d);
    return r;
}

/* Optimal string alignment: transpositions of untouched adjacent pairs only. */
static size_t ref_osa(const uint32_t *a, size_t n, const uint32_t *b, size_t m)
{
    size_t *d = malloc((n + 1) * (m + 1) * sizeof(*d));
    size_t i, j, r, w = m + 1;

    cr_assert_not_null(d);
    for (i = 0; i <= n; i++)
        d[i * w] = i;
    for (j = 0; j <= m; j++)
        d[j] = j;
    for (i = 1; i <= n; i++) {
        for (j = 1; j <= m; j++) {
            size_t v = min3(d[(i - 1) * w + j] + 1, d[i * w + j - 1] + 1,
                            d[(i - 1) * w + j - 1] + (a[i - 1] != b[j - 1]));

            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[(i - 2) * w + j - 2] + 1 < v)
                v = d[(i - 2) * w + j - 2] + 1;
            d[i * w + j] = v;
        }
    }
    r = d[n * w + m];
    free(d);
    return r;
}

/* xorshift64: deterministic strings over a small alphabet mixing ASCII and non-ASCII. */
static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void random_string(uint64_t *seed, uint32_t *out, size_t n, unsigned alphabet)
{
    static const uint32_t letters[] = {'a', 'b', 'c',     'd',  0xE9, 0x3C3,      0x4E2D, 0x1F600,
                                       'e', 'f', 0x10400, 0x7F, 0x80, 0xFFFFFFFF, 'g',    'h'};
    size_t i;

    for (i = 0; i < n; i++)
        out[i] = letters[next_rand(seed) % alphabet];
}

/* ---- Levenshtein ------------------------------------------------------- */

Test(levenshtein, should_measure_kitten_and_sitting_as_three)
{
    cr_assert_eq(lev("kitten", "sitting", -1), 3);
    cr_assert_eq(lev("sitting", "kitten", -1), 3);
    cr_assert_eq(lev("flaw", "lawn", -1), 2);
    cr_assert_eq(lev("same", "same", -1), 0);
}

Test(levenshtein, should_return_the_other_length_when_one_string_is_empty)
{
    size_t d = 99;

    cr_assert_eq(lev("", "", -1), 0);
    cr_assert_eq(lev("", "abc", -1), 3);
    cr_assert_eq(lev("abcd", "", -1), 4);
    cr_assert_eq(arb_levenshtein(NULL, 0, NULL, 0, -1, &d), ARB_OK);
    cr_assert_eq(d, 0);
}

Test(levenshtein, should_count_an_emoji_as_one_code_point)
{
    cr_assert_eq(lev(GRINNING "a", "a", -1), 1);
    cr_assert_eq(lev("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x81", -1), 1);
    cr_assert_eq(lev("caf\xc3\xa9", "cafe", -1), 1);
}

Test(levenshtein, should_stop_at_max_distance_plus_one)
{
    cr_assert_eq(lev("abcdefgh", "hgfedcba", -1), 8);
    cr_assert_eq(lev("abcdefgh", "hgfedcba", 2), 3);
    cr_assert_eq(lev("abcdefgh", "hgfedcba", 0), 1);
    cr_assert_eq(lev("kitten", "sitting", 3), 3);
    cr_assert_eq(lev("kitten", "sitting", 5), 3);
    cr_assert_eq(lev("kitten", "kitten", 0), 0);
    /* The length difference alone exceeds the bound. */
    cr_assert_eq(lev("a", "abcdefghij", 4), 5);
}

Test(levenshtein, should_answer_from_the_length_difference_before_the_size_cap)
{
    enum { N = 40000, M = 20000 };
    uint32_t *a = calloc(N, sizeof(*a)), *b = calloc(M, sizeof(*b));
    size_t i, d = 0;

    cr_assert(a && b);
    for (i = 0; i < M; i++)
        b[i] = 1;
    cr_assert_eq(arb_levenshtein(a, N, b, M, 5, &d), ARB_OK);
    cr_assert_eq(d, 6);
    free(a);
    free(b);
}

Test(levenshtein, should_refuse_inputs_past_the_cell_cap)
{
    /* 20001 * 20001 > 400,000,000 after trimming; nothing quadratic is allocated. */
    enum { N = 20001 };
    uint32_t *a = calloc(N, sizeof(*a)), *b = calloc(N, sizeof(*b));
    size_t i, d = 42;

    cr_assert(a && b);
    for (i = 0; i < N; i++)
        b[i] = 1;
    cr_assert_eq(arb_levenshtein(a, N, b, N, -1, &d), ARB_ETOOBIG);
    cr_assert_eq(arb_levenshtein(a, N, b, N, 100000, &d), ARB_ETOOBIG);
    cr_assert_eq(d, 42);
    /* A shared prefix and suffix do not count towards the cap. */
    for (i = 0; i < N; i++)
        b[i] = 0;
    b[N / 2] = 1;
    cr_assert_eq(arb_levenshtein(a, N, b, N, -1, &d), ARB_OK);
    cr_assert_eq(d, 1);
    free(a);
    free(b);
}

Test(levenshtein, should_match_the_textbook_dp_on_random_strings)
{
    uint64_t seed = 0x9E3779B97F4A7C15u;
    uint32_t a[300], b[300];
    int round;

    for (round = 0; round < 600; round++) {
        size_t n = next_rand(&seed) % (round < 300 ? 20 : 300);
        size_t m = next_rand(&seed) % (round < 300 ? 20 : 300);
        unsigned alpha = round % 3 == 0 ? 2 : round % 3 == 1 ? 5 : 16;
        size_t want, got = 0, capped = 0;
        long max;

        random_string(&seed, a, n, alpha);
        random_string(&seed, b, m, alpha);
        want = ref_levenshtein(a, n, b, m);
        cr_assert_eq(arb_levenshtein(a, n, b, m, -1, &got), ARB_OK);
        cr_assert_eq(got, want, "round %d: n=%zu m=%zu got %zu want %zu", round, n, m, got, want);
        max = (long)(next_rand(&seed) % (want + 3));
        cr_assert_eq(arb_levenshtein(a, n, b, m, max, &capped), ARB_OK);
        cr_assert_eq(capped, want > (size_t)max ? (size_t)max + 1 : want,
                     "round %d: max %ld got %zu want %zu", round, max, capped, want);
    }
}

Test(levenshtein, should_handle_patterns_on_word_boundaries)
{
    uint64_t seed = 12345;
    uint32_t a[200], b[200];
    const size_t lens[] = {63, 64, 65, 127, 128, 129, 192};
    size_t i, got = 0;

    for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        random_string(&seed, a, lens[i], 4);
        random_string(&seed, b, lens[i] + 7, 4);
        cr_assert_eq(arb_levenshtein(a, lens[i], b, lens[i] + 7, -1, &got), ARB_OK);
        cr_assert_eq(got, ref_levenshtein(a, lens[i], b, lens[i] + 7), "length %zu", lens[i]);
    }
}

/* ---- Damerau-Levenshtein ----------------------------------------------- */

Test(damerau, should_allow_editing_between_transposed_characters)
{
    struct cps a = cps_of("ca"), b = cps_of("abc");

    /* Unrestricted: ca -> ac -> abc is 2; optimal string alignment says 3. */
    cr_assert_eq(dlev("ca", "abc"), 2);
    cr_assert_eq(ref_osa(a.v, a.n, b.v, b.n), 3);
    free(a.v);
    free(b.v);
}

Test(damerau, should_match_published_values)
{
    cr_assert_eq(dlev("", ""), 0);
    cr_assert_eq(dlev("abc", ""), 3);
    cr_assert_eq(dlev("bc", "abc"), 1);
    cr_assert_eq(dlev("fuor", "four"), 1);
    cr_assert_eq(dlev("abcd", "acb"), 2);
    cr_assert_eq(dlev("cape sand recycling ", "edith ann graham"), 17);
    cr_assert_eq(dlev("jellyifhs", "jellyfish"), 2);
    cr_assert_eq(dlev("ifhs", "fish"), 2);
    cr_assert_eq(dlev("kitten", "sitting"), 3);
    cr_assert_eq(dlev(GRINNING "a", "a" GRINNING), 1);
}

Test(damerau, should_match_lowrance_wagner_on_random_strings)
{
    uint64_t seed = 0xD1B54A32D192ED03u;
    uint32_t a[80], b[80];
    int round;

    for (round = 0; round < 1500; round++) {
        size_t n = next_rand(&seed) % (round < 1000 ? 10 : 80);
        size_t m = next_rand(&seed) % (round < 1000 ? 10 : 80);
        unsigned alpha = round % 3 == 0 ? 2 : round % 3 == 1 ? 4 : 16;
        size_t want, got = 0, back = 0;

        random_string(&seed, a, n, alpha);
        random_string(&seed, b, m, alpha);
        want = ref_damerau(a, n, b, m);
        cr_assert_eq(arb_damerau_levenshtein(a, n, b, m, &got), ARB_OK);
        cr_assert_eq(got, want, "round %d: n=%zu m=%zu got %zu want %zu", round, n, m, got, want);
        cr_assert_eq(arb_damerau_levenshtein(b, m, a, n, &back), ARB_OK);
        cr_assert_eq(back, want);
        cr_assert_leq(got, ref_osa(a, n, b, m));
    }
}

Test(damerau, should_refuse_inputs_past_a_quarter_of_the_cell_cap)
{
    enum { N = 10001 };
    uint32_t *a = calloc(N, sizeof(*a)), *b = calloc(N, sizeof(*b));
    size_t i, d = 42;

    cr_assert(a && b);
    for (i = 0; i < N; i++)
        b[i] = 0x1F600;
    cr_assert_eq(arb_damerau_levenshtein(a, N, b, N, &d), ARB_ETOOBIG);
    cr_assert_eq(d, 42);
    free(a);
    free(b);
}

/* ---- Jaro-Winkler ------------------------------------------------------ */

Test(jaro_winkler, should_match_published_values)
{
    /* Jaro 17/18, three common prefix characters. */
    cr_assert_float_eq(jw("MARTHA", "MARHTA"), 17.0 / 18 + 0.3 * (1.0 / 18), 1e-12);
    cr_assert_float_eq(jw("MARTHA", "MARHTA"), 0.9611, 1e-4);
    cr_assert_float_eq(jw("DIXON", "DICKSONX"), 0.8133, 1e-4);
    cr_assert_float_eq(jw("DWAYNE", "DUANE"), 0.84, 1e-4);
    cr_assert_float_eq(jw("William", "Williams"), 0.975, 1e-4);
    /* No common prefix: Jaro-Winkler equals Jaro, 0.8963 for jellyfish's example. */
    cr_assert_float_eq(jw("JELLYFISH", "SMELLYFISH"), 0.8963, 1e-4);
}

Test(jaro_winkler, should_treat_empty_strings_as_documented)
{
    cr_assert_float_eq(jw("", ""), 1.0, 1e-12);
    cr_assert_float_eq(jw("", "foo"), 0.0, 1e-12);
    cr_assert_float_eq(jw("foo", ""), 0.0, 1e-12);
    cr_assert_float_eq(jw("a", "a"), 1.0, 1e-12);
    cr_assert_float_eq(jw("abc", "xyz"), 0.0, 1e-12);
}

Test(jaro_winkler, should_boost_only_above_the_jaro_threshold)
{
    /* One match of six: Jaro 4/9 = 0.444, below 0.7, so the shared 'a' adds nothing. */
    cr_assert_float_eq(jw("abcdef", "axxxxx"), 4.0 / 9, 1e-12);
}

Test(jaro_winkler, should_compare_code_points)
{
    /* e-acute is one code point: Jaro (2/3 + 2/3 + 1) / 3 = 7/9 with prefix 2. */
    double want = 7.0 / 9 + 0.2 * (2.0 / 9);

    cr_assert_float_eq(jw("ab\xc3\xa9", "abx"), want, 1e-12);
}

Test(jaro_winkler, should_handle_long_strings)
{
    enum { N = 700 };
    uint32_t *a = malloc(N * sizeof(*a));
    double s = 0;
    size_t i;

    cr_assert_not_null(a);
    for (i = 0; i < N; i++)
        a[i] = 'a' + (uint32_t)(i % 26);
    cr_assert_eq(arb_jaro_winkler(a, N, a, N, &s), ARB_OK);
    cr_assert_float_eq(s, 1.0, 1e-12);
    /* Shifted by one: each letter matches its next occurrence, 26 places on
     * (value from a transcription of jellyfish's algorithm). */
    cr_assert_eq(arb_jaro_winkler(a, N, a + 1, N - 1, &s), ARB_OK);
    cr_assert_float_eq(s, 0.8383411676544724, 1e-12);
    free(a);
}
