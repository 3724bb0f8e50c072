/*
 * transport_int.h - what transport.c (the scheduler: queues, slots, the run
 * loop) shares with transport_req.c (one request: its copy, curl options,
 * reply callbacks, what a reply means), transport_fail.c (what a failed
 * attempt means) and transport_retry.c (the reply headers that tell a client
 * when, and whether, to try again).  Internal to src/judge/.
 *
 * The parsers are pure: they read a NUL-terminated value (already trimmed),
 * take "now" as an argument when a value is a point in time, and return 0 with
 * the result or -1 for a value they do not understand (which the caller then
 * ignores).  Waits are seconds, never negative (a time in the past is a wait
 * of 0) and saturate at TRANSPORT_WAIT_MAX, so a huge value stays a finite
 * number for the caller to cap.
 */
#ifndef ARBITER_TRANSPORT_INT_H
#define ARBITER_TRANSPORT_INT_H

#include <poll.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <curl/curl.h>

#include "arbiter/buf.h"
#include "arbiter/http.h"

/* ---- failures (transport_fail.c) ---- */

/* 1 when another attempt may fix a transfer that failed with rc (not our setup, TLS trust...). */
int transport_curl_retryable(CURLcode rc);

/* 1 for the statuses the OpenAI SDKs retry: 408, 409, 429 and 5xx. */
int transport_status_retryable(long status);

/*
 * A short reason for a transfer that failed with rc ("connection refused
 * (curl: ...)", "timed out after 300 ms") into out (n bytes), from fixed words
 * and curl's static code text only.  elapsed_ms tells the connect limit from
 * the whole-transfer limit, which curl reports with one code.
 */
void transport_describe_curl(CURLcode rc, long connect_timeout_ms, long timeout_ms,
                             double elapsed_ms, char *out, size_t n);

/* 1 when body (len bytes) is one JSON value and nothing after it but white space. */
int transport_is_json(const char *body, size_t len);

/* ---- retry headers (transport_retry.c) ---- */

#define TRANSPORT_WAIT_MAX 1e9 /* seconds: about 31 years, far past any cap */

/* "300", "12.5": retry-after-ms, milliseconds (fractions allowed).  *out_s in seconds. */
int transport_parse_retry_after_ms(const char *v, double *out_s);

/*
 * retry-after: delta seconds ("120"; a fraction is tolerated) or an HTTP-date
 * ("Wed, 25 Nov 2026 10:00:05 GMT", and the two obsolete forms), the latter
 * as the time from now_s (wall clock, seconds since the epoch) to that date.
 */
int transport_parse_retry_after(const char *v, double now_s, double *out_s);

/* A Go duration as OpenAI's x-ratelimit-reset-* carry it: "1s", "6m0s", "20ms", "1h2m3.5s". */
int transport_parse_duration(const char *v, double *out_s);

/*
 * An RFC 3339 timestamp as Anthropic's anthropic-ratelimit-*-reset carry it
 * ("2026-11-25T10:00:05Z", "2026-11-25T11:00:05.25+01:00"): *out_epoch is
 * seconds since the epoch (may be negative; not clamped).
 */
int transport_parse_rfc3339(const char *v, double *out_epoch);

/* What one reply's headers said about retrying; filled one header line at a time. */
struct transport_hints {
    double retry_after_ms; /* seconds; < 0 when absent or unparseable */
    double retry_after;    /* seconds; < 0 when absent or unparseable */
    double reset;          /* the largest rate-limit reset, seconds; < 0 when none */
    int should_retry;      /* x-should-retry: 1 true, 0 false, -1 absent or neither */
    char content_type[96]; /* printable ASCII, cut to fit; "" when none */
};

/* Forget everything: before an attempt, and at each status line (100-continue, redirects). */
void transport_hints_clear(struct transport_hints *h);

/*
 * Take one raw header line as curl hands it over (len bytes, not
 * NUL-terminated, CRLF included).  A status line ("HTTP/...") clears h; a
 * header this file does not know, or a value it cannot parse, is ignored.
 * now_s is the wall clock (seconds since the epoch) for date values.
 */
void transport_hints_header(struct transport_hints *h, const char *line, size_t len, double now_s);

/*
 * The wait the reply asked for, in seconds (0 when none): retry-after-ms,
 * else retry-after, else (only for a 429) the largest reset header.  Not
 * capped: the caller applies its own limit.
 */
double transport_hints_wait(const struct transport_hints *h, long status);

/* ---- the transport and its requests (transport.c, transport_req.c) ---- */

