/*
 * http.h - the judge's transport: many HTTP POSTs at once on one curl multi
 * handle (only src/judge/ includes curl.h).
 *
 * Requests are queued with arb_transport_submit and driven by
 * arb_transport_run, which keeps at most `concurrency` transfers in flight,
 * reuses connections, applies the connect and total timeouts, and retries
 * with exponential backoff and jitter on network errors, 408, 429, 5xx (and,
 * with json_replies, a 2xx reply whose body is not JSON: cut short, a proxy's
 * HTML page), honouring Retry-After (seconds or an HTTP date).  Every finished request
 * (success or final failure) is handed to the completion callback exactly
 * once; the callback may submit more requests.  401 and 403 are never
 * retried.
 *
 * Secrets: headers (which carry the API key) are never copied into an error
 * message, a log line or a result.  No global state: curl_global_init is the
 * caller's (the command line calls it once at start).
 */
#ifndef ARBITER_HTTP_H
#define ARBITER_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "arbiter/status.h"

struct arb_transport_opts {
    size_t concurrency;       /* transfers in flight at most (default 8) */
    long connect_timeout_ms;  /* default 10000 */
    long timeout_ms;          /* whole transfer, per attempt (default 60000) */
    int max_retries;          /* retries after the first attempt (default 4; negative: none) */
    double backoff_base_s;    /* first backoff (default 0.5), doubled each retry ... */
    double backoff_max_s;     /* ... up to this (default 30); full jitter in [0, backoff] */
    double retry_after_max_s; /* a larger Retry-After is capped to this (default 60) */
    size_t max_body;          /* a longer reply is a failure (default 8 MiB) */
    uint64_t jitter_seed;     /* seeds the jitter PRNG (reproducible tests) */
    int json_replies;         /* a 2xx reply must be JSON: one that is not is retried */
};

struct arb_http_request {
    const char *url;
    const char *const *headers; /* "Name: value" strings, n_headers of them */
    size_t n_headers;
    const char *body;
    size_t body_len;
    void *user; /* handed back in the result */
};

struct arb_http_result {
    void *user;
    enum arb_status st; /* ARB_OK when a 2xx reply arrived */
    long status;        /* last HTTP status, 0 when none arrived */
    const char *body;   /* the last reply body (NUL-terminated), valid during the callback */
    size_t body_len;
    int attempts;     /* 1 + retries made */
    double latency_s; /* wall time from first attempt to completion */
    char error[256];  /* why it failed: "HTTP 500 after 5 attempts", curl's message... */
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
 * Run until every queued request has completed, calling on_done once per
 * request.  Returns ARB_OK, or ARB_ENOMEM / ARB_EINTERNAL when curl itself
 * fails.  After arb_transport_abort (e.g. from on_done on a 401), queued and
 * running requests complete at once with st ARB_EUSAGE and error "aborted".
 */
enum arb_status arb_transport_run(struct arb_transport *t,
                                  void (*on_done)(void *ctx, const struct arb_http_result *r),
                                  void *ctx, struct arb_err *err);

void arb_transport_abort(struct arb_transport *t);

/*
 * Process-wide setup and teardown of the HTTP library (curl_global_init):
 * the one piece of global state, owned by the program, called once from main.
 */
enum arb_status arb_http_global_init(void);
void arb_http_global_cleanup(void);

#endif
