/* Unit tests for UTF-8 handling and the Unicode case and property tables. */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/buf.h"
#include "arbiter/unicode.h"

/* Lowercase s (NUL-terminated) into a fresh buffer and compare with want. */
static void expect_lower(const char *s, const char *want)
{
    struct arb_buf b;

    arb_buf_init(&b, 0);
    cr_assert_eq(arb_utf8_lower(s, strlen(s), &b), ARB_OK);
    cr_assert_eq(b.len, strlen(want), "lower('%s') has %zu bytes, want %zu", s, b.len,
                 strlen(want));
    cr_assert_eq(memcmp(b.ptr, want, b.len), 0, "lower('%s') = '%s', want '%s'", s, b.ptr, want);
    arb_buf_release(&b);
}

static void expect_invalid_at(const char *s, size_t len, size_t want_at)
{
    size_t at = 12345;

    cr_assert_eq(arb_utf8_valid(s, len, &at), 0);
    cr_assert_eq(at, want_at, "bad_at %zu, want %zu", at, want_at);
}

/* ---- validation -------------------------------------------------------- */

Test(utf8, should_accept_ascii_and_well_formed_multibyte_text)
{
    const char *s = "plain ASCII, caf\xc3\xa9, \xce\xa3\xcf\x89, \xe4\xb8\xad, \xf0\x9f\x98\x80";

    cr_assert(arb_utf8_valid(s, strlen(s), NULL));
    cr_assert(arb_utf8_valid("", 0, NULL));
}

Test(utf8, should_accept_every_encoding_boundary)
{
    const char *s = "\x7f"
                    "\xc2\x80\xdf\xbf"                  /* U+0080 U+07FF */
                    "\xe0\xa0\x80\xed\x9f\xbf"          /* U+0800 U+D7FF */
                    "\xee\x80\x80\xef\xbf\xbf"          /* U+E000 U+FFFF */
                    "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf"; /* U+10000 U+10FFFF */

    cr_assert(arb_utf8_valid(s, strlen(s), NULL));
}

Test(utf8, should_reject_overlong_encoding_of_nul)
{
    expect_invalid_at("\xc0\x80", 2, 0);
    expect_invalid_at("ab\xc1\xbf", 4, 2);
}

Test(utf8, should_reject_overlong_three_and_four_byte_forms)
{
    expect_invalid_at("\xe0\x80\xaf", 3, 0);
    expect_invalid_at("\xf0\x80\x80\xaf", 4, 0);
    expect_invalid_at("\xf0\x8f\xbf\xbf", 4, 0);
}

Test(utf8, should_reject_utf16_surrogates)
{
    expect_invalid_at("\xed\xa0\x80", 3, 0);
    expect_invalid_at("x\xed\xbf\xbf", 4, 1);
}

Test(utf8, should_reject_code_points_above_u10ffff)
{
    expect_invalid_at("\xf4\x90\x80\x80", 4, 0);
    expect_invalid_at("\xf5\x80\x80\x80", 4, 0);
    expect_invalid_at("\xff", 1, 0);
}

Test(utf8, should_reject_truncated_sequences)
{
    expect_invalid_at("ab\xe2\x82", 4, 2);
    expect_invalid_at("\xf0\x9f\x98", 3, 0);
    expect_invalid_at("\xc3", 1, 0);
    /* A continuation byte where a lead byte is expected. */
    expect_invalid_at("a\x80", 2, 1);
    /* A lead byte followed by a non-continuation byte. */
    expect_invalid_at("\xc3(", 2, 0);
}

Test(utf8, should_find_the_bad_byte_after_a_long_ascii_run)
{
    char s[300];
    size_t k;

    for (k = 0; k < 280; k++) {
        memset(s, 'a', sizeof(s));
        s[k] = (char)0xff;
        expect_invalid_at(s, sizeof(s), k);
    }
    memset(s, 'a', sizeof(s));
    cr_assert(arb_utf8_valid(s, sizeof(s), NULL));
}

/* ---- decoding, encoding, counting ------------------------------------- */

Test(utf8, should_decode_one_code_point_per_step)
{
    const char *s = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
    const uint32_t want[] = {0x61, 0xE9, 0x20AC, 0x1F600};
    size_t i = 0, k;

    for (k = 0; k < 4; k++)
        cr_assert_eq(arb_utf8_next(s, strlen(s), &i), want[k]);
    cr_assert_eq(i, strlen(s));
}

