/*
 * http.h - the judge's transport: many HTTP POSTs at once on one curl multi
 * handle (only src/judge/ includes curl.h).
 *
 * Requests are queued with arb_transport_submit and driven by
 * arb_transport_run, which keeps at most `concurrency` transfers in flight,
 * reuses connections, applies the connect and total timeouts, and retries
 * with exponential backoff and jitter on network errors, 408, 409, 429, 5xx
 * (the OpenAI SDKs' list) and, with json_replies, a 2xx reply whose body is
 * not JSON (cut short, a proxy's HTML page).  Every finished request (success
 * or final failure) is handed to the completion callback exactly once; the
 * callback may submit more requests.  401 and 403 are never retried.
 *
 * The rules for one reply with an HTTP status, in order:
 *   1. the caller's classify hook, when set, may decide: ACCEPT a 2xx, RETRY
 *      or FINAL (see enum arb_http_verdict); FINAL wins over x-should-retry;
 *   2. otherwise the status decides (above), and then the reply's
 *      x-should-retry header (as the OpenAI and Anthropic SDKs honour it):
 *      "false" stops a retry the transport would make, "true" retries any
 *      other 4xx or 5xx except 401 and 403; either way within max_retries.
 * Header names are matched without regard to case; a value that does not
 * parse is ignored.
 *
 * The wait before a retry is the larger of the backoff (full jitter in
 * [0, backoff]) and the wait the server asked for, capped at
 * retry_after_max_s.  The server's wait is, first found:
 *   retry-after-ms   milliseconds, fractions allowed ("300", "12.5");
 *   retry-after      seconds, or an HTTP-date (then from the wall clock to it);
 *   on a 429 only, the largest of the rate-limit resets present:
 *     x-ratelimit-reset-requests, x-ratelimit-reset-tokens (OpenAI, Go
 *       durations: "1s", "6m0s", "20ms", "1h2m3.5s");
 *     anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-reset
 *       (Anthropic, RFC 3339: "2026-11-25T10:00:05Z", fractions and offsets
 *       allowed).
 * A time in the past is a wait of 0; a negative number is not parsed.  Only
 * the final response's headers count, not those of a 100 Continue or a
 * redirect before it.
 *
 * Secrets: headers (which carry the API key) are never copied into an error
 * message, a log line or a result.  Error texts are built from fixed words,
 * the status and curl's code text, never from a reply's body or headers.
 * No global state: curl_global_init is the caller's (the command line calls
 * it once, before the command's work or, for run, beside its database's
 * opening: arb_http_global_init).
 */
#ifndef ARBITER_HTTP_H
#define ARBITER_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "arbiter/status.h"

/* What the classify hook (below) makes of one reply. */
enum arb_http_verdict {
    ARB_HTTP_AS_USUAL = 0, /* the transport's own rules (so is a value not listed here) */
    ARB_HTTP_ACCEPT,       /* a 2xx the caller can read although it is not one JSON value (e.g.
                              text/event-stream): a success even with json_replies; on any
                              other status the same as ARB_HTTP_AS_USUAL */
    ARB_HTTP_RETRY,        /* a failure worth another attempt (e.g. HTTP 200 whose body is
                              {"error": ...}), within max_retries, even against x-should-retry */
    ARB_HTTP_FINAL         /* a failure no retry can fix (e.g. 429 insufficient_quota, a billing
                              stop): completes at once, even against x-should-retry */
};

struct arb_transport_opts {
    size_t concurrency;       /* transfers in flight at most (default 8) */
    long connect_timeout_ms;  /* default 10000 */
    long timeout_ms;          /* whole transfer, per attempt (default 60000) */
    int max_retries;          /* retries after the first attempt (default 4; negative: none) */
    double backoff_base_s;    /* first backoff (default 0.5), doubled each retry ... */
    double backoff_max_s;     /* ... up to this (default 30); full jitter in [0, backoff] */
    double retry_after_max_s; /* a longer server-requested wait is cut to this (default 60) */
    size_t max_body;          /* a longer reply is a failure (default 8 MiB) */
    uint64_t jitter_seed;     /* seeds the jitter PRNG (reproducible tests) */
    int json_replies;         /* a 2xx reply must be JSON: one that is not is retried */

    /*
     * Called for every attempt that got a complete HTTP reply (not one cut
     * off by a network error or past max_body), before the transport's own
     * rules, so the caller can judge by the body while the transport stays
     * protocol-agnostic.  status is the HTTP status; content_type the reply's
     * Content-Type ("" when none); body (len bytes, NUL-terminated, "" when
     * empty) is borrowed for the call.  It runs on the thread of
     * arb_transport_run and must not call the transport except
     * arb_transport_abort.  NULL: ARB_HTTP_AS_USUAL for every reply.
     */
    enum arb_http_verdict (*classify)(void *ctx, long status, const char *content_type,
                                      const char *body, size_t len);
    void *classify_ctx; /* handed to classify */
};

