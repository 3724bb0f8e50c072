/*
 * The judge's scrubber (src/judge/scrub.c): every spelling of a secret in a
 * reply is replaced, glued to anything, JSON-escaped once or twice, secrets
 * that overlap replaced as one, and a body of a megabyte full of near misses
 * scrubbed in one pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/judge/judge_int.h"

static char *scrubbed(const struct judge_secrets *s, const char *text)
{
    char *out = NULL;
    size_t len = 0;

    cr_assert_eq(judge_scrub(s, text, strlen(text), &out, &len), ARB_OK);
    return out; /* NULL: nothing to scrub */
}

Test(scrub, should_replace_plain_glued_and_escaped_spellings)
{
    struct judge_secrets s;
    char *o;

    cr_assert_eq(judge_secrets_init(&s, "sk-canary-7f3a9c1e", NULL), ARB_OK);
    o = scrubbed(&s, "Authorization: Bearer sk-canary-7f3a9c1e!");
    cr_assert_str_eq(o, "Authorization: Bearer [REDACTED]!");
    free(o);
    o = scrubbed(&s, "{\"message\":\"key=sk\\u002dcanary\\u002d7f3a9c1e\"}");
    cr_assert_str_eq(o, "{\"message\":\"key=[REDACTED]\"}", "a server's JSON escapes: %s", o);
    free(o);
    o = scrubbed(&s, "{\"content\":\"{\\\"r\\\":\\\"sk\\\\u002dcanary\\\\u002d7f3a9c1e\\\"}\"}");
    cr_assert_not_null(o);
    cr_assert_null(strstr(o, "7f3a9c1e"), "an escape inside an escaped answer: %s", o);
    free(o);
    cr_assert_null(scrubbed(&s, "nothing secret here, sk-canary- alone"));
    judge_secrets_release(&s);
}

Test(scrub, should_replace_overlapping_secrets_as_one)
{
    struct judge_secrets s;
    char *o;

    cr_assert_eq(judge_secrets_init(&s, "abcdefgh12345678", "http://u:12345678zyxwvuts@h/v1"),
                 ARB_OK);
    o = scrubbed(&s, "[abcdefgh12345678zyxwvuts]");
    cr_assert_str_eq(o, "[[REDACTED]]", "no tail of the second secret survives: %s", o);
    free(o);
    judge_secrets_release(&s);
}

Test(scrub, should_leave_short_keys_alone)
{
    struct judge_secrets s;

    cr_assert_eq(judge_secrets_init(&s, "unused", NULL), ARB_OK);
    cr_assert_null(scrubbed(&s, "an unused key is not a secret worth hiding"));
    judge_secrets_release(&s);
}

Test(scrub, should_scrub_a_megabyte_of_near_misses_in_one_pass, .timeout = 20)
{
    struct judge_secrets s;
    size_t n = 1 << 20, i;
    char *text = malloc(n + 1), *o;

    cr_assert_not_null(text);
    /* Every position starts like the key; a quadratic scan took minutes on this. */
    for (i = 0; i < n; i++)
        text[i] = "sk-canar"[i % 8];
    memcpy(text + n / 2, "sk-canary-7f3a9c1e", 18);
    text[n] = '\0';
    judge_secrets_init(&s, "sk-canary-7f3a9c1e", "http://user:Pa55-word-long@h/v1");
    o = scrubbed(&s, text);
    cr_assert_not_null(o);
    cr_assert_null(strstr(o, "7f3a9c1e"));
    free(o);
    free(text);
    judge_secrets_release(&s);
}

Test(scrub, should_replace_every_secret_however_many)
{
    struct judge_secrets s;
    char secret[40], text[80], *o;

    /* A key, a URL's credentials (six spellings) and forty header values from the
     * environment: a list of a fixed 16 dropped the ones past it, and those went unscrubbed. */
    cr_assert_eq(judge_secrets_init(&s, "sk-canary-7f3a9c1e", "http://us%40r:p%40ssw0rd-x@h/v1"),
                 ARB_OK);
    for (int i = 0; i < 40; i++) {
        snprintf(secret, sizeof(secret), "header-secret-%02d-%08x", i, 0x9e3779b9u * (unsigned)i);
        cr_assert_eq(judge_secrets_add(&s, secret), ARB_OK);
    }
    cr_assert_geq(s.n, 41);
    for (int i = 0; i < 40; i++) {
        snprintf(secret, sizeof(secret), "header-secret-%02d-%08x", i, 0x9e3779b9u * (unsigned)i);
        snprintf(text, sizeof(text), "echo: %s.", secret);
        o = scrubbed(&s, text);
        cr_assert_not_null(o, "secret %d was not scrubbed", i);
        cr_assert_str_eq(o, "echo: [REDACTED].");
        free(o);
    }
    o = scrubbed(&s, "p@ssw0rd-x and sk-canary-7f3a9c1e");
    cr_assert_str_eq(o, "[REDACTED] and [REDACTED]");
    free(o);
    judge_secrets_release(&s);
    cr_assert_null(s.v);
    cr_assert_eq(s.n, 0);
}