Test(utf8, should_decode_invalid_bytes_as_replacement_one_byte_at_a_time)
{
    const char *s = "a\xf0\x9f\x98"
                    "b\xed\xa0\x80";
    const uint32_t want[] = {'a', 0xFFFD, 0xFFFD, 0xFFFD, 'b', 0xFFFD, 0xFFFD, 0xFFFD};
    size_t i = 0, k;

    for (k = 0; k < 8; k++) {
        cr_assert_eq(arb_utf8_next(s, strlen(s), &i), want[k], "code point %zu", k);
        cr_assert_eq(i, k + 1);
    }
}

Test(utf8, should_round_trip_every_scalar_value)
{
    uint32_t cp;
    char out[4];

    for (cp = 0; cp <= 0x10FFFF; cp++) {
        size_t n, i = 0;

        if (cp == 0xD800)
            cp = 0xE000;
        n = arb_utf8_encode(cp, out);
        cr_assert_eq(n, cp < 0x80 ? 1u : cp < 0x800 ? 2u : cp < 0x10000 ? 3u : 4u);
        cr_assert(arb_utf8_valid(out, n, NULL), "U+%04X", (unsigned)cp);
        cr_assert_eq(arb_utf8_next(out, n, &i), cp);
        cr_assert_eq(i, n);
    }
}

Test(utf8, should_encode_surrogates_and_out_of_range_values_as_replacement)
{
    char out[4];

    cr_assert_eq(arb_utf8_encode(0xD800, out), 3);
    cr_assert_eq(memcmp(out, "\xef\xbf\xbd", 3), 0);
    cr_assert_eq(arb_utf8_encode(0x110000, out), 3);
    cr_assert_eq(memcmp(out, "\xef\xbf\xbd", 3), 0);
}

Test(utf8, should_count_code_points_not_bytes)
{
    const char *s = "h\xc3\xa9llo \xf0\x9f\x98\x80";
    char long_ascii[1000];

    cr_assert_eq(arb_utf8_count(s, strlen(s)), 7);
    cr_assert_eq(arb_utf8_count("", 0), 0);
    memset(long_ascii, 'x', sizeof(long_ascii));
    cr_assert_eq(arb_utf8_count(long_ascii, sizeof(long_ascii)), 1000);
}

Test(utf8, should_count_each_invalid_byte_as_one)
{
    cr_assert_eq(arb_utf8_count("a\xf0\x9f\x98", 4), 4);
    cr_assert_eq(arb_utf8_count("\xc0\x80", 2), 2);
}

Test(utf8, should_decode_into_a_code_point_array)
{
    const char *s = "\xf0\x90\x90\x80x\xff";
    uint32_t *cps = NULL;
    size_t n = 0;

    cr_assert_eq(arb_utf8_to_cps(s, strlen(s), &cps, &n), ARB_OK);
    cr_assert_eq(n, 3);
    cr_assert_eq(cps[0], 0x10400);
    cr_assert_eq(cps[1], 'x');
    cr_assert_eq(cps[2], 0xFFFD);
    free(cps);
}

Test(utf8, should_return_an_allocated_array_for_empty_input)
{
    uint32_t *cps = NULL;
    size_t n = 7;

    cr_assert_eq(arb_utf8_to_cps("", 0, &cps, &n), ARB_OK);
    cr_assert_not_null(cps);
    cr_assert_eq(n, 0);
    free(cps);
}

/* ---- lowercase --------------------------------------------------------- */

Test(lower, should_lowercase_ascii)
{
    expect_lower("Hello, WORLD! [@AZ`az{]", "hello, world! [@az`az{]");
}

Test(lower, should_lowercase_latin1)
{
    /* A-grave E-acute I-circumflex O-tilde U-diaeresis; sharp s, y-diaeresis stay. */
    expect_lower("\xc3\x80\xc3\x89\xc3\x8e\xc3\x95\xc3\x9c \xc3\x9f\xc3\xbf \xc3\x97",
                 "\xc3\xa0\xc3\xa9\xc3\xae\xc3\xb5\xc3\xbc \xc3\x9f\xc3\xbf \xc3\x97");
    cr_assert_eq(arb_uc_tolower(0x178), 0xFF); /* Y with diaeresis leaves Latin-1 */
}

