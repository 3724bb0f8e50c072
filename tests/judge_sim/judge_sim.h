/*
 * judge_sim.h - shared types of the test judge, a loopback HTTP server that speaks the OpenAI
 * chat-completions and Anthropic messages protocols for Arbiter's tests.
 *
 * The program is split in these files: judge_sim.c (command line, signals, daemon), handler.c
 * (HTTP requests: routes, auth, faults), reply.c (reply and error bodies), gen.c (hashing, PRNG,
 * replies built from a JSON Schema), state.c (the per-body attempt table, the request log,
 * interruptible sleeps), fence.c (Arbiter's fence code masked), fixture.c (--fixture: a provider
 * exchange replayed), and the batch APIs behind batch.h (batch_openai.c, batch_anthropic.c,
 * batch_store.c, multipart.c). It is a test tool, not part of libarbiter, and links none of it.
 *
 * Ownership: struct sim_config is filled once by main and read-only afterwards; struct sim_state
 * holds everything threads share, each part behind its own mutex.
 */
#ifndef JUDGE_SIM_H
#define JUDGE_SIM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <cjson/cJSON.h>

#define SIM_DIGEST_LEN 32

/* The two protocols; NONE for a route neither speaks. */
enum sim_proto { SIM_PROTO_NONE, SIM_PROTO_OPENAI, SIM_PROTO_ANTHROPIC };
/* Request bodies above this get 413; judge prompts are far smaller. */
#define SIM_MAX_BODY (16u * 1024u * 1024u)

/* Command-line settings; rates are probabilities in [0, 1]. */
struct sim_config {
    unsigned port;
    const char *port_file;
    long latency_ms;
    double rate_429;
    long retry_after;
    double rate_500;
    double rate_malformed;
    double rate_invalid;
    double rate_hang;
    long hang_ms;
    double prefer_a;
    const char *log_path;
    unsigned long long seed;
    long fail_first;
    int status_always; /* 0: off */
    bool no_usage;     /* --usage off: replies say nothing of the tokens they cost */
    int echo_key;      /* --echo-key: 0 off; 1 on: a hostile server that repeats the key it
                          was sent; 2 escaped: the same, spelled with JSON escapes */
    /* --reply-format promptfoo-rubric: every reply is built from this schema instead of the
     * request's; NULL builds from the request's (the default). Owned by main. */
    cJSON *reply_schema;
    const char *fixture_path; /* --fixture FILE, or NULL */
    /* The batch routes (batch_openai.c, batch_anthropic.c): a batch ends on its
     * batch_polls-th status read; each request fails with batch_error_rate, is left
     * unprocessed at expiry with batch_expire; batch_fail_validation fails every OpenAI
     * batch in validation; after a batch's first status read, its next batch_outage status
     * reads are 503s that do not count as reads (an outage while a client polls). */
    long batch_polls;
    long batch_outage;
    double batch_error_rate;
    double batch_expire;
    bool batch_fail_validation;
};

/* One body seen before: its SHA-256 and how many times it arrived. */
struct sim_attempt {
    unsigned char key[SIM_DIGEST_LEN];
    unsigned long count;
    bool used;
};

struct sim_fixture;
struct sim_batch_store;

struct sim_state {
    const struct sim_config *cfg;
    struct sim_fixture *fixture; /* --fixture: owned by main, NULL without one */

    pthread_mutex_t attempts_lock;
    struct sim_attempt *attempts; /* open addressing, cap is a power of two */
    size_t attempts_cap;
    size_t attempts_len;
    unsigned long long received; /* every request, for --fail-first */

    pthread_mutex_t log_lock;
    FILE *log;

    /* Uploaded files and batches of both protocols (batch_store.c). */
    pthread_mutex_t batch_lock;
    struct sim_batch_store *batches;

    /* Sleeps wait on stop_cond so SIGTERM ends a 30 s hang at once. */
    pthread_mutex_t stop_lock;
    pthread_cond_t stop_cond;
    bool stopping;
};

/* A xoshiro256** generator; seeded from a SHA-256 digest so replies follow the request. */
struct sim_rng {
    uint64_t s[4];
};

/* What the server sends for one request; handler.c fills it, fixture.c too in fixture mode. */
struct sim_reply {
    int status;
    char *text; /* malloc'd, sent as is */
    size_t len;
    const char *fault; /* for the log; NULL for none */
    bool hang;
    const char *echo;         /* --echo-key: the credentials to repeat in a header, or NULL */
    const char *content_type; /* NULL: application/json; static or the fixture's (borrowed) */
    cJSON *headers;           /* fixture mode: more headers (name: string), owned; or NULL */
    bool scripted;            /* from a fixture: no Retry-After of the server's own */
    char detail[320];         /* for the log: why a fixture refused the request, or "" */
};

/* state.c */
int sim_state_init(struct sim_state *st, const struct sim_config *cfg);
void sim_state_release(struct sim_state *st);
/* Counts one more arrival of the body with this digest and returns the attempt number (1 for
 * the first); the global arrival number (1-based) goes to *arrival. Returns 0 on ENOMEM. */
unsigned long sim_attempt_next(struct sim_state *st, const unsigned char *digest,
                               unsigned long long *arrival);
/* Appends one JSON line; body may be NULL; detail, when not NULL, is logged as "detail" (why a
 * fixture refused the request). Errors writing the log are reported on stderr. */
