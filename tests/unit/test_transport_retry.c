/*
 * The transport's reading of retry headers (src/judge/transport_retry.c):
 * each parser against good values, garbage, negative and huge numbers and
 * times in the past, then the header lines as curl hands them over and the
 * precedence of the waits.  The HTTP side is tests/unit/test_transport.c.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/judge/transport_int.h"

#define EPOCH_2026_11_25_10_00_05 1795600805.0 /* 2026-11-25T10:00:05Z */

struct good {
    const char *v;
    double want;
};

/* Parse each good value to its number and refuse each bad one, leaving *out alone. */
static void check_parser(int (*parse)(const char *, double *), const struct good *good,
                         size_t n_good, const char *const *bad, size_t n_bad)
{
    size_t i;

    for (i = 0; i < n_good; i++) {
        double got = -42;

        cr_assert_eq(parse(good[i].v, &got), 0, "'%s' did not parse", good[i].v);
        cr_assert_float_eq(got, good[i].want, 1e-6, "'%s' gave %.12g, not %.12g", good[i].v, got,
                           good[i].want);
    }
    for (i = 0; i < n_bad; i++) {
        double got = -42;

        cr_assert_eq(parse(bad[i], &got), -1, "'%s' parsed as %.12g", bad[i], got);
        cr_assert_eq(got, -42);
    }
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

TestSuite(transport_retry);

Test(transport_retry, should_read_retry_after_ms_as_fractional_milliseconds)
{
    static const struct good good[] = {{"300", 0.3},
                                       {"12.5", 0.0125},
                                       {"0", 0},
                                       {".5", 0.0005},
                                       {"3.", 0.003},
                                       {"0020", 0.02},
                                       {"99999999999999999999999999999999999", TRANSPORT_WAIT_MAX}};
    static const char *const bad[] = {"",    "abc", "-5",    "+5",   "1e3",  "300ms", "0x10",
                                      "inf", "nan", "1.2.3", " 300", "300 ", ".",     "-0.1"};

    check_parser(transport_parse_retry_after_ms, good, N(good), bad, N(bad));
}

static double after_now;

static int retry_after_at_now(const char *v, double *out)
{
    return transport_parse_retry_after(v, after_now, out);
}

Test(transport_retry, should_read_retry_after_as_seconds_or_an_http_date)
{
    static const struct good good[] = {
        {"120", 120},
        {"0", 0},
        {"1.5", 1.5},
        {"Wed, 25 Nov 2026 10:00:05 GMT", 5},
        {"Wednesday, 25-Nov-26 10:00:05 GMT", 5},
        {"Wed Nov 25 10:00:05 2026", 5},
        {"Wed, 25 Nov 2026 09:00:00 GMT", 0}, /* in the past: no wait */
        {"Thu, 01 Jan 1970 00:00:00 GMT", 0},
        {"Fri, 31 Dec 9999 23:59:59 GMT", TRANSPORT_WAIT_MAX},
        {"18446744073709551616000000", TRANSPORT_WAIT_MAX},
    };
    static const char *const bad[] = {"",
                                      "soon",
                                      "-1",
                                      "-0",
                                      "+3",
                                      "1e2",
                                      "12s",
                                      "Wed,",
                                      "a",
                                      "Wed, 99 Foo",
                                      "Wed, 25 Nov 2026 25:00:05 GMT"};

    after_now = EPOCH_2026_11_25_10_00_05 - 5;
    check_parser(retry_after_at_now, good, N(good), bad, N(bad));
}

Test(transport_retry, should_read_go_durations)
{
    static const struct good good[] = {
        {"1s", 1},
        {"6m0s", 360},
        {"20ms", 0.02},
        {"1h2m3.5s", 3723.5},
        {"0.5s", 0.5},
        {"0s", 0},
        {"0", 0},
        {"1.5h", 5400},
        {"7.66s", 7.66},
        {"100us", 1e-4},
        {"100\xc2\xb5s", 1e-4},
        {"250ns", 2.5e-7},
        {"59.503s", 59.503},
        {"2m", 120},
        {"1s1s", 2},
        {"99999999999999999999999999h", TRANSPORT_WAIT_MAX},
    };
    static const char *const bad[] = {"",   "s",    "1",  "1x", "-1s", "+1s", "1s-",    "1 s", "ms",
                                      ".s", "1e3s", "1S", "h1", "1h ", "00",  "1.2.3s", "0.5"};

    check_parser(transport_parse_duration, good, N(good), bad, N(bad));
}

Test(transport_retry, should_read_rfc3339_timestamps)
{
    const double e = EPOCH_2026_11_25_10_00_05;
    const struct good good[] = {
        {"1970-01-01T00:00:00Z", 0},
        {"2026-11-25T10:00:05Z", e},
        {"2026-11-25T10:00:05.25Z", e + 0.25},
        {"2026-11-25T11:00:05+01:00", e},
        {"2026-11-25T05:30:05-04:30", e},
        {"2026-11-25t10:00:05z", e},
        {"2026-11-25 10:00:05Z", e},
        {"2026-11-25T10:00:05.123456789Z", e + 0.123456789},
        {"2028-02-29T00:00:00Z", 1835395200},
        {"2000-03-01T00:00:00Z", 951868800},
        {"1969-12-31T23:59:59Z", -1},
        {"2016-12-31T23:59:60Z", 1483228800}, /* a leap second */
    };
    static const char *const bad[] = {"",
                                      "garbage",
                                      "2026-11-25",
                                      "2026-11-25T10:00:05",
                                      "2026-11-25T10:00Z",
                                      "2026-02-29T00:00:00Z",
                                      "2026-13-01T00:00:00Z",
                                      "2026-00-01T00:00:00Z",
                                      "2026-11-00T00:00:00Z",
                                      "2026-11-31T00:00:00Z",
                                      "2026-11-25T24:00:00Z",
                                      "2026-11-25T10:60:00Z",
                                      "2026-11-25T10:00:61Z",
                                      "2026-11-25T10:00:05Zjunk",
                                      "2026-11-25T10:00:05.Z",
                                      "2026-11-25T10:00:05+0100",
                                      "2026-11-25T10:00:05+24:00",
                                      "+2026-11-25T10:00:05Z",
                                      "26-11-25T10:00:05Z",
                                      "2026-11-25X10:00:05Z",
                                      "1764064805"};

    check_parser(transport_parse_rfc3339, good, N(good), bad, N(bad));
}

/* Feed header lines (each "Name: value", CRLF added here) as curl would. */
static void feed(struct transport_hints *h, double now, const char *const *lines, size_t n)
{
    char line[512];
    size_t i;

    transport_hints_clear(h);
    for (i = 0; i < n; i++) {
        int k = snprintf(line, sizeof(line), "%s\r\n", lines[i]);

        transport_hints_header(h, line, (size_t)k, now);
    }
}

Test(transport_retry, should_prefer_retry_after_ms_then_retry_after)
{
    static const char *const both[] = {"HTTP/1.1 429 Too Many Requests", "Retry-After: 2",
                                       "retry-after-ms: 300", "x-ratelimit-reset-requests: 9s"};
    static const char *const seconds[] = {"HTTP/1.1 503 Busy", "RETRY-AFTER: 7",
                                          "retry-after-ms: soon"};
    struct transport_hints h;

    feed(&h, 0, both, N(both));
    cr_assert_float_eq(transport_hints_wait(&h, 429), 0.3, 1e-9);
    feed(&h, 0, seconds, N(seconds));
    cr_assert_float_eq(transport_hints_wait(&h, 503), 7, 1e-9, "garbage ms falls back");
}

Test(transport_retry, should_take_the_largest_reset_on_a_429_only)
{
    static const char *const resets[] = {
        "x-ratelimit-reset-requests: 1s",
        "x-ratelimit-reset-tokens: 6m0s",
        "anthropic-ratelimit-requests-reset: 2026-11-25T10:00:05Z",
        "Anthropic-RateLimit-Output-Tokens-Reset: 2026-11-25T10:00:30Z",
        "anthropic-ratelimit-input-tokens-reset: soon",
    };
    static const char *const past[] = {"anthropic-ratelimit-tokens-reset: 2020-01-01T00:00:00Z"};
    struct transport_hints h;
    const double now = EPOCH_2026_11_25_10_00_05 - 5;

    feed(&h, now, resets, N(resets));
    cr_assert_float_eq(transport_hints_wait(&h, 429), 360, 1e-6);
    cr_assert_eq(transport_hints_wait(&h, 503), 0, "the resets come with every reply");
    cr_assert_eq(transport_hints_wait(&h, 200), 0);
    feed(&h, now, resets + 2, 2);
    cr_assert_float_eq(transport_hints_wait(&h, 429), 30, 1e-6);
    feed(&h, now, past, N(past));
    cr_assert_eq(transport_hints_wait(&h, 429), 0);
    cr_assert_geq(h.reset, 0, "a reset in the past is present, with no wait");
}

Test(transport_retry, should_forget_headers_at_each_status_line)
{
    static const char *const lines[] = {
        "HTTP/1.1 100 Continue",   "Retry-After: 5", "x-should-retry: false",
        "Content-Type: text/html", "HTTP/2 200",     "content-type: application/json"};
    struct transport_hints h;

    feed(&h, 0, lines, N(lines));
    cr_assert_eq(transport_hints_wait(&h, 200), 0);
    cr_assert_eq(h.should_retry, -1);
    cr_assert_str_eq(h.content_type, "application/json");
}

Test(transport_retry, should_read_x_should_retry)
{
    static const char *const yes[] = {"X-Should-Retry: TRUE"};
    static const char *const no[] = {"x-should-retry:false"};
    static const char *const junk[] = {"x-should-retry: maybe", "x-should-retry: 1"};
    struct transport_hints h;

    feed(&h, 0, yes, 1);
    cr_assert_eq(h.should_retry, 1);
    feed(&h, 0, no, 1);
    cr_assert_eq(h.should_retry, 0);
    feed(&h, 0, junk, 2);
    cr_assert_eq(h.should_retry, -1);
}

Test(transport_retry, should_ignore_unknown_and_malformed_lines)
{
    static const char *const lines[] = {
        "x-retry-after: 5", "retry-after-msx: 5", "retry-after 5", "retry-after:", ": 5", "",
        "retry-after: -3",  "retry-after-ms: 1e9"};
    char longv[600];
    struct transport_hints h;

    feed(&h, 0, lines, N(lines));
    cr_assert_eq(transport_hints_wait(&h, 429), 0);
    cr_assert_lt(h.retry_after, 0);
    cr_assert_lt(h.retry_after_ms, 0);

    /* A value longer than any real one, and one with a NUL that would hide junk after it. */
    memset(longv, '9', sizeof(longv));
    memcpy(longv, "retry-after: ", 13);
    transport_hints_header(&h, longv, sizeof(longv), 0);
    transport_hints_header(&h, "retry-after: 5\0junk\r\n", 21, 0);
    cr_assert_lt(h.retry_after, 0);
}

Test(transport_retry, should_keep_the_content_type_printable_and_short)
{
    char line[300];
    struct transport_hints h;
    int k;

    transport_hints_clear(&h);
    k = snprintf(line, sizeof(line), "Content-Type:  text/event-stream; charset=utf-8 \r\n");
    transport_hints_header(&h, line, (size_t)k, 0);
    cr_assert_str_eq(h.content_type, "text/event-stream; charset=utf-8");
    transport_hints_header(&h, "Content-Type: a\x01\xc3\xa9z\r\n", 21, 0);
    cr_assert_str_eq(h.content_type, "a???z");
    memset(line, 'x', sizeof(line));
    memcpy(line, "content-type: ", 14);
    transport_hints_header(&h, line, sizeof(line), 0);
    cr_assert_eq(strlen(h.content_type), sizeof(h.content_type) - 1);
}

Test(transport_retry, should_retry_the_statuses_the_sdks_retry)
{
    static const long yes[] = {408, 409, 429, 500, 502, 503, 504, 529, 599};
    static const long no[] = {200, 301, 400, 401, 403, 404, 410, 422, 600};
    size_t i;

    for (i = 0; i < N(yes); i++)
        cr_assert(transport_status_retryable(yes[i]), "%ld", yes[i]);
    for (i = 0; i < N(no); i++)
        cr_assert_not(transport_status_retryable(no[i]), "%ld", no[i]);
}
