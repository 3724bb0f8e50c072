/*
 * judge.h - the LLM judge: what the deterministic checks leave unresolved
 * goes here, blind, position-swapped, fenced, cached, and fault-tolerant.
 *
 * A question is one case and one pair of systems, with the items (rubric
 * criteria and expectations) that are unresolved for it.  The judge asks it
 * in both orders (A first, then B first) and `samples` times each, one HTTP
 * request per order and sample, through the transport (http.h).  Each reply
 * is JSON checked against a schema made for that request (the unresolved
 * criteria and expectation ids are its required members, scores are
 * integers 1-5), so a conforming reply is complete by construction; a reply
 * that does not conform is asked again once with the validation error, and
 * then its items are judge_failed.  Every request and reply is recorded as it
 * arrives, through the cache the caller gives (struct arb_judge_cache; the
 * store's is judge_calls, keyed by the SHA-256 of the canonical
 * request and the judge's identity: provider and endpoint), and a stored
 * valid reply is never requested again; an invalid one is kept for audit and
 * never answers again (arb_judge_reuse_invalid).  Outputs sit between fence
 * lines whose code is drawn at random for each request (judgments.fence).
 *
 * A single-output question (output_b NULL) asks instead whether one output
 * meets each of its expectations (prompts/expectation.md): one order, no
 * swap, `samples` requests, the majority of the samples per expectation;
 * its reply is {"reasoning", "expectations": {id: {"pass": bool}}}
 * (schemas/judge-expectation-reply.schema.json), cached and retried like a
 * pairwise one.  It takes expectation items only.
 *
 * Outputs reach the prompt only through arb_judge_question: callers redact
 * them first (blind.h) and never pass system names, timings or tool errors.
 * The API key is only ever put in an HTTP header.
 */
#ifndef ARBITER_JUDGE_H
#define ARBITER_JUDGE_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "arbiter/status.h"

enum arb_judge_provider { ARB_JUDGE_OPENAI = 0, ARB_JUDGE_ANTHROPIC, ARB_JUDGE_COMMAND };

/* What becomes of a request a provider batch did not answer (expired, cancelled, errored
 * without a reply, a 429 or 5xx inside the batch): the config's "batch_retry". */
enum arb_judge_batch_retry {
    ARB_BATCH_RETRY_SYNC = 0, /* asked at once over the synchronous API (the default) */
    ARB_BATCH_RETRY_BATCH,    /* put in the next batch (at most ARB_BATCH_MAX_SUBMITS times) */
    ARB_BATCH_RETRY_NONE      /* recorded as a failed call: the pair is judge_failed */
};

/* How many batches one request may be put in (its first and the retries) before it fails. */
#define ARB_BATCH_MAX_SUBMITS 3

/*
 * How a request asks for JSON (the config's "response_format"), strongest first: a server
 * that refuses one (HTTP 400 naming the response format or the schema) makes the judge go
 * on with the next, once per mode, and say so.
 */
enum arb_judge_response_format {
    ARB_RF_JSON_SCHEMA = 0, /* OpenAI response_format json_schema, strict true; Anthropic a
                               forced tool whose input_schema is the reply schema */
    ARB_RF_JSON_SCHEMA_LOOSE, /* the same with strict false (Anthropic: the same tool) */
    ARB_RF_JSON_OBJECT,       /* OpenAI {"type": "json_object"}, the schema in the prompt;
                                 Anthropic: no tool, the schema in the prompt */
    ARB_RF_PROMPT             /* no response_format: the schema in the prompt, the JSON read
                                 from the reply's text */
};

/* The mode's name as the config and judge_calls.response_format spell it. */
const char *arb_judge_response_format_name(enum arb_judge_response_format rf);

/* One extra HTTP header of an OpenAI-compatible gateway (the config's "headers"). */
struct arb_judge_header {
    char *name;
    char *value;    /* a literal value (stored with the config), or NULL: from value_env */
    char *value_env; /* the NAME of the variable holding a secret value (never stored) */
};

/*
 * What a judge's tokens cost, in US dollars per million tokens (the config's
 * "price": {"input", "output", "cached_input"}).  Not part of the judge's
 * identity: a price changes no answer.
 */
struct arb_judge_price {
    int set;             /* the config has a price */
    double input;        /* prompt tokens */
    double output;       /* completion tokens */
    double cached_input; /* prompt tokens served from the provider's prompt cache (default:
                            the input price) */
};