void sim_log_request(struct sim_state *st, const char *path, unsigned long attempt, int status,
                     const char *body, bool auth, const char *fault, const char *detail);
/* Sleeps ms milliseconds (from now, or until ms after *from, CLOCK_MONOTONIC) or until
 * sim_state_stop; returns false when cut short. */
bool sim_sleep_ms(struct sim_state *st, long ms);
bool sim_sleep_from(struct sim_state *st, const struct timespec *from, long ms);
void sim_state_stop(struct sim_state *st);

/* fence.c */
/* A copy of body[0..len) (NUL-terminated, the same length) with the fence code of Arbiter's
 * prompt replaced by '#'s, or NULL when it has none (or memory ran out): what replies are
 * drawn from. The caller frees it. */
char *sim_mask_fence(const char *body, size_t len);

/* gen.c */
/* SHA-256 over the concatenation of n (pointer, length) pairs. Returns 0 on failure. */
int sim_digest(unsigned char out[SIM_DIGEST_LEN], size_t n, const void *const *parts,
               const size_t *lens);
void sim_rng_seed(struct sim_rng *r, const unsigned char digest[SIM_DIGEST_LEN]);
uint64_t sim_rng_next(struct sim_rng *r);
/* Uniform in [0, 1). */
double sim_rng_unit(struct sim_rng *r);
/* A uniform draw in [0, 1) from the first 8 bytes of a digest. */
double sim_digest_unit(const unsigned char digest[SIM_DIGEST_LEN]);
/* A digest of (body, seed, label, attempt): the per-request randomness. body is what replies
 * are drawn from (the request body with its fence code masked). label NULL and attempt 0 give
 * the reply seed; the other labels name one decision each, so they are independent. Returns
 * 0 on failure. */
int sim_draw(unsigned char out[SIM_DIGEST_LEN], const char *body, size_t len,
             unsigned long long seed, const char *label, unsigned long attempt);

/* How a reply is built: force_a makes every "winner" enum that holds "A" answer "A". */
struct sim_gen {
    struct sim_rng rng;
    const cJSON *root; /* for $ref */
    bool force_a;
};

/* Builds a value conforming to schema (NULL means the empty schema). The caller frees the
 * result with cJSON_Delete; NULL means out of memory. */
cJSON *sim_gen_value(struct sim_gen *g, const cJSON *schema);
/* Alters a conforming value so that it violates schema: drops a required property, pushes a
 * bounded number out of range, or, failing both, replaces it with a value of the wrong type.
 * Returns the value to use (possibly a new one, the old then freed), NULL on ENOMEM. */
cJSON *sim_gen_break(struct sim_gen *g, const cJSON *schema, cJSON *value);

/* fixture.c */
/* Loads and checks the fixture at path; NULL after a message on stderr naming what is wrong.
 * Free it with sim_fixture_free. */
struct sim_fixture *sim_fixture_load(const char *path);
void sim_fixture_free(struct sim_fixture *fx);

enum sim_fixture_result {
    SIM_FIXTURE_REPLY,    /* r holds the scripted reply */
    SIM_FIXTURE_MISMATCH, /* the request failed the fixture's checks: why says how */
    SIM_FIXTURE_ENOMEM
};

/* The fixture's reply to req (a parsed request to the OpenAI route, or the Anthropic one when
 * anthropic is set): the rule it matches, else the scripted reply of its turn, with the
 * placeholders filled in from req and an answer drawn with seed (SHA-256 of the request, as
 * the server's own replies are). Fills r's status, text, len, content_type, headers and
 * scripted; the caller frees r->text and r->headers. Thread-safe. */
enum sim_fixture_result sim_fixture_answer(struct sim_fixture *fx, bool anthropic, const cJSON *req,
                                           const unsigned char seed[SIM_DIGEST_LEN],
                                           struct sim_reply *r, char *why, size_t why_len);

/* reply.c */
/* Adds item under key (or to the array when key is NULL) and returns it; on any failure,
 * including a NULL parent, frees item and returns NULL so the failure carries down a chain. */
cJSON *sim_attach(cJSON *parent, const char *key, cJSON *item);
/* An error body in protocol p's own shape (OpenAI {"error": {message, type, param, code}},
 * Anthropic {"type": "error", "error": {type, message}}); NULL when out of memory. The
 * caller frees it. */
cJSON *sim_error_json(enum sim_proto p, int status, const char *msg);
/* Sets r's status and text (owned, freed with the old text); text NULL means out of memory. */
void sim_reply_text(struct sim_reply *r, int status, char *text);
/* Sets r to an error of protocol p. */
void sim_reply_error(struct sim_reply *r, enum sim_proto p, int status, const char *msg);
/* prefix followed by the first 12 bytes of d in hex: the ids of replies and batches. */
void sim_hex_id(char *out, size_t cap, const char *prefix, const unsigned char *d);
/* The 200 body the server gives req (its chat completion or message), drawn from hashed[0..len)
 * (the request body as sent, its fence code masked); invalid breaks the verdict. The caller
 * frees the text; NULL when out of memory. */
char *sim_answer(const struct sim_config *cfg, enum sim_proto p, const cJSON *req,
                 const char *hashed, size_t len, bool invalid);

/* handler.c */
struct MHD_Daemon;
/* Starts the daemon on 127.0.0.1 and returns it, or NULL with a message on stderr. */
struct MHD_Daemon *sim_server_start(struct sim_state *st, unsigned port);

#endif
