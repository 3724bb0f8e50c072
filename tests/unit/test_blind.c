/* Blinding: reproducible, order-independent, balanced assignment; redaction. */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/blind.h"

Test(blind, should_assign_reproducibly_and_independently_of_order)
{
    int a1, a2;
    char h1[65], h2[65];

    cr_assert_eq(arb_blind_assign(7, "inv-001", 0, &a1, h1), ARB_OK);
    cr_assert_eq(arb_blind_assign(7, "inv-002", 0, &a2, NULL), ARB_OK);
    cr_assert_eq(arb_blind_assign(7, "inv-001", 0, &a2, h2), ARB_OK);
    cr_assert_eq(a1, a2);
    cr_assert_str_eq(h1, h2);
    cr_assert_eq(strlen(h1), 64);
}

Test(blind, should_match_a_known_hmac)
{
    /* HMAC-SHA256(key = 00 00 00 00 00 00 00 07, "inv-001"), computed with openssl dgst. */
    char hex[65];
    int a;

    cr_assert_eq(arb_blind_assign(7, "inv-001", 0, &a, hex), ARB_OK);
    cr_assert_str_eq(hex, "53d2f080e78cdc60b0fb7af04e98db9d7a09df5f64ececfde0ad25ad009204e8");
    cr_assert_eq(a, 1, "bit 0 of byte 0x53 is set: the first system is A");
    cr_assert_eq(arb_blind_assign(7, "inv-001", 5, &a, NULL), ARB_OK);
    cr_assert_eq(a, 0, "bit 5 of byte 0x53 is clear");
}

Test(blind, should_balance_positions_over_many_cases)
{
    char id[32];
    int a, i, first = 0;

    for (i = 0; i < 10000; i++) {
        snprintf(id, sizeof(id), "case-%d", i);
        cr_assert_eq(arb_blind_assign(42, id, 0, &a, NULL), ARB_OK);
        first += a;
    }
    /* A fair coin: 10,000 flips land within 4.5 standard deviations (50) of 5,000. */
    cr_assert(first > 4775 && first < 5225, "%d of 10000 shown first", first);
}

Test(blind, should_change_with_the_seed)
{
    char id[32];
    int a, b, i, differ = 0;

    for (i = 0; i < 200; i++) {
        snprintf(id, sizeof(id), "c%d", i);
        arb_blind_assign(1, id, 0, &a, NULL);
        arb_blind_assign(2, id, 0, &b, NULL);
        differ += a != b;
    }
    cr_assert(differ > 50 && differ < 150);
}

Test(blind, should_redact_case_insensitively_longest_first)
{
    const char *names[] = {"gpt-4o", "gpt-4o-mini", "Claude", ""};
    struct arb_buf out;
    size_t n = 0;

    arb_buf_init(&out, 0);
    cr_assert_eq(arb_redact("As GPT-4o-mini and claude say: gpt-4o.", 38, names, 4, &out, &n),
                 ARB_OK);
    cr_assert_str_eq(out.ptr, "As [REDACTED] and [REDACTED] say: [REDACTED].");
    cr_assert_eq(n, 3);
    arb_buf_release(&out);
}

Test(blind, should_redact_whole_words_only)
{
    const char *names[] = {"baseline", "a"};
    struct arb_buf out;
    size_t n = 0;

    arb_buf_init(&out, 0);
    cr_assert_eq(arb_redact("baselines beat a baseline, said baseline-2", 42, names, 2, &out, &n),
                 ARB_OK);
    cr_assert_str_eq(out.ptr, "baselines beat [REDACTED] [REDACTED], said [REDACTED]-2");
    cr_assert_eq(n, 3);
    arb_buf_release(&out);
}

Test(blind, should_leave_text_without_matches_alone)
{
    const char *names[] = {"skill-x"};
    struct arb_buf out;
    size_t n = 9;

    arb_buf_init(&out, 0);
    cr_assert_eq(arb_redact("", 0, names, 1, &out, &n), ARB_OK);
    cr_assert_str_eq(out.ptr, "");
    cr_assert_eq(arb_redact("skill-", 6, names, 1, &out, &n), ARB_OK);
    cr_assert_str_eq(out.ptr, "skill-");
    cr_assert_eq(n, 0);
    arb_buf_release(&out);
}

#include "arbiter/strset.h"

Test(strset, should_remember_first_values_across_growth)
{
    struct arb_strset s;
    char key[32];
    size_t i, v;
    int added;

    arb_strset_init(&s);
    cr_assert_eq(arb_strset_get(&s, "x", NULL), 0);
    for (i = 0; i < 5000; i++) {
        snprintf(key, sizeof(key), "id-%zu", i);
        cr_assert_eq(arb_strset_add(&s, key, i, &added, NULL), ARB_OK);
        cr_assert_eq(added, 1);
    }
    cr_assert_eq(arb_strset_add(&s, "id-17", 99, &added, &v), ARB_OK);
    cr_assert_eq(added, 0);
    cr_assert_eq(v, 17);
    cr_assert(arb_strset_get(&s, "id-4999", &v));
    cr_assert_eq(v, 4999);
    cr_assert_eq(s.n, 5000);
    arb_strset_release(&s);
}