/* The cost in USD of one call's tokens (cached: of prompt) at price; 0 without a price. */
double arb_judge_cost(const struct arb_judge_price *price, long long prompt, long long cached,
                      long long completion);

struct arb_judge_config {
    enum arb_judge_provider provider;
    char *base_url; /* openai: ".../v1"; anthropic: "https://api.anthropic.com" */
    char *model;
    char *api_key_env;  /* the NAME of the variable holding the key (never the key); NULL for
                           a command judge, which needs none */
    char **command;     /* command provider: argv, NULL-terminated */
    char *cwd;          /* command provider: the absolute directory it runs in (the config's
                           "cwd", relative to the working directory, which is the default);
                           recorded with a run, so --resume and replay ask the same judge */
    int swap;           /* ask both orders (default 1) */
    int samples;        /* per order (default 1) */
    double temperature; /* default 0 */
    int no_temperature; /* "temperature": null: none is sent (o-series models refuse one) */
    long max_tokens;    /* default 1024 */
    long max_tokens_cap; /* a reply cut at the limit is asked once more with twice the limit,
                            at most this (default 4 * max_tokens) */
    int max_completion_tokens; /* "max_tokens_field": "max_completion_tokens" (openai) */
    enum arb_judge_response_format response_format; /* default ARB_RF_JSON_SCHEMA */
    cJSON *extra_body; /* "extra_body": members added to every request body (they replace
                          Arbiter's own of the same name), or NULL; in the hash */
    struct arb_judge_header *headers; /* "headers": extra HTTP headers (not in the hash) */
    size_t n_headers;
    int has_seed;
    long long seed;
    size_t concurrency; /* default 8 */
    double timeout_s;   /* per attempt, default 60 */
    int max_retries;    /* default 4 */
    struct arb_judge_price price; /* not in the hash */
    char hash[65];      /* SHA-256 of the canonical config and the pairwise prompt template:
                           its identity (prompts/expectation.md is not in it) */
    int offline;        /* never send: a request missing from the cache is an error (replay) */
    int feedback;       /* "feedback": also ask each response's strengths and weaknesses
                           (pairwise questions; in the hash only when on, so a config without
                           it keeps its hash and every request its cache key) */
    int feedback_set;   /* the config says "feedback" (true or false): `compare`, whose
                           default is on, keeps an explicit false */
    /* "mode": "batch" (batch 1) sends what the cache cannot answer through the provider's
     * batch API (include/arbiter/batch.h) instead of one request at a time.  None of these
     * is in the hash: a batch asks the same question, so it shares the cache and the
     * calibrations of the synchronous judge (config_batch.c). */
    int batch;
    double batch_poll_s;      /* "batch_poll_s": seconds between status polls (default 30) */
    long batch_max_requests;  /* "batch_max_requests": requests per batch (default 50000
                                 for OpenAI, 100000 for Anthropic, their limits) */
    enum arb_judge_batch_retry batch_retry; /* "batch_retry" (default sync) */
};

/*
 * Read a judge object (the suite's "judge", or a --judge file) into cfg.
 * Unknown keys, wrong types and a missing model or api_key_env are
 * ARB_ESCHEMA errors naming the key.  Release with arb_judge_config_release.
 */
enum arb_status arb_judge_config_parse(const cJSON *obj, struct arb_judge_config *cfg,
                                       struct arb_err *err);

/*
 * url without its user-info ("https://user:secret@host/v1" -> "https://host/v1"),
 * as a new string the caller frees; NULL when it has none (or memory ran out:
 * *oom is then set).
 */
char *arb_judge_url_without_credentials(const char *url, int *oom);

/*
 * 1 when name (a header, a variable, an option) mentions auth, key, token, secret, cookie or
 * password (ASCII case-insensitive): its value is a credential, as a judge's headers are
 * checked; 0 otherwise.
 */
int arb_judge_credential_name(const char *name);

/* Recompute cfg->hash after changing fields (overrides from the command line). */
enum arb_status arb_judge_config_rehash(struct arb_judge_config *cfg, struct arb_err *err);

void arb_judge_config_release(struct arb_judge_config *cfg);

/*
 * The config as JSON without secrets (for the runs table): no key, and a
 * base_url without its user-info (then "base_url_credentials": true says it
 * had some).  Caller frees with cJSON_Delete.
 */