/* One submitted request, from arb_transport_submit to its completion. */
struct req {
    struct req *next; /* in the ready FIFO or the waiting list */
    char *url;
    char *body; /* never NULL, so POSTFIELDS always points somewhere */
    size_t body_len;
    struct curl_slist *headers; /* owned copy, plus "Expect:" */
    void *user;
    CURL *easy; /* while running */
    int attempts;
    double first_start; /* monotonic seconds */
    double attempt_start;
    double due;                   /* when waiting: monotonic time of the next attempt */
    long status;                  /* last HTTP status seen */
    double server_wait;           /* seconds the last reply asked to wait, uncapped */
    struct transport_hints hints; /* from the last reply's headers */
    struct arb_buf reply;
    int too_big;             /* the write callback refused a chunk past the cap */
    int no_mem;              /* the write callback ran out of memory */
    enum arb_status outcome; /* when done: how it ended ... */
    char why[200];           /* ... and why, "" for a success */
};

/* A socket poll() found with news, and what it means for curl (transport_drive.c). */
struct transport_news {
    curl_socket_t fd;
    int mask; /* CURL_CSELECT_* */
};

struct arb_transport {
    struct arb_transport_opts o;
    CURLM *multi;
    uint64_t rng; /* splitmix64 state for the jitter */
    struct req *ready, *ready_tail;
    struct req *ahead_tail;       /* the last request queued ahead (arb_http_request.ahead)
                                     still in ready, else NULL */
    struct req *waiting;          /* ordered by due, earliest first */
    struct req *done, *done_tail; /* completed, callback not yet made (FIFO) */
    int done_failed;              /* one of them failed: its callback may abort, so it runs
                                     before the freed slots are refilled */
    struct req **active;          /* o.concurrency slots; n_active in use */
    size_t n_active;
    CURL **idle; /* easy handles not in use; n_idle of them */
    size_t n_idle;
    atomic_int aborted;
    int in_run;
    int yield;      /* a callback asked arb_transport_run to return */
    double stepped; /* when arb_transport_step last ran curl (monotonic seconds) */
    int winding;    /* arb_transport_wind_down: keep only the connections in use */
    long max_conns; /* CURLMOPT_MAXCONNECTS as last set */
    void (*on_done)(void *ctx, const struct arb_http_result *r);
    void (*on_idle)(void *ctx); /* arb_transport_on_idle: before a run waits for curl */
    void *ctx;
    enum arb_status run_st; /* first infrastructure failure of this run */
    /* curl's sockets and timer (transport_drive.c) */
    struct pollfd *pfd; /* pfd[0]: the wake pipe's read end; then curl's sockets */
    size_t n_pfd, cap_pfd;
    struct transport_news *news; /* scratch: the sockets with news, cap_news of them */
    size_t cap_news;
    int wake[2];     /* a pipe: arb_transport_abort writes, a wait wakes */
    double timer_at; /* when curl's timeout is due (monotonic seconds); -1: none */
};

/* Monotonic seconds, the clock of every due time and latency here (transport.c). */
double transport_now_s(void);

/*
 * curl driven by its sockets and timer (transport_drive.c).  init sets the multi handle's
 * socket and timer callbacks and makes the wake pipe (a CURLMcode; wake[] is -1 before it,
 * so that free, after curl_multi_cleanup, closes only what init made).  transport_drive acts
 * on curl's due timer, waits up to limit_ms (0: not at all) for news on curl's sockets,
 * curl's next timeout or a wake, and tells curl of what came; *ready (may be NULL): how many
 * sockets had news.  transport_drive_wake, from any thread, ends a wait.
 */
CURLMcode transport_drive_init(struct arb_transport *t);
void transport_drive_free(struct arb_transport *t);
CURLMcode transport_drive(struct arb_transport *t, int limit_ms, int *ready);
void transport_drive_wake(struct arb_transport *t);

/* Free one request (what it owns; its easy handle is the transport's), or a list of them. */
void transport_req_free(struct req *r);
void transport_req_free_list(struct req *r);

/* Copy what the caller submitted into r (url, body, headers plus "Expect:"); ARB_EUSAGE for a
 * header that is NULL or holds a line break, ARB_ENOMEM. */
enum arb_status transport_req_copy(struct req *r, const struct arb_http_request *in,
                                   struct arb_err *err);

/* Set the options of one attempt of r on the easy handle e (reset before). */
CURLcode transport_req_options(const struct arb_transport *t, CURL *e, struct req *r);

/*
 * What a complete reply to r means: 1 for a success; else 0 with why (n bytes) and *retry
 * set.  The caller's classify hook decides first; otherwise the status does, and
 * x-should-retry overrides it (except that 401 and 403 stay final).
 */
int transport_req_outcome(const struct arb_transport *t, const struct req *r, int *retry, char *why,
                          size_t n);

#endif