/* The keyed-once blinder decides exactly as arb_blind_assign, on any seed, case and pair. */
Test(blind, should_decide_as_arb_blind_assign_when_keyed_once)
{
    const uint64_t seeds[] = {0, 7, 42, 0x8000000000000000ull, UINT64_MAX};
    const char *cases[] = {"", "c1", "invoice-0042", "caf\xc3\xa9",
                           "a much longer case id, with spaces"};

    for (size_t s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
        struct arb_blinder *b = NULL;

        cr_assert_eq(arb_blinder_new(seeds[s], &b), ARB_OK);
        for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
            for (size_t k = 0; k < 256; k += 17) {
                char h1[65], h2[65];
                int a1 = -1, a2 = -2;

                cr_assert_eq(arb_blind_assign(seeds[s], cases[c], k, &a1, h1), ARB_OK);
                cr_assert_eq(arb_blinder_assign(b, cases[c], k, &a2, h2), ARB_OK);
                cr_assert_eq(a1, a2, "seed %zu case '%s' pair %zu", s, cases[c], k);
                cr_assert_str_eq(h1, h2);
            }
        }
        arb_blinder_free(b);
    }
}

/* Issue 15: 24 systems have 276 pairs; pair k >= 256 takes a bit of the HMAC of block k / 256. */
Test(blind, should_decide_pairs_past_256_from_further_blocks)
{
    /* HMAC-SHA256(key 00..07, "inv-001" 00 00 00 00 00 00 00 00 01), by Python's hmac. */
    char hex[65];
    int a = -1, i, first = 0;
    char id[32];

    cr_assert_eq(arb_blind_assign(7, "inv-001", 300, &a, hex), ARB_OK);
    cr_assert_str_eq(hex, "e707c9a95843c839f31efb5740523e3cdd80a9c1e3bf1a08773393fc41e07fb0");
    cr_assert_eq(a, 0, "bit 44 of block 1");
    for (i = 0; i < 2000; i++) {
        snprintf(id, sizeof(id), "case-%d", i);
        cr_assert_eq(arb_blind_assign(42, id, 434, &a, NULL), ARB_OK);
        first += a;
    }
    cr_assert(first > 850 && first < 1150, "%d of 2000 shown first", first);
}

/* Issue 15: a name spelled with JSON escapes is the same name to a judge. */
Test(blind, should_redact_json_escaped_spellings)
{
    const char *names[] = {"gpt-4o", "caf\xc3\xa9-bot", "a/b-model", "\xf0\x9f\x98\x80x"};
    const char *text = "m=gpt\\u002d4o; n=gpt\\\\u002D4O; \\u0067pt-4o; caf\\u00e9-bot; "
                       "a\\/b-model; \\ud83d\\ude00x; line\\ngpt-4o; \\u0041gpt-4o; "
                       "gpt\\u002d4oo; gpt\\u002d4o\\u0062";
    struct arb_buf out;
    size_t n = 0;

    arb_buf_init(&out, 0);
    cr_assert_eq(arb_redact(text, strlen(text), names, 4, &out, &n), ARB_OK);
    cr_assert_str_eq(out.ptr, "m=[REDACTED]; n=[REDACTED]; [REDACTED]; [REDACTED]; "
                              "[REDACTED]; [REDACTED]; line\\n[REDACTED]; \\u0041gpt-4o; "
                              "gpt\\u002d4oo; gpt\\u002d4o\\u0062");
    cr_assert_eq(n, 7);
    arb_buf_release(&out);
}

#include "arbiter/fpset.h"

Test(fpset, should_remember_first_values_and_tell_keys_apart)
{
    struct arb_fpset s;
    char key[32];
    uint64_t *v = NULL;
    size_t i;
    int added;

    arb_fpset_init(&s);
    cr_assert_null(arb_fpset_get(&s, "x"));
    for (i = 0; i < 100000; i++) {
        snprintf(key, sizeof(key), "case-%06zu", i);
        cr_assert_eq(arb_fpset_add(&s, key, i, &added, NULL), ARB_OK);
        cr_assert_eq(added, 1, "%s", key);
    }
    cr_assert_eq(arb_fpset_add(&s, "case-000017", 99, &added, &v), ARB_OK);
    cr_assert_eq(added, 0);
    cr_assert_eq(*v, 17);
    cr_assert_eq(*arb_fpset_get(&s, "case-099999"), 99999);
    cr_assert_null(arb_fpset_get(&s, "case-100000"));
    cr_assert_neq(arb_fpset_hash(""), 0);
    cr_assert_neq(arb_fpset_hash("a"), arb_fpset_hash("b"));
    cr_assert_eq(s.n, 100000);
    arb_fpset_release(&s);
}

/*
 * Two ids with one fingerprint, for tests/cli/collide.sh: the hash's steps are bijections, so
 * for a first 16-byte id and a second's first 8 bytes, the last 8 that make them collide are
 * h1(first) ^ last8(first) ^ h1(second) (h1: the state after the first 8 bytes); searched
 * over "c%07d" for one of printable characters.  Should the hash change, derive a new pair.
 */
Test(fpset, should_give_the_collide_test_ids_one_fingerprint)
{
    struct arb_fpset s;
    int added = -1;

    cr_assert_eq(arb_fpset_hash("case-000aaaaaaaa"), arb_fpset_hash("c0169061D9nM3rtY"),
                 "tests/cli/collide.sh's ids no longer collide: derive a new pair");
    arb_fpset_init(&s);
    cr_assert_eq(arb_fpset_add(&s, "case-000aaaaaaaa", 1, &added, NULL), ARB_OK);
    cr_assert_eq(arb_fpset_add(&s, "c0169061D9nM3rtY", 2, &added, NULL), ARB_OK);
    cr_assert_eq(added, 0, "one entry for the two ids");
    arb_fpset_release(&s);
}
