/*
 * transport_retry.c - the reply headers that say when to try again (see
 * transport_int.h): retry-after-ms and retry-after (what the OpenAI and
 * Anthropic SDKs read), OpenAI's x-ratelimit-reset-* (Go durations),
 * Anthropic's anthropic-ratelimit-*-reset (RFC 3339 timestamps) and
 * x-should-retry, plus the reply's Content-Type.
 *
 * Everything here is a pure function of its arguments: no clock, no
 * allocation, no curl handle (curl_getdate is a parser).  Deciding whether to
 * retry, and capping the wait, is transport.c's.  A value is parsed or
 * ignored, never half-used: a sign, an exponent, trailing junk or a field out
 * of range makes the whole value unparseable.
 */
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include "transport_int.h"

#define VALUE_MAX 64    /* a longer value of a known header is garbage */
#define SATURATE  1e18  /* a number stops growing here, so it stays finite */
#define FRAC_MIN  1e-12 /* digits past this place of a fraction are ignored */

static double clamp_wait(double s)
{
    if (s < 0)
        return 0;
    return s > TRANSPORT_WAIT_MAX ? TRANSPORT_WAIT_MAX : s;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Digits, a point and digits ("12", "0.5", ".5", "3."), at least one digit; advances *p. */
static int read_decimal(const char **p, double *out)
{
    const char *s = *p;
    double v = 0, place = 1;
    int digits = 0;

    for (; is_digit(*s); s++, digits++) {
        if (v < SATURATE)
            v = v * 10 + (*s - '0');
    }
    if (*s == '.') {
        for (s++; is_digit(*s); s++, digits++) {
            place /= 10;
            if (place >= FRAC_MIN)
                v += (*s - '0') * place;
        }
    }
    if (!digits)
        return -1;
    *p = s;
    *out = v;
    return 0;
}

/* The whole of v is one decimal number, times scale. */
static int parse_scaled(const char *v, double scale, double *out_s)
{
    double n;

    if (read_decimal(&v, &n) || *v)
        return -1;
    *out_s = clamp_wait(n * scale);
    return 0;
}

int transport_parse_retry_after_ms(const char *v, double *out_s)
{
    return parse_scaled(v, 1e-3, out_s);
}

int transport_parse_retry_after(const char *v, double now_s, double *out_s)
{
    time_t when;

    /* Every HTTP-date form starts with the day's name; anything else must be a number. */
    if (!((*v >= 'A' && *v <= 'Z') || (*v >= 'a' && *v <= 'z')))
        return parse_scaled(v, 1.0, out_s);
    when = curl_getdate(v, NULL);
    if (when == (time_t)-1)
        return -1;
    *out_s = clamp_wait((double)when - now_s);
    return 0;
}

/* A Go duration unit at *p, longest first ("ms" before "m"); its length in seconds, or -1. */
static double read_unit(const char **p)
{
    static const struct {
        const char *name;
        double seconds;
    } units[] = {{"ns", 1e-9}, {"us", 1e-6}, {"\xc2\xb5s", 1e-6}, {"\xce\xbcs", 1e-6},
                 {"ms", 1e-3}, {"s", 1.0},   {"m", 60.0},         {"h", 3600.0}};
    size_t i;

    for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        size_t n = strlen(units[i].name);

        if (strncmp(*p, units[i].name, n) == 0) {
            *p += n;
            return units[i].seconds;
        }
    }
    return -1;
}

int transport_parse_duration(const char *v, double *out_s)
{
    double total = 0, n, unit;

    /* Go writes a zero duration as "0s" but parses a bare "0" too. */
    if (strcmp(v, "0") == 0) {
        *out_s = 0;
        return 0;
    }
    if (!*v)
        return -1;
    while (*v) {
        if (read_decimal(&v, &n))
            return -1;
        unit = read_unit(&v);
        if (unit < 0)
            return -1;
        total += n * unit;
        if (total > SATURATE)
            total = SATURATE;
    }
    *out_s = clamp_wait(total);
    return 0;
}

/* Exactly n digits at *p, as a number; advances *p. */
static int read_fixed(const char **p, int n, int *out)
{
    int v = 0, i;

    for (i = 0; i < n; i++) {
        if (!is_digit((*p)[i]))
            return -1;
        v = v * 10 + ((*p)[i] - '0');
    }
    *p += n;
    *out = v;
    return 0;
}

/* The separator c at *p; advances *p. */
static int expect(const char **p, char c)
{
    if (**p != c)
        return -1;
    (*p)++;
    return 0;
}