cJSON *arb_judge_config_json(const struct arb_judge_config *cfg);

enum arb_judge_item_kind { ARB_ITEM_CRITERION = 0, ARB_ITEM_EXPECTATION };

/*
 * What the judge is told of one item.  Every text is borrowed and may be NULL.  An item
 * without description and anchors renders as it always has (the same prompt and cache key).
 */
struct arb_judge_item {
    enum arb_judge_item_kind kind;
    const char *name;        /* criterion name or expectation id */
    const char *text;        /* expectation text; NULL for a criterion */
    const char *description; /* what the criterion means, or how to read the expectation */
    const char *anchor[3];   /* a criterion's texts for scores 1, 3, 5: NULL for the built-in
                                anchor of a default name, else poor / acceptable / excellent */
};

/*
 * What scores 1, 3 and 5 of the criterion called name mean, into out (static or borrowed
 * strings): given[k] where the suite gives one (given may be NULL), else the built-in anchor
 * of a default name (correctness ... usability), else poor / acceptable / excellent.  The
 * judge's prompt says these; comparison.json's sentences quote them.
 */
void arb_judge_anchors(const char *name, const char *const given[3], const char *out[3]);

/*
 * One case and pair, or one case and output (output_b NULL).  Everything is
 * borrowed until the answer callback returns.
 */
struct arb_judge_question {
    const char *case_id;
    int feedback; /* also ask each response's strengths and weaknesses (a pairwise question;
                     arb_judge_ask turns it on when the config's "feedback" is) */
    const char *system_a, *system_b; /* for the records only: never sent (system_b may be
                                        NULL for a single output: recorded as "") */
    const char *task;                /* the eval prompt */
    const char *prompt;              /* what the systems were asked (may be NULL) */
    const char *output_a, *output_b; /* redacted outputs; output_b NULL: a single-output
                                        question on output_a's expectations */
    const struct arb_judge_item *items;
    size_t n_items;
    uint64_t seed; /* for the fence nonces */
    /* An llm_judge check's question (a single output, one item named result_key): the
     * user's template is asked instead of prompts/expectation.md, {output} filled with
     * output_a between fence lines and {expected_output} with expected; the reply is
     * {"reasoning": string, result_key: boolean (result_bool) or number}, combined into
     * pass_a[0] (majority of samples) or score_a[0] (their mean).  NULL: the built-in
     * question. */
    const char *template_text;
    const char *expected; /* the case's expected text for {expected_output}; NULL: "" */
    const char *result_key;
    int result_bool;
};

/*
 * The judge's combined answer for one question.  A single-output question
 * fills pass_a (the majority of its samples; a tie of votes fails), with
 * pass_b -1, scores NaN, no winner, order_winner -1 and sample_agreement the
 * share of (sample, item) verdicts that agree with their item's verdict.
 */
struct arb_judge_answer {
    int held;   /* some request was not sent because the spending cap would have been passed
                   (arb_judge_set_budget): nothing is decided, ask again later */
    int failed; /* some order lacked a valid reply: the items stay unresolved */
    int refused; /* with failed: an order was refused (a refusal, a content filter), not
                    asked again; the case is judge_refused and error holds the judge's words */
    const char *error;         /* why, when failed */
    double *score_a, *score_b; /* per item (criteria): mean 1-5 over orders and samples; NaN else */
    int *pass_a, *pass_b;      /* per item (expectations): 1 pass, 0 fail, -1 none */
    int *item_inconsistent;    /* per item: the orders disagreed */
    int position_inconsistent; /* the orders' winners disagree */
    const char *winner;  /* the judge's own majority winner: system_a, system_b, "TIE" or NULL */
    int order_winner[2]; /* per order (0: A shown first, 1: B first), the majority over its
                            samples in the question's terms: 0 system_a, 1 system_b, 2 tie,
                            -1 no valid reply (order 1 is -1 without swap) */
    double sample_agreement; /* fraction of judgments agreeing with the majority winner */
    int n_judgments, n_cached;
    char *reasoning; /* the first valid reasoning, for comparison.json */
    cJSON *feedback; /* a question asked with feedback: {"A": {"strengths": [...],
                        "weaknesses": [...]}, "B": ...}, A meaning system_a whatever the order
                        shown; each output's sentences from the order that showed it first,
                        then the other order's not already said (exact repeats dropped), so
                        both blindings give the same lists.  NULL otherwise; valid during the
                        call */
};