Test(lower, should_lowercase_greek_capital_sigma)
{
    cr_assert_eq(arb_uc_tolower(0x3A3), 0x3C3);
    /* Simple mapping: no final-sigma rule, so the last sigma is U+03C3 too. */
    expect_lower("\xce\x9f\xce\x94\xce\xa5\xce\xa3\xce\xa3\xce\x95\xce\xa5\xce\xa3",
                 "\xce\xbf\xce\xb4\xcf\x85\xcf\x83\xcf\x83\xce\xb5\xcf\x85\xcf\x83");
}

Test(lower, should_lowercase_cyrillic)
{
    expect_lower("\xd0\x9f\xd0\xa0\xd0\x98\xd0\x92\xd0\x95\xd0\xa2 \xd0\x81",
                 "\xd0\xbf\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82 \xd1\x91");
}

Test(lower, should_map_turkish_dotted_capital_i_to_plain_i)
{
    cr_assert_eq(arb_uc_tolower(0x130), 'i');
    cr_assert_eq(arb_uc_tolower(0x131), 0x131); /* dotless i is already lowercase */
    expect_lower("\xc4\xb0stanbul", "istanbul");
}

Test(lower, should_lowercase_deseret_four_byte_letters)
{
    cr_assert_eq(arb_uc_tolower(0x10400), 0x10428);
    expect_lower("\xf0\x90\x90\x80\xf0\x90\x90\xa8", "\xf0\x90\x90\xa8\xf0\x90\x90\xa8");
}

Test(lower, should_follow_alternating_upper_lower_blocks)
{
    cr_assert_eq(arb_uc_tolower(0x100), 0x101);
    cr_assert_eq(arb_uc_tolower(0x101), 0x101);
    cr_assert_eq(arb_uc_tolower(0x12E), 0x12F);
    cr_assert_eq(arb_uc_tolower(0x460), 0x461); /* Cyrillic omega */
    cr_assert_eq(arb_uc_tolower(0x1E00), 0x1E01);
    cr_assert_eq(arb_uc_tolower(0x1E01), 0x1E01);
}

Test(lower, should_map_letters_outside_the_common_scripts)
{
    cr_assert_eq(arb_uc_tolower(0x212A), 'k');      /* KELVIN SIGN */
    cr_assert_eq(arb_uc_tolower(0x2126), 0x3C9);    /* OHM SIGN */
    cr_assert_eq(arb_uc_tolower(0x1E9E), 0xDF);     /* CAPITAL SHARP S */
    cr_assert_eq(arb_uc_tolower(0x1C5), 0x1C6);     /* titlecase DZ with caron */
    cr_assert_eq(arb_uc_tolower(0x13A0), 0xAB70);   /* Cherokee */
    cr_assert_eq(arb_uc_tolower(0xFF21), 0xFF41);   /* fullwidth A */
    cr_assert_eq(arb_uc_tolower(0x1E900), 0x1E922); /* Adlam */
    cr_assert_eq(arb_uc_tolower(0xA7C0), 0xA7C1);   /* new in Unicode 14 */
    cr_assert_eq(arb_uc_tolower(0x4E2D), 0x4E2D);
    cr_assert_eq(arb_uc_tolower(0x10FFFF), 0x10FFFF);
    cr_assert_eq(arb_uc_tolower(0xFFFFFFFF), 0xFFFFFFFF);
}

Test(lower, should_be_idempotent_and_stay_in_range_for_every_code_point)
{
    uint32_t cp;

    for (cp = 0; cp <= 0x10FFFF; cp++) {
        uint32_t low;

        if (cp == 0xD800)
            cp = 0xE000;
        low = arb_uc_tolower(cp);

        cr_assert(low <= 0x10FFFF && (low < 0xD800 || low > 0xDFFF), "U+%04X", (unsigned)cp);
        cr_assert_eq(arb_uc_tolower(low), low, "U+%04X", (unsigned)cp);
    }
}

Test(lower, should_grow_when_a_lowercase_form_needs_more_bytes)
{
    /* U+023A (2 bytes) lowercases to U+2C65 (3 bytes). */
    expect_lower("\xc8\xba", "\xe2\xb1\xa5");
}

