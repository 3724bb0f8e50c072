/*
 * engine.h - the judge engine's state, shared by judge.c (asking, sending,
 * storing, the cap) and combine.c (turning a question's judgments into one
 * answer).  Internal to src/judge/.
 */
#ifndef ARBITER_JUDGE_ENGINE_H
#define ARBITER_JUDGE_ENGINE_H

#include "arbiter/http.h"
#include "judge_int.h"

struct question;
struct arb_schema;

/* One request: an order and sample of a question (attempt 1 is the retry that carries the
 * validation error of attempt 0). */
struct call {
    struct question *qn;
    int swapped, sample, attempt;
    int held;        /* not sent (yet): over the spending cap */
    int sent;        /* handed to the transport or the command */
    int dispatched;  /* its first dispatch is done: when asked (arb_judge_ask), or by a drain
                        (a partial drain also dispatches the later questions' calls, which the
                        next drain must not send again) */
    double estimate; /* its reserved cost while in flight */
    int no_fence;    /* every fence code drawn occurred in an output: not sent, the
                        question fails (its error says why) */
    char fence[17];  /* the code its prompt's fences carry (recorded with the judgment) */
    enum arb_judge_response_format mode; /* how its body asks for JSON */
    long max_tokens; /* its output limit (0: the config's; larger for a reply cut short) */
    char key[65];
    char used_key[65];     /* answered from the cache: the key its reply is stored under (a
                              recorded run's, which may differ from key); else "" */
    char reply_sha256[65]; /* of the reply its judgment was made from, as stored; "" none */
    char *body;
    char *user_msg; /* the prompt as sent (attempt 0 only; a retry reuses its first's) */
    char *key_msg;  /* the same with the fence placeholder, for the key (attempt 0 only) */
};

/* A reply schema, built and compiled once for the questions that ask for it (schemas.c). */
struct judge_schema {
    cJSON *tree;
    struct arb_schema *compiled;
    char *key; /* what the tree is made of (schemas.c); NULL: an entry of one question's own */
    size_t key_len;
    unsigned refs; /* the table's and every question's holding it */
};

/* The last reply schemas asked for, the most recent first. */
#define JUDGE_SCHEMAS 8
struct judge_schemas {
    struct judge_schema *slot[JUDGE_SCHEMAS];
};

/* q's reply schema (judge_schema), one held already if it is the same: *out is held by the
 * caller until judge_schema_put.  ARB_ENOMEM, or arb_schema_compile's failure. */
enum arb_status judge_schema_get(struct judge_schemas *c, const struct arb_judge_question *q,
                                 struct judge_schema **out, struct arb_err *err);
void judge_schema_put(struct judge_schema *e); /* NULL: nothing */
void judge_schemas_release(struct judge_schemas *c);

/* One question (a case and pair, or one output) and its judgments, one slot per order and
 * sample. */
struct question {
    struct arb_judge_question q;
    void (*done)(void *ctx, const struct arb_judge_question *q, const struct arb_judge_answer *a);
    void *ctx;
    struct judge_schema *shared; /* held: its reply schema */
    const cJSON *schema;         /* shared's tree and compiled form */
    const struct arb_schema *compiled;
    cJSON **slots; /* per (order, sample): the valid answer, or NULL */
    int *slot_done;
    int n_slots, n_done, n_cached;
    int held; /* a request of it stayed under the spending cap: not answered */
    int refused; /* an order was refused (a refusal, a content filter) */
    int answered; /* its callback has run (or never will): freed with its calls at the end
                     of the drain */
    char error[512];
};