/*
 * What a judge records of each request (judge_calls: shared by every run, the cache) and of
 * each answer a run used (judgments).  The judge hands them to the cache it was given; it
 * never opens a database.
 */
struct arb_judge_call_row {
    const char *key; /* hex SHA-256 of the canonical request */
    const char *provider;
    const char *model;
    const char *request_json; /* the body sent (never a key: keys travel in headers) */
    const char *reply_json;   /* the reply body, or NULL */
    const char *status;       /* "ok" (a reply arrived) or "failed" */
    long http_status;
    int attempts;
    double latency_s;
    int64_t prompt_tokens, completion_tokens;
    int64_t cached_tokens; /* of prompt_tokens, served from the provider's prompt cache */
    double charged_usd;    /* what the call counted against the spending cap: its reported
                              usage at the price, or its estimate when the reply reported
                              none (0 for a failed call); NAN when the judge has no price */
    const char *error;
    int valid; /* the reply passed validation: 1, 0 (kept for audit, never answers again), or
                  -1 unknown (a failed call; a reply stored before migration 5) */
    const char *response_format; /* the mode the request asked in (db/README.md); NULL for a
                                    command judge */
    const char *stop_reason;     /* as the provider named it, or NULL */
    const char *normalization;   /* JSON array of what was cleaned off the reply, or NULL */
    const char *error_type, *error_code, *error_message; /* the provider's error (or a
                                    refusal), or NULL */
};

struct arb_judgment_row {
    const char *case_id;
    const char *system_a, *system_b;
    const char *ord; /* "AB": A shown first; "BA": B shown first */
    int sample;
    int attempt; /* 0, or 1 for the retry with the validation error */
    const char *key;
    int valid;  /* the reply conformed to the request's schema */
    int cached; /* answered from the cache, not sent */
    const char *answer_json;
    const char *error;
    const char *fence; /* the fence code of the request's prompt; NULL when it was not sent
                          (answered from the cache: the stored request_json holds the code of
                          the request that was) or could not be fenced */
    const char *reply_sha256; /* hex SHA-256 of the reply it was made from, as the cache holds
                                 it (judge_calls.reply_json); "" when it had none (the call
                                 failed, the outputs could not be fenced) */
};

/*
 * Which question slot a request answers: the natural key of the judgment it makes (for the
 * cache's lookup of what a recorded run used there).  Borrowed for the call.
 */
struct arb_judge_slot {
    const char *case_id;
    const char *system_a, *system_b; /* as in arb_judgment_row: b "" for a single output */
    const char *ord;                 /* "AB" or "BA" */
    int sample;
    int attempt;
};

/*
 * The judge's cache and record, given by the caller: run, replay and calibrate pass one
 * backed by the store (arb_store_judge_cache, store.h); a test may pass its own.  The judge
 * calls, from the thread that drains:
 *   get           slot NULL: look key up: *found 1 and fn called once with the stored call,
 *                 if any.  slot given: the reply a recorded run used for that slot, if the
 *                 cache has such a run (replay: the run replayed; --resume: the run itself;
 *                 a new run: none) and it judged the slot: *found 1 and fn called once with
 *                 exactly that call (its key as stored, which may differ from key: a run
 *                 recorded by an older Arbiter, whose keys were computed otherwise; its reply
 *                 as the judgment read it, even if a later reply replaced it under that key),
 *                 or, when the judgment had no reply, with status "failed", no reply and the
 *                 judgment's error.  The judge asks with the slot first and falls back to key.
 *   put_call      a request's call (its reply or its failure), just before its judgment
 *   put_judgment  a run's judgment of one question slot; once it returns, it and the call
 *                 put just before it (if any) are durable together (unless held)
 *   hold          optional (NULL: puts are durable as they return).  on 1: what is put
 *                 from now on may be held and made durable later, all of it in the order
 *                 put (a kill loses the last ones, never one without those before it);
 *                 on 0: what is held is made durable before it returns, and puts are
 *                 durable again.  A drain holds the puts while replies come in, and makes
 *                 them durable each time before it waits for more and when it returns.
 * Each returns ARB_OK or a status with err filled; a failure stops the drain.
 */