Test(lower, should_copy_invalid_bytes_unchanged)
{
    expect_lower("X\xffY\xc0\x80Z\xed\xa0\x80", "x\xffy\xc0\x80z\xed\xa0\x80");
}

Test(lower, should_lowercase_text_longer_than_the_staging_area)
{
    enum { N = 5000 };
    char *in = malloc(N + 1), *want = malloc(N + 1);
    size_t k;

    cr_assert(in && want);
    for (k = 0; k < N; k++) {
        in[k] = (char)("AbCdE \xc3\x89"[k % 8]);
        want[k] = (char)("abcde \xc3\xa9"[k % 8]);
    }
    in[N] = want[N] = '\0';
    expect_lower(in, want);
    free(in);
    free(want);
}

Test(lower, should_append_to_existing_content)
{
    struct arb_buf b;

    arb_buf_init(&b, 0);
    cr_assert_eq(arb_buf_adds(&b, "x:"), ARB_OK);
    cr_assert_eq(arb_utf8_lower("ABC", 3, &b), ARB_OK);
    cr_assert_str_eq(b.ptr, "x:abc");
    arb_buf_release(&b);
}

Test(lower, should_leave_the_buffer_unchanged_when_the_cap_is_hit)
{
    struct arb_buf b;
    char big[3000];

    memset(big, 'Q', sizeof(big));
    arb_buf_init(&b, 2048);
    cr_assert_eq(arb_buf_adds(&b, "ab"), ARB_OK);
    cr_assert_eq(arb_utf8_lower(big, sizeof(big), &b), ARB_ETOOBIG);
    cr_assert_eq(b.len, 2);
    cr_assert_str_eq(b.ptr, "ab");
    arb_buf_release(&b);
}

/* ---- properties -------------------------------------------------------- */

Test(props, should_classify_punctuation)
{
    const uint32_t yes[] = {'!',  ',',  '.',   '-',    '_',    '"',    '?',    '@',
                            0xA1, 0xBF, 0x55A, 0x2014, 0x3001, 0x300C, 0xFF01, 0x1E95E};
    const uint32_t no[] = {'a', '0', ' ', '$', '+', '^', 0xA9, 0x20AC, 0x1F10, 0x4E2D, 0x1F600};
    size_t k;

    for (k = 0; k < sizeof(yes) / sizeof(yes[0]); k++)
        cr_assert(arb_uc_is_punct(yes[k]), "U+%04X", (unsigned)yes[k]);
    for (k = 0; k < sizeof(no) / sizeof(no[0]); k++)
        cr_assert_not(arb_uc_is_punct(no[k]), "U+%04X", (unsigned)no[k]);
}

Test(props, should_classify_symbols)
{
    const uint32_t yes[] = {'$',  '+',  '<',  '=',    '>',    '^',    '`',     '|',    '~',
                            0xA9, 0xAC, 0xD7, 0x20AC, 0x2200, 0x2190, 0x1F600, 0x1F44D};
    const uint32_t no[] = {'a', '!', ',', '_', ' ', 0xBF, 0x3001, 0x4E2D, 0x10FFFF};
    size_t k;

    for (k = 0; k < sizeof(yes) / sizeof(yes[0]); k++)
        cr_assert(arb_uc_is_symbol(yes[k]), "U+%04X", (unsigned)yes[k]);
    for (k = 0; k < sizeof(no) / sizeof(no[0]); k++)
        cr_assert_not(arb_uc_is_symbol(no[k]), "U+%04X", (unsigned)no[k]);
}

Test(props, should_classify_white_space_as_python_isspace)
{
    const uint32_t yes[] = {' ',  '\t',   '\n',   '\v',   '\f',   '\r',   0x1C,   0x1F,   0x85,
                            0xA0, 0x1680, 0x2000, 0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000};
    const uint32_t no[] = {'a', 0x1B, 0x200B, 0x180E, 0xFEFF, 0x2060, 0x10FFFF};
    size_t k;

    for (k = 0; k < sizeof(yes) / sizeof(yes[0]); k++)
        cr_assert(arb_uc_is_space(yes[k]), "U+%04X", (unsigned)yes[k]);
    for (k = 0; k < sizeof(no) / sizeof(no[0]); k++)
        cr_assert_not(arb_uc_is_space(no[k]), "U+%04X", (unsigned)no[k]);
}