struct arb_http_request {
    const char *url;
    const char *const *headers; /* "Name: value" strings, n_headers of them */
    size_t n_headers;
    const char *body;
    size_t body_len;
    void *user; /* handed back in the result */
    int ahead;  /* queued ahead of the requests not started yet (after the others queued ahead,
                   and after due retries): the follow-up of a request already answered, so
                   the work it finishes does not wait behind every fresh request */
};

/*
 * What the completion callback gets.  status, body, content_type and
 * server_wait_s describe the last attempt: after a network failure status is
 * 0, content_type "" and server_wait_s 0 even when an earlier attempt got a
 * reply.
 */
struct arb_http_result {
    void *user;
    enum arb_status st; /* ARB_OK when a 2xx reply arrived (and was not refused: json_replies,
                           classify); ARB_EIO for an HTTP or network failure */
    long status;        /* last HTTP status, 0 when none arrived */
    const char *body;   /* the last reply body (NUL-terminated), valid during the callback */
    size_t body_len;
    int attempts;          /* 1 + retries made */
    double latency_s;      /* wall time from first attempt to completion */
    char content_type[96]; /* the last reply's Content-Type as sent (printable ASCII, cut to
                              fit; unscrubbed server text), "" when none */
    double server_wait_s;  /* the wait the last reply asked for (retry-after-ms, retry-after or,
                              on a 429, a rate-limit reset), before retry_after_max_s; 0 none */
    char error[256];       /* why it failed: "HTTP 500 after 5 attempts", "HTTP 200 with an
                              error body" (classify), curl's message... */
};

struct arb_transport;

/* opts may be NULL for the defaults; zero fields take their defaults. */
enum arb_status arb_transport_new(const struct arb_transport_opts *opts, struct arb_transport **out,
                                  struct arb_err *err);
void arb_transport_free(struct arb_transport *t);

/* Queue a request (url, headers and body are copied). */
enum arb_status arb_transport_submit(struct arb_transport *t, const struct arb_http_request *req,
                                     struct arb_err *err);

/*
 * Run until every queued request has completed (or a callback yields),
 * calling on_done once per request.  Returns ARB_OK, or ARB_ENOMEM / ARB_EINTERNAL when curl itself
 * fails.  After arb_transport_abort (e.g. from on_done on a 401), queued and
 * running requests complete at once with st ARB_EUSAGE and error "aborted".
 */
enum arb_status arb_transport_run(struct arb_transport *t,
                                  void (*on_done)(void *ctx, const struct arb_http_result *r),
                                  void *ctx, struct arb_err *err);

/*
 * Have arb_transport_run call on_idle (with its ctx) each time it is about to wait for the
 * network with nothing left to hand over: the moment for work on_done deferred (a commit
 * of what the callbacks stored).  on_idle may abort.  NULL: none (the default).
 */
void arb_transport_on_idle(struct arb_transport *t, void (*on_idle)(void *ctx));

/*
 * From on_done: make arb_transport_run return ARB_OK once this callback
 * returns, leaving the other requests queued, waiting, running or (finished,
 * their callbacks not made) for the next run, which hands those over first.
 * Ignored outside a run.
 */
void arb_transport_yield(struct arb_transport *t);

/*
 * Start queued requests as far as the concurrency allows and let curl send
 * what it can, without waiting and without calling on_done: a request that
 * finishes keeps its slot until the next arb_transport_run hands it over.
 * For a caller that queues requests while it holds other work (a database
 * transaction) that on_done must not run inside.  ARB_OK, ARB_EUSAGE from a
 * callback, or ARB_ENOMEM / ARB_EINTERNAL when curl fails (the next run
 * meets the failure again and completes every request with it).
 */
enum arb_status arb_transport_step(struct arb_transport *t, struct arb_err *err);

void arb_transport_abort(struct arb_transport *t);

/*
 * The caller has nothing more to send: from now on, a connection that falls idle while no
 * request is ready or waiting for its retry is closed as the next transfer finishes, while
 * the last replies are awaited, instead of all together when the transport is freed.
 * Requests submitted later still go, on new connections.
 */
void arb_transport_wind_down(struct arb_transport *t);

/*
 * Process-wide setup and teardown of the HTTP library (curl_global_init):
 * the one piece of global state, owned by the program, called once by the
 * command line.  arb_http_global_init_threadsafe is 1 when this libcurl may
 * be set up while another thread runs (CURL_VERSION_THREADSAFE, since 7.84;
 * Debian 12's 7.88 is): otherwise it must come before any thread starts.
 */
enum arb_status arb_http_global_init(void);
int arb_http_global_init_threadsafe(void);
void arb_http_global_cleanup(void);

#endif