struct arb_judge_cache {
    void *ctx;
    enum arb_status (*get)(void *ctx, const char *key, const struct arb_judge_slot *slot,
                           int (*fn)(void *arg, const struct arb_judge_call_row *c), void *arg,
                           int *found, struct arb_err *err);
    enum arb_status (*put_call)(void *ctx, const struct arb_judge_call_row *c,
                                struct arb_err *err);
    enum arb_status (*put_judgment)(void *ctx, const struct arb_judgment_row *j,
                                    struct arb_err *err);
    enum arb_status (*hold)(void *ctx, int on, struct arb_err *err);
};

struct arb_judge;

/* What a judge has done so far (over every drain of its life), for a progress line. */
struct arb_judge_progress {
    size_t planned;   /* one request per order and sample of every question asked so far */
    size_t sent;      /* requests sent (validation retries included; transport retries not) */
    size_t in_flight; /* sent and not finished */
    size_t answered;  /* replies received */
    size_t failed;    /* requests without a reply after every retry */
    size_t cached;    /* answered from the cache, not sent */
    size_t held;      /* not sent: the spending cap would have been passed */
    size_t batched;   /* not sent: left to a provider batch (put in one, or waiting in one) */
    double cost_usd;  /* what the run's replies cost at the config's price, earlier
                         executions of the run included (arb_judge_set_budget) */
};

/*
 * A judge that records through cache (borrowed: it must outlive the judge;
 * NULL: a judge that finds nothing stored and records nothing).
 * api_key may be NULL only for a judge that never sends (every request
 * cached).  use_cache 0 ignores stored replies (they are still recorded).
 */
enum arb_status arb_judge_new(const struct arb_judge_config *cfg, const char *api_key,
                              const struct arb_judge_cache *cache, int use_cache,
                              struct arb_judge **out, struct arb_err *err);
void arb_judge_free(struct arb_judge *j);

/*
 * Whether a stored reply that did not validate is read again (default 0).
 * It never answers a question: by default a request whose stored reply is
 * invalid is sent afresh (a new run, `run --resume --retry-failed`).  With
 * on, it is taken as it was, leading to the same retry or failure as when it
 * arrived, so a resumed run continues exactly where it stopped and a pair
 * that failed stays failed without a request.  An offline judge always reads
 * it (replay re-derives its run).
 */
void arb_judge_reuse_invalid(struct arb_judge *j, int on);

/*
 * Cap what the run spends on this judge at max_usd (0: no cap; the config
 * must have a price), spent_usd having been spent by earlier executions of
 * the run (it starts the progress's cost_usd).  A
 * request whose estimate (budget.c) would pass the cap is not sent; once one
 * does not fit with nothing in flight, no more are sent.  Its question is
 * answered with held set.  Cached replies cost nothing and are always used.
 */
void arb_judge_set_budget(struct arb_judge *j, double max_usd, double spent_usd);

/*
 * Call fn (when not NULL) with the judge's counters each time they change,
 * from the thread that drains.  The struct is valid during the call.
 */
/* How arb_judge_drain's error begins when the provider refused requests in a way no retry
 * can fix (a 4xx three times alike, a billing stop): the same requests would fail again. */
#define ARB_JUDGE_STOPPED "the judge stopped the run"

/* fn(ctx, msg) for what the user should see as it happens: the provider's error the first
 * time each distinct one occurs, a switch of response format, a refusal.  msg is one line,
 * scrubbed of secrets, not escaped for a terminal. */
void arb_judge_set_notice(struct arb_judge *j, void (*fn)(void *ctx, const char *msg), void *ctx);

void arb_judge_set_progress(struct arb_judge *j,
                            void (*fn)(void *ctx, const struct arb_judge_progress *p), void *ctx);

/* The counters now (valid until the judge is freed). */
const struct arb_judge_progress *arb_judge_get_progress(const struct arb_judge *j);

/*
 * Queue a question.  done is called once, from arb_judge_drain, with the
 * answer (valid during the call).  ARB_EUSAGE for a single-output question
 * without items or with a criterion.  A request no cached reply answers is
 * put on the wire at once (unless a question asked earlier in this drain
 * waits for the drain: requests go out in the order asked); its reply is
 * handled, stored and answered only by a drain.
 */
enum arb_status arb_judge_ask(struct arb_judge *j, const struct arb_judge_question *q,
                              void (*done)(void *ctx, const struct arb_judge_question *q,
                                           const struct arb_judge_answer *a),
                              void *ctx, struct arb_err *err);

