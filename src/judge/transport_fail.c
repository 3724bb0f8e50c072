/*
 * transport_fail.c - what a failed attempt means for the transport (see
 * transport_int.h): whether a curl code or an HTTP status is worth another
 * attempt, the fixed words that describe a network failure, and whether a
 * 2xx body is one JSON value.
 *
 * Pure functions, no state.  Texts come from fixed words and curl's static
 * code text only, never from curl's error buffer, the request or the reply,
 * so a header value (the API key) cannot reach them.  Scheduling the retry
 * and honouring the server's wait are transport.c's.
 */
#include <stdio.h>

#include <cjson/cJSON.h>

#include "../util/jscan.h"
#include "transport_int.h"

/* Codes that another attempt cannot fix: our own setup, TLS trust, the size cap. */
int transport_curl_retryable(CURLcode rc)
{
    switch (rc) {
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
    case CURLE_NOT_BUILT_IN:
    case CURLE_OUT_OF_MEMORY:
    case CURLE_BAD_FUNCTION_ARGUMENT:
    case CURLE_WRITE_ERROR:
    case CURLE_ABORTED_BY_CALLBACK:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_LOGIN_DENIED:
        return 0;
    default:
        return 1;
    }
}

/* The OpenAI SDKs' list: timeouts, conflicts, rate limits, server errors. */
int transport_status_retryable(long status)
{
    return status == 408 || status == 409 || status == 429 || (status >= 500 && status < 600);
}

void transport_describe_curl(CURLcode rc, long connect_timeout_ms, long timeout_ms,
                             double elapsed_ms, char *out, size_t n)
{
    const char *what;

    switch (rc) {
    case CURLE_OPERATION_TIMEDOUT:
        /* curl uses one code for both limits; only the connect limit can fire early. */
        if (connect_timeout_ms < timeout_ms && elapsed_ms < (double)timeout_ms - 50.0)
            snprintf(out, n, "connect timed out after %ld ms", connect_timeout_ms);
        else
            snprintf(out, n, "timed out after %ld ms", timeout_ms);
        return;
    case CURLE_COULDNT_CONNECT:
        what = "connection refused";
        break;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
        what = "cannot resolve host";
        break;
    case CURLE_GOT_NOTHING:
        what = "empty reply";
        break;
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE:
        what = "connection broken";
        break;
    default:
        what = "network error";
        break;
    }
    snprintf(out, n, "%s (curl: %s)", what, curl_easy_strerror(rc));
}

int transport_is_json(const char *body, size_t len)
{
    struct arb_jscan_report rep;
    const char *end = NULL;
    cJSON *v;
    int ok;

    if (!body || len == 0)
        return 0;
    /* Strict JSON is what cJSON reads too, found without building a tree; anything else
     * (a byte order mark, "\u0000", invalid UTF-8 cJSON lets through) is cJSON's to judge. */
    if (arb_jscan_check(body, len, &rep) == ARB_OK)
        return 1;
    v = cJSON_ParseWithLengthOpts(body, len, &end, 0);
    ok = v != NULL;
    cJSON_Delete(v);
    /* One value and nothing after it but white space. */
    while (ok && end < body + len && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r'))
        end++;
    return ok && end == body + len;
}