static int days_in_month(int y, int m)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

    return m == 2 && leap ? 29 : days[m - 1];
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (Howard Hinnant's). */
static long days_from_civil(int y, int m, int d)
{
    long era, yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* "Z", or "+hh:mm" / "-hh:mm": the seconds to subtract from local time to get UTC. */
static int read_offset(const char **p, long *out)
{
    int sign, hh, mm;

    if (**p == 'Z' || **p == 'z') {
        (*p)++;
        *out = 0;
        return 0;
    }
    if (**p != '+' && **p != '-')
        return -1;
    sign = **p == '-' ? -1 : 1;
    (*p)++;
    if (read_fixed(p, 2, &hh) || expect(p, ':') || read_fixed(p, 2, &mm) || hh > 23 || mm > 59)
        return -1;
    *out = sign * (hh * 3600L + mm * 60L);
    return 0;
}

int transport_parse_rfc3339(const char *v, double *out_epoch)
{
    int y, mo, d, h, mi, s;
    double frac = 0;
    long offset;

    if (read_fixed(&v, 4, &y) || expect(&v, '-') || read_fixed(&v, 2, &mo) || expect(&v, '-') ||
        read_fixed(&v, 2, &d))
        return -1;
    /* RFC 3339 allows a space for the T (section 5.6, note). */
    if (*v != 'T' && *v != 't' && *v != ' ')
        return -1;
    v++;
    if (read_fixed(&v, 2, &h) || expect(&v, ':') || read_fixed(&v, 2, &mi) || expect(&v, ':') ||
        read_fixed(&v, 2, &s))
        return -1;
    if (*v == '.') {
        const char *dot = v;

        if (!is_digit(v[1]) || read_decimal(&dot, &frac))
            return -1;
        v = dot;
    }
    if (read_offset(&v, &offset) || *v)
        return -1;
    /* Second 60 is a leap second. */
    if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || s > 60)
        return -1;
    *out_epoch = (double)days_from_civil(y, mo, d) * 86400.0 + h * 3600.0 + mi * 60.0 + s + frac -
                 (double)offset;
    return 0;
}

void transport_hints_clear(struct transport_hints *h)
{
    h->retry_after_ms = -1;
    h->retry_after = -1;
    h->reset = -1;
    h->should_retry = -1;
    h->content_type[0] = '\0';
}

enum hint_kind {
    HINT_RETRY_AFTER_MS,
    HINT_RETRY_AFTER,
    HINT_RESET_DURATION,
    HINT_RESET_TIME,
    HINT_SHOULD_RETRY,
    HINT_CONTENT_TYPE
};

static const struct {
    const char *name;
    enum hint_kind kind;
} known_headers[] = {
    {"retry-after-ms", HINT_RETRY_AFTER_MS},
    {"retry-after", HINT_RETRY_AFTER},
    {"x-ratelimit-reset-requests", HINT_RESET_DURATION},
    {"x-ratelimit-reset-tokens", HINT_RESET_DURATION},
    {"anthropic-ratelimit-requests-reset", HINT_RESET_TIME},
    {"anthropic-ratelimit-tokens-reset", HINT_RESET_TIME},
    {"anthropic-ratelimit-input-tokens-reset", HINT_RESET_TIME},
    {"anthropic-ratelimit-output-tokens-reset", HINT_RESET_TIME},
    {"x-should-retry", HINT_SHOULD_RETRY},
    {"content-type", HINT_CONTENT_TYPE},
};

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Printable ASCII only, cut to fit: the value is shown to people, never trusted. */
static void copy_printable(char *out, size_t n, const char *v, size_t len)
{
    size_t i, k = 0;

    for (i = 0; i < len && k + 1 < n; i++)
        out[k++] = v[i] >= 0x20 && v[i] < 0x7f ? v[i] : '?';
    out[k] = '\0';
}

static void note_reset(struct transport_hints *h, double wait)
{
    if (wait > h->reset)
        h->reset = wait;
}

/* Record one known header's value (NUL-terminated, trimmed). */
static void take_value(struct transport_hints *h, enum hint_kind kind, const char *v, double now_s)
{
    double x;

    switch (kind) {
    case HINT_RETRY_AFTER_MS:
        if (transport_parse_retry_after_ms(v, &x) == 0)
            h->retry_after_ms = x;
        break;
    case HINT_RETRY_AFTER:
        if (transport_parse_retry_after(v, now_s, &x) == 0)
            h->retry_after = x;
        break;
    case HINT_RESET_DURATION:
        if (transport_parse_duration(v, &x) == 0)
            note_reset(h, x);
        break;
    case HINT_RESET_TIME:
        if (transport_parse_rfc3339(v, &x) == 0)
            note_reset(h, clamp_wait(x - now_s));
        break;
    case HINT_SHOULD_RETRY:
        if (strcasecmp(v, "true") == 0)
            h->should_retry = 1;
        else if (strcasecmp(v, "false") == 0)
            h->should_retry = 0;
        break;
    case HINT_CONTENT_TYPE:
        break; /* taken before the value is cut to VALUE_MAX */
    }
}

void transport_hints_header(struct transport_hints *h, const char *line, size_t len, double now_s)
{
    const char *colon = memchr(line, ':', len);
    const char *v, *end = line + len;
    char value[VALUE_MAX];
    size_t i, name_len;

    if (len >= 5 && memcmp(line, "HTTP/", 5) == 0) {
        transport_hints_clear(h);
        return;
    }
    if (!colon)
        return;
    name_len = (size_t)(colon - line);
    for (v = colon + 1; v < end && is_blank(*v); v++)
        ;
    while (end > v && is_blank(end[-1]))
        end--;
    for (i = 0; i < sizeof(known_headers) / sizeof(known_headers[0]); i++) {
        if (strlen(known_headers[i].name) == name_len &&
            strncasecmp(line, known_headers[i].name, name_len) == 0)
            break;
    }
    if (i == sizeof(known_headers) / sizeof(known_headers[0]))
        return;
    if (known_headers[i].kind == HINT_CONTENT_TYPE) {
        copy_printable(h->content_type, sizeof(h->content_type), v, (size_t)(end - v));
        return;
    }
    /* A NUL inside the value would hide junk after it from the parsers. */
    if ((size_t)(end - v) >= sizeof(value) || memchr(v, '\0', (size_t)(end - v)))
        return;
    memcpy(value, v, (size_t)(end - v));
    value[end - v] = '\0';
    take_value(h, known_headers[i].kind, value, now_s);
}

double transport_hints_wait(const struct transport_hints *h, long status)
{
    if (h->retry_after_ms >= 0)
        return h->retry_after_ms;
    if (h->retry_after >= 0)
        return h->retry_after;
    if (status == 429 && h->reset >= 0)
        return h->reset;
    return 0;
}