/* The judge bound to a run: its config, key header, transport, and every call made. */
struct arb_judge {
    const struct arb_judge_config *cfg;
    char *key_header; /* holds the API key: wiped and freed, never logged */
    char **extra_headers; /* "Name: value" of the config's headers (secret ones wiped) */
    const char **headers; /* what every request sends: the key, the fixed ones, the extra */
    size_t n_headers;
    char url[1024];
    const struct arb_judge_cache *cache; /* where calls and judgments go, and are looked up */
    int use_cache;
    int reuse_invalid; /* arb_judge_reuse_invalid, or an offline config */
    judge_random_fn random; /* where fence codes come from (RAND_bytes; tests replace it) */
    void *random_ctx;
    struct arb_transport *t;
    const struct arb_judge_batcher *batcher; /* batch mode: where uncached calls go, or NULL */
    int no_early;      /* a question of this drain was not sent when asked: the later ones wait
                          for the drain too, so requests still go out in the order asked */
    int draining;      /* inside arb_judge_drain_first: qs[0 .. drain_target) are answered
                          as they complete, in order */
    int drain_partial; /* fewer than all: the transport yields once those are answered */
    int holding;       /* the cache holds what is put until the transport waits (cache->hold) */
    size_t drain_target;
    size_t n_answered; /* qs[0 .. n_answered) are answered (during a drain) */
    struct question **qs;
    size_t n_qs, cap_qs;
    struct judge_schemas schemas; /* the questions' reply schemas */
    struct call **calls; /* every call made, freed at the end */
    size_t n_calls, cap_calls;
    size_t unreachable;
    struct judge_budget budget;
    struct judge_secrets secrets; /* scrubbed from every reply before it is used (scrub.c) */
    struct arb_judge_progress prog;
    void (*progress)(void *ctx, const struct arb_judge_progress *p);
    void *progress_ctx;
    int auth_failed;
    enum arb_judge_response_format mode; /* how requests ask for JSON now: the config's, or
                                            weaker after a server refused it */
    /* Failures a retry cannot fix (a 4xx other than 408/409/429): the last one's signature
     * and how many in a row; at JUDGE_STOP_AFTER the run stops, with stop_msg. */
    char last_failure[600];
    int same_failures;
    int stopped;
    char stop_msg[1024];
    char told[5][160]; /* the distinct failures already told (notice), the first 5 */
    int n_told;
    void (*notice)(void *ctx, const char *msg);
    void *notice_ctx;
    enum arb_status fatal;
    struct arb_err *err;
};

/* How many identical failures that no retry can fix stop the run. */
#define JUDGE_STOP_AFTER 3

/* Free a question (and what it owns) or a call. */
void judge_question_free(struct question *qn);
void judge_call_free(struct call *c);

/* The progress counters changed: tell the caller's progress callback. */
void judge_notify(struct arb_judge *j);

/* The transport's completion callback (the reply scrubbed of secrets, then handled); also the
 * command provider's, called at once. */
void judge_on_done(void *ctx, const struct arb_http_result *r);

/* ---- draining (drain.c) ---- */

/* After a reply is handled: answer the drain's questions now complete, in order; when a
 * partial drain's are all answered, make the transport return, the others' requests staying
 * in flight. */
void judge_check_drained(struct arb_judge *j);

/* The transport's idle callback: what the cache holds is made durable before it waits. */
void judge_on_idle(void *ctx);