/*
 * Send what is not cached and wait for every answer.  Each reply is stored as
 * it arrives, and made durable before the drain waits for more (in groups,
 * when the cache can hold: arb_judge_cache.hold) and when it returns (the
 * caller must not hold a transaction open).
 * Questions are answered in the order asked, each as soon as it and those
 * before it are complete (while later replies are still awaited).  ARB_EDB,
 * ARB_ENOMEM; ARB_EREMOTE with "judge authentication failed (HTTP 401)" when
 * the provider refuses the key (the remaining questions are not sent, and
 * none is answered after it).  Transport failures are not errors here: their
 * questions are answered failed, counted in *unreachable.
 */
enum arb_status arb_judge_drain(struct arb_judge *j, size_t *unreachable, struct arb_err *err);

/*
 * arb_judge_drain for the first n questions not yet answered (all of them when n is
 * larger), in the order asked: returns as soon as they are answered, leaving the later
 * ones' requests queued or in flight.  A caller that asks its next questions before it
 * drains the last ones keeps the slots full while those wait for their retries (their
 * answers come from a later drain).  Between drains no callback runs and nothing is
 * stored, so the caller may hold a transaction open while it asks.  *unreachable counts
 * the failures seen during this drain, whichever question they belong to.  On an error the
 * remaining questions are dropped unanswered.
 */
enum arb_status arb_judge_drain_first(struct arb_judge *j, size_t n, size_t *unreachable,
                                      struct arb_err *err);

/* How many questions are asked and not yet answered. */
size_t arb_judge_pending(const struct arb_judge *j);

/*
 * The caller will ask no more (its last drain is next): connections are closed as they fall
 * idle during that drain (arb_transport_wind_down), not all when the judge is freed.
 * Questions asked later still work, on new connections.
 */
void arb_judge_wind_down(struct arb_judge *j);

/* ---- batch mode: who decides where a request goes (src/run/batch_route.c) ---- */

/* A request the cache could not answer, as a batcher sees it (everything borrowed). */
struct arb_judge_batch_request {
    const char *key;  /* its cache key */
    const char *body; /* the body the synchronous API would be sent */
    const char *fence; /* the fence code its prompt carries ("" when none) */
    const struct arb_judge_slot *slot;
};

enum arb_judge_batch_route {
    ARB_BATCH_DEFER = 0, /* put in the next batch: the question is answered held */
    ARB_BATCH_WAIT,      /* already in a batch that has not ended: answered held */
    ARB_BATCH_ANSWER,    /* the batch's result is in *res: handled as the reply */
    ARB_BATCH_SEND       /* send it now over the synchronous API */
};

/* A batch's result for a request (borrowed: the batcher keeps it valid while the judge handles
 * it, including the routes that handling makes: the re-ask of an invalid reply). */
struct arb_judge_batch_result {
    int ok;                   /* the provider answered with a 2xx reply */
    long http_status;         /* the status the batch names (0: none, e.g. expired) */
    const char *body;         /* the reply (or the error body); may be NULL when !ok */
    const char *error;        /* why, when !ok ("expired in batch ...") */
    const char *request_json; /* the body that was sent in the batch */
    const char *fence;        /* and its fence code */
    double latency_s;         /* from submission to the batch's end (0: unknown) */
};

/*
 * The batcher a run gives a batch-mode judge: route is called, from the drain, for every
 * call no stored reply answers, instead of sending it.  It returns ARB_OK with *route set
 * (and *res filled for ARB_BATCH_ANSWER), or a status with err filled (the drain stops).  A
 * result is handled exactly as the synchronous reply would be: scrubbed, parsed, validated,
 * stored in the cache with its judgment, asked again once when invalid (that request routed
 * again).  n_deferred counts the requests a batch is still to answer.
 */
struct arb_judge_batcher {
    void *ctx;
    enum arb_status (*route)(void *ctx, const struct arb_judge_batch_request *rq,
                             enum arb_judge_batch_route *route, struct arb_judge_batch_result *res,
                             struct arb_err *err);
};

/* Route every request the cache cannot answer through b (borrowed; NULL: send them). */
void arb_judge_set_batcher(struct arb_judge *j, const struct arb_judge_batcher *b);

#endif
