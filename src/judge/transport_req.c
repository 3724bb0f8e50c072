/*
 * transport_req.c - one request of the judge's transport (see transport_int.h):
 * its copy of what the caller submitted, the curl options of an attempt, the
 * callbacks that read the reply and its headers, and what a complete reply
 * means (success, or a failure worth another attempt).  When an attempt
 * starts, waits or completes is transport.c's; what a curl code or a status
 * means, transport_fail.c's; the retry headers, transport_retry.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include "arbiter/buf.h"
#include "arbiter/http.h"
#include "transport_int.h"

/* Wall clock, seconds since the epoch: for the dates in Retry-After and the reset headers. */
static double wall_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void transport_req_free(struct req *r)
{
    if (!r)
        return;
    free(r->url);
    free(r->body);
    curl_slist_free_all(r->headers);
    arb_buf_release(&r->reply);
    free(r);
}

void transport_req_free_list(struct req *r)
{
    while (r) {
        struct req *next = r->next;

        transport_req_free(r);
        r = next;
    }
}

/* Append a copy of one header; a line break in it would smuggle another header in. */
static enum arb_status add_header(struct curl_slist **list, const char *h, size_t i,
                                  struct arb_err *err)
{
    struct curl_slist *n;

    if (!h)
        return arb_err_set(err, ARB_EUSAGE, "request header %zu is NULL", i);
    if (strpbrk(h, "\r\n"))
        return arb_err_set(err, ARB_EUSAGE, "request header %zu contains a line break", i);
    n = curl_slist_append(*list, h);
    if (!n)
        return arb_err_set(err, ARB_ENOMEM, "out of memory copying request headers");
    *list = n;
    return ARB_OK;
}

static int is_expect_header(const char *h)
{
    return h && strncasecmp(h, "Expect:", 7) == 0;
}

enum arb_status transport_req_copy(struct req *r, const struct arb_http_request *in,
                                   struct arb_err *err)
{
    enum arb_status st;
    int has_expect = 0;
    size_t i;

    r->url = strdup(in->url);
    r->body = malloc(in->body_len + 1);
    if (!r->url || !r->body)
        return arb_err_set(err, ARB_ENOMEM, "out of memory copying a request");
    if (in->body_len)
        memcpy(r->body, in->body, in->body_len);
    r->body[in->body_len] = '\0';
    r->body_len = in->body_len;
    for (i = 0; i < in->n_headers; i++) {
        st = add_header(&r->headers, in->headers[i], i, err);
        if (st)
            return st;
        has_expect |= is_expect_header(in->headers[i]);
    }
    /* curl would wait up to a second for "100 Continue" before sending a large body. */
    if (!has_expect)
        return add_header(&r->headers, "Expect:", in->n_headers, err);
    return ARB_OK;
}

static size_t on_write(char *data, size_t size, size_t nmemb, void *user)
{
    struct req *r = user;
    enum arb_status st = arb_buf_add(&r->reply, data, size * nmemb);

    if (st == ARB_ETOOBIG)
        r->too_big = 1;
    else if (st)
        r->no_mem = 1;
    /* Anything short of the full count makes curl abort with CURLE_WRITE_ERROR. */
    return st ? 0 : size * nmemb;
}

/* Every header line of every response curl reads (100-continue and redirects too). */
static size_t on_header(char *data, size_t size, size_t nmemb, void *user)
{
    struct req *r = user;

    transport_hints_header(&r->hints, data, size * nmemb, wall_s());
    return size * nmemb;
}

CURLcode transport_req_options(const struct arb_transport *t, CURL *e, struct req *r)
{
    CURLcode rc = curl_easy_setopt(e, CURLOPT_URL, r->url);

    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    /* A proxy from the environment is fine for the world, never for loopback. */
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_NOPROXY, "127.0.0.1,localhost,::1");
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, t->o.connect_timeout_ms);
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, t->o.timeout_ms);
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_USERAGENT, "arbiter");
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_POST, 1L);
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_POSTFIELDS, r->body);
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_len);
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_HTTPHEADER, r->headers);
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_HEADERDATA, r);
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_PRIVATE, r);
    return rc;
}

/* The caller's verdict on a complete reply; ACCEPT of a non-2xx, or a value out of range, is
 * AS_USUAL. */
static enum arb_http_verdict classify(const struct arb_transport *t, const struct req *r)
{
    enum arb_http_verdict v;

    if (!t->o.classify)
        return ARB_HTTP_AS_USUAL;
    v = t->o.classify(t->o.classify_ctx, r->status, r->hints.content_type,
                      r->reply.ptr ? r->reply.ptr : "", r->reply.len);
    switch (v) {
    case ARB_HTTP_ACCEPT:
        return r->status >= 200 && r->status < 300 ? v : ARB_HTTP_AS_USUAL;
    case ARB_HTTP_RETRY:
    case ARB_HTTP_FINAL:
        return v;
    case ARB_HTTP_AS_USUAL:
        break;
    }
    return ARB_HTTP_AS_USUAL;
}

/*
 * What a complete reply means: 1 for a success; else 0 with why and *retry
 * set.  The caller's RETRY or FINAL decides; otherwise the status does, and
 * x-should-retry overrides it (except that 401 and 403 stay final).
 */
int transport_req_outcome(const struct arb_transport *t, const struct req *r, int *retry, char *why,
                          size_t n)
{
    long status = r->status;
    int is_2xx = status >= 200 && status < 300;
    enum arb_http_verdict v = classify(t, r);

    if (v == ARB_HTTP_ACCEPT ||
        (is_2xx && v == ARB_HTTP_AS_USUAL &&
         (!t->o.json_replies || transport_is_json(r->reply.ptr, r->reply.len))))
        return 1;
    if (is_2xx && v == ARB_HTTP_AS_USUAL)
        /* Cut short, or an HTML page from a proxy: the same request may well succeed. */
        snprintf(why, n, "HTTP %ld with a body that is not JSON", status);
    else if (is_2xx)
        snprintf(why, n, "HTTP %ld with an error body", status);
    else
        snprintf(why, n, "HTTP %ld", status);
    if (v != ARB_HTTP_AS_USUAL) {
        *retry = v == ARB_HTTP_RETRY;
        return 0;
    }
    *retry = is_2xx || transport_status_retryable(status);
    if (r->hints.should_retry == 0)
        *retry = 0;
    else if (r->hints.should_retry == 1 && status >= 400 && status != 401 && status != 403)
        *retry = 1;
    return 0;
}
