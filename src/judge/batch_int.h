/*
 * batch_int.h - what the batch protocol files share (batch_client.c: the client and its
 * HTTP; batch_openai.c and batch_anthropic.c: the two providers' shapes).  Internal to
 * src/judge/.
 */
#ifndef ARBITER_JUDGE_BATCH_INT_H
#define ARBITER_JUDGE_BATCH_INT_H

#include <cjson/cJSON.h>

#include "arbiter/batch.h"
#include "arbiter/buf.h"
#include "judge_int.h"

struct arb_batch_client {
    const struct arb_judge_config *cfg;
    char base[1024];  /* base_url without trailing slashes */
    char *key_header; /* holds the key: wiped and freed */
    const char *headers[2]; /* the key's, the provider's */
    char **extra;           /* the config's extra headers (judge_header_lines), owned */
    struct judge_secrets secrets;
    int once;         /* the next request gets one attempt (a create: see arb_batch_create) */
    long last_status; /* the HTTP status of the last reply, 0 when none arrived, -1 when it
                         was refused here (over the size cap): not worth another attempt */
};

/* One request's reply. */
struct batch_reply {
    long status;         /* HTTP status, 0 when none arrived */
    struct arb_buf body; /* scrubbed of the secrets */
};

/*
 * method ("GET" or "POST") url with the client's headers and, for a POST, body (a JSON body
 * of len bytes, or the multipart file upload when upload_name is set: purpose "batch", the
 * file named upload_name holding body).  Network errors, 408, 429 and 5xx are tried again
 * (max_retries, backoff).  ARB_OK with a 2xx; ARB_EREMOTE naming what failed and the
 * provider's message otherwise (401/403: "authentication"); the reply is in *r either way
 * (release with batch_reply_release).
 */
enum arb_status batch_http(struct arb_batch_client *c, const char *what, const char *method,
                           const char *url, const char *body, size_t len, const char *upload_name,
                           struct batch_reply *r, struct arb_err *err);

void batch_reply_release(struct batch_reply *r);

/* Parse a 2xx reply's JSON body: NULL (and err set) when it is not an object. */
cJSON *batch_json(const struct batch_reply *r, const char *what, struct arb_err *err);

/* A string member's value, or "" (never NULL). */
const char *batch_str(const cJSON *o, const char *name);

/* Copy src into a buffer of n bytes, cut to fit. */
void batch_copy(char *dst, size_t n, const char *src);

/* The clock skew allowed between Arbiter's record of an intent and a provider's created_at:
 * Anthropic's candidates (a wider window takes in more batches that are not the one); OpenAI's
 * search by token only stops paging at batches this much older than the intent (the token
 * decides, so the window can be wide enough for any clock that is merely wrong). */
#define BATCH_CLOCK_SKEW_S        120
#define BATCH_OPENAI_CLOCK_SKEW_S 86400

/* A search for a lost batch looks through at most this many pages of 100 batches created
 * since the intent; one that could not reach older batches is an error, never "not found". */
#define BATCH_FIND_PAGES 200

/* Unix seconds as ISO 8601 UTC into out (40 bytes); an RFC 3339 time to Unix seconds (-1). */
void batch_iso(long long t, char *out);
long long batch_time(const char *iso);

/* Call fn for each non-empty line of text (NUL-terminated), the line parsed as JSON; a line
 * that is not an object is skipped. */
enum arb_status batch_lines(const char *text, int (*fn)(void *ctx, const cJSON *line), void *ctx,
                            struct arb_err *err);

/* The providers. */
enum arb_status batch_openai_create(struct arb_batch_client *c, const char *token,
                                    const char *input_file_id, struct arb_batch_remote *out,
                                    struct arb_err *err);
enum arb_status batch_openai_get(struct arb_batch_client *c, const char *id,
                                 struct arb_batch_remote *out, struct arb_err *err);
enum arb_status batch_openai_find(struct arb_batch_client *c, const char *token, const char *since,
                                  struct arb_batch_remote *out, int *found, struct arb_err *err);
enum arb_status batch_openai_results(struct arb_batch_client *c, const struct arb_batch_remote *b,
                                     int (*fn)(void *ctx, const struct arb_batch_result_line *r),
                                     void *ctx, struct arb_err *err);
enum arb_status batch_anthropic_create(struct arb_batch_client *c, const char *payload, size_t len,
                                       struct arb_batch_remote *out, struct arb_err *err);
enum arb_status batch_anthropic_get(struct arb_batch_client *c, const char *id,
                                    struct arb_batch_remote *out, struct arb_err *err);
enum arb_status batch_anthropic_find(struct arb_batch_client *c, const char *token,
                                     const char *since, long long n,
                                     int (*known)(void *ctx, const char *id), void *ctx,
                                     struct arb_batch_remote *out, int *found, struct arb_err *err);
enum arb_status batch_anthropic_results(struct arb_batch_client *c,
                                        const struct arb_batch_remote *b,
                                        int (*fn)(void *ctx, const struct arb_batch_result_line *r),
                                        void *ctx, struct arb_err *err);

#endif