/* Tell the caller something it should see now (a mode switch, a provider's error). */
void judge_notice(struct arb_judge *j, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Build c's body and key anew for the judge's current mode (a switch): 1, or 0 (fatal). */
int judge_rebuild(struct arb_judge *j, struct call *c);

/* ---- failures (failure.c) ---- */

/*
 * A call failed with no usable reply (r: the transport's result, its body scrubbed): read
 * the provider's error into row, decide whether the server refused the response format (the
 * call is then sent again in the next mode: returns 1), count failures no retry can fix and
 * stop the run at the JUDGE_STOP_AFTER-th identical one, or at once for a billing stop.
 * *msg receives the failure as the judgment records it.  0: fail the slot as usual.
 */
int judge_on_failure(struct arb_judge *j, struct call *c, const struct arb_http_result *r,
                     struct arb_judge_call_row *row, struct judge_provider_error *pe,
                     char *msg, size_t msglen);

/* The transport's classify hook (http.h): an event stream is a reply, a 2xx error body is
 * asked again, a 429 out of quota is final. */
enum arb_http_verdict judge_classify(void *ctx, long status, const char *content_type,
                                     const char *body, size_t len);

/* ---- building and sending calls (judge.c) ---- */

/* A new call of question qn (NULL when out of memory), owned by the judge. */
struct call *judge_new_call(struct arb_judge *j, struct question *qn, int swapped, int sample,
                            int attempt);

/* What a call asks: first is its question's attempt-0 call (which holds the prompts). */
void judge_call_request(const struct call *first, struct judge_request *rq,
                        const char *retry_reply, const char *retry_error);

/* Give call c the fence code of a request sent before (a batch's): its prompt is rendered
 * again with it (attempt 0, whose prompt a retry reuses).  1, or 0 when out of memory. */
int judge_refence(struct call *c, const char *fence);

/* Answer a call from the cache, or send it. */
void judge_dispatch(struct arb_judge *j, struct call *c);

/* Send a call the cache cannot answer (unless the spending cap holds it back). */
void judge_send(struct arb_judge *j, struct call *c);

/* Batch mode (batch_route.c): a call the cache cannot answer goes where the batcher says:
 * held for a batch, answered by a batch's result, or sent (judge_send). */
void judge_batch_dispatch(struct arb_judge *j, struct call *c);

/* ---- replies (reply.c) ---- */

/* What is stored of a reply that failed or did not validate, at most (bytes). */
#define JUDGE_STORED_MAX ((size_t)64 << 10)

/* How many bytes of text[0..len) to store: len, or JUDGE_STORED_MAX cut back to a UTF-8
 * boundary. */
size_t judge_cut_len(const char *text, size_t len);

/* A slot of c's question is done: answer (owned, may be NULL for a failure) fills it. */
void judge_finish_slot(struct arb_judge *j, struct call *c, cJSON *answer);

/*
 * A reply for c arrived (call: its judge_calls row, stored with its validity in the same
 * transaction as the judgment) or came from the cache (cached 1, call NULL).  Records the
 * judgment, then fills the slot, asks again once, or fails the slot.
 */
void judge_handle_reply(struct arb_judge *j, struct call *c, const char *reply, int cached,
                        struct arb_judge_call_row *call);

/* A reply body read once (judge_parse_reply's result and why), for judge_handle_parsed. */
struct judge_parsed {
    struct judge_reply rp;
    enum arb_status st;
    struct arb_err err;
};
void judge_parse(const struct arb_judge_config *cfg, const char *reply, struct judge_parsed *p);

/* judge_handle_reply of a reply parsed already (p->rp is taken over and released). */
void judge_handle_parsed(struct arb_judge *j, struct call *c, const char *reply,
                         struct judge_parsed *p, int cached, struct arb_judge_call_row *call);

/* No reply for c after every retry: store the call (its body capped) and fail the slot. */
void judge_handle_failure(struct arb_judge *j, struct call *c, struct arb_judge_call_row *call);

/* c could not be fenced (c->no_fence): record why and fail the slot. */
void judge_fail_unfenced(struct arb_judge *j, struct call *c);

/* A cached call as the lookup found it. */
struct judge_cached {
    char *reply;  /* its reply (caller frees), when ok */
    char *error;  /* its error (caller frees), when not ok: for a recorded failure */
    char key[65]; /* the key it is stored under */
    int ok;       /* a reply arrived */
    int valid;    /* 1 valid, 0 invalid, -1 unknown (stored before validity was recorded) */
    int recorded; /* what the cache's recorded run used for the call's slot (judge.h get) */
};

/* The cache's get callback filling a struct judge_cached. */
int judge_read_cached(void *ctx, const struct arb_judge_call_row *row);

/* The question slot c answers, as the cache and the judgments name it (borrowed from c). */
void judge_call_slot(const struct call *c, struct arb_judge_slot *slot);

/*
 * The recorded run's judgment of c's slot had no reply (its call failed): an offline judge
 * (replay) fails the slot as that run did, with its error.
 */
void judge_fail_recorded(struct arb_judge *j, struct call *c, const char *error);

/* Draw fence codes from fn instead of RAND_bytes (unit tests: a source an output can hold). */
void judge_set_random(struct arb_judge *j, judge_random_fn fn, void *ctx);

/* Record the first fatal status and stop the transport. */
void judge_fatal(struct arb_judge *j, enum arb_status st);

/* How many orders a question is asked in: 2 with swap, 1 for a single output. */
int judge_orders(const struct arb_judge *j, const struct arb_judge_question *q);

/*
 * Combine the judgments of a question whose slots are all done into one
 * answer, and hand it to the question's callback (combine.c).
 */
void judge_answer_question(struct arb_judge *j, struct question *qn);

#endif
