/*
 * judge_int.h - what the files of src/judge/ share: the embedded prompt,
 * request rendering, and reply parsing.
 */
#ifndef ARBITER_JUDGE_INT_H
#define ARBITER_JUDGE_INT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "arbiter/buf.h"
#include "arbiter/judge.h"

/* prompts/pairwise.md, one literal per line, NULL-terminated (prompt_text.c). */
extern const char *const judge_pairwise_template[];

/* prompts/expectation.md, the single-output question, the same way. */
extern const char *const judge_expectation_template[];

/* A template's lines as one string (caller frees); NULL when out of memory. */
char *judge_template_join(const char *const *lines);

/*
 * The pairwise template as one string (caller frees): what the config hash
 * covers.  The expectation template is deliberately not in it, so adding it
 * left every existing config's hash (and the calibrations stored under it)
 * unchanged; its text still reaches every single-output request and so its
 * cache key.
 */
char *judge_template(void);

/* Whether q asks about one output (output_b NULL) rather than a pair. */
static inline int judge_is_single(const struct arb_judge_question *q)
{
    return q->output_b == NULL;
}

/* ---- fences (fence.c) ---- */

/* A random source: fill buf with n random bytes; 1 on success, 0 when it failed. */
typedef int (*judge_random_fn)(void *ctx, unsigned char *buf, size_t n);

/* OpenSSL's RAND_bytes as a judge_random_fn (ctx unused): the judge's default. */
int judge_random_bytes(void *ctx, unsigned char *buf, size_t n);

/* How many codes are drawn for one request before its question fails. */
#define JUDGE_FENCE_DRAWS 8

/* What the key is computed over in the fence's place (request.c): a code never has braces. */
#define JUDGE_FENCE_PLACEHOLDER "{{fence}}"

/*
 * A fence code for one request: 16 hex digits from rnd, drawn again while
 * either output contains it, so no output can predict, and so close, its
 * own fence.  out holds 17 bytes.  ARB_ESCHEMA when every one of
 * JUDGE_FENCE_DRAWS codes occurred in an output (the question fails alone),
 * ARB_EINTERNAL when the random source failed.
 */
enum arb_status judge_fence(const struct arb_judge_question *q, judge_random_fn rnd, void *ctx,
                            char *out);

/* ---- provider options of the config (config_provider.c) ---- */

/* The output limit a request sends: max_tokens when given (> 0), else the config's. */
static inline long judge_limit(const struct arb_judge_config *cfg, long max_tokens)
{
    return max_tokens > 0 ? max_tokens : cfg->max_tokens;
}

/* The body member the limit goes in: "max_tokens" or "max_completion_tokens". */
static inline const char *judge_limit_field(const struct arb_judge_config *cfg)
{
    return cfg->max_completion_tokens ? "max_completion_tokens" : "max_tokens";
}

/* Whether s contains one of words[0..n), in any case. */
int judge_mentions(const char *s, const char *const *words, size_t n);

/* Read response_format, max_tokens_field, max_tokens_cap, extra_body and headers. */
enum arb_status judge_config_provider_options(const cJSON *obj, struct arb_judge_config *cfg,
                                              struct arb_err *err);

/* Add them to the stored config o (header values from the environment by name only): 1, or 0
 * when out of memory. */
int judge_config_provider_json(const struct arb_judge_config *cfg, cJSON *o);

/* Read "mode", "batch_poll_s", "batch_max_requests" and "batch_retry" (config_batch.c); the
 * provider must be known.  Never in the hash. */
enum arb_status judge_config_batch(const cJSON *obj, struct arb_judge_config *cfg,
                                   struct arb_err *err);

/* Add them to the stored config o: 1, or 0 when out of memory. */
int judge_config_batch_json(const struct arb_judge_config *cfg, cJSON *o);

/* "sync", "batch" or "none". */
const char *judge_batch_retry_name(enum arb_judge_batch_retry r);

/* Add to the hashed canonical config o those that differ from the defaults: 1, or 0. */
int judge_config_provider_hash(const struct arb_judge_config *cfg, cJSON *o);

/* ---- the judge's identity (endpoint.c) ---- */

/* Where requests go, into url (n bytes): base_url without trailing slashes, and the
 * provider's path (/chat/completions, or /v1/messages for Anthropic). */
void judge_request_url(const struct arb_judge_config *cfg, char *url, size_t n);

/*
 * Where url's user-info ("user:password", before an '@') lies: 1 with *from its first byte
 * (borrowed from url) and *len its length, '@' excluded; 0 when it has none (or url is NULL
 * or has no "://").  It ends at the LAST '@' before the first '/', '?' or '#' after "://",
 * as libcurl reads it: a password may hold a raw '@'.  The one reading of user-info for
 * the cache key, the stored config and the scrubber.
 */
int judge_url_userinfo(const char *url, const char **from, size_t *len);

/*
 * s[0..n) percent-decoded into out (room for n bytes; not NUL-terminated): its length, or 0
 * when it decodes to a NUL byte.  A '%' not followed by two hex digits is kept as written.
 */
size_t judge_percent_decode(const char *s, size_t n, char *out);

/*
 * base_url as it identifies a judge (caller frees; NULL when out of memory):
 * scheme and host in lower case, no user-info (user:password@), no trailing
 * slash.  A string without "://" is only stripped of trailing slashes.
 */
char *judge_base_url_normal(const char *url);

/*
 * Which judge answers, for the cache key (caller frees with cJSON_Delete;
 * NULL when out of memory): {"provider", "base_url"} for an HTTP judge (the
 * URL normalised), {"provider": "command", "command": argv, "cwd"} for a
 * command judge.
 */
cJSON *judge_identity(const struct arb_judge_config *cfg);

/*
 * The user message for one order (swapped: B's output shown first, as "A");
 * a single-output question renders prompts/expectation.md (swapped unused).
 */
enum arb_status judge_render(const struct arb_judge_question *q, const char *fence, int swapped,
                             struct arb_buf *out);

/* The reply schema for a question: its items are the required members. */
cJSON *judge_schema(const struct arb_judge_question *q);

/* ---- the single-output question (single.c) ---- */

/* The "{{items}}" text of a single-output prompt: its expectations, one a line. */
enum arb_status judge_single_items(const struct arb_judge_question *q, struct arb_buf *out);

/*
 * Its reply schema: {"reasoning": string, "expectations": {id: {"pass":
 * boolean}}}, every expectation id required, nothing else allowed.  Caller
 * frees; NULL when out of memory.
 */
cJSON *judge_single_schema(const struct arb_judge_question *q);

/*
 * Combine the valid answers slots[0..samples) of a single-output question
 * into a (whose per-item arrays the caller allocated and set to "none"):
 * pass_a per item by majority of the samples (a tie of votes fails),
 * sample_agreement, and the first reasoning (borrowed from slots[0]).
 */
void judge_single_combine(const struct arb_judge_question *q, cJSON *const *slots, int samples,
                          struct arb_judge_answer *a);

/* ---- the llm_judge question (template.c) ---- */

/* The user message: the question's template filled, the output between fences of code fence. */
enum arb_status judge_template_render(const struct arb_judge_question *q, const char *fence,
                                      struct arb_buf *out);

/* {"reasoning": string, result_key: boolean or number}, both required.  Caller frees. */
cJSON *judge_template_schema(const struct arb_judge_question *q);

/* The valid answers slots[0..samples) into a->pass_a[0] or a->score_a[0], and the reasoning. */
void judge_template_combine(const struct arb_judge_question *q, cJSON *const *slots, int samples,
                            struct arb_judge_answer *a);

/* What one request asks (everything borrowed). */
struct judge_request {
    int single;            /* the single-output system message */
    const char *user_msg;  /* the prompt as sent: its fences carry the code drawn for it */
    const char *key_msg;   /* the same prompt with JUDGE_FENCE_PLACEHOLDER for the code, for
                              the key; NULL: user_msg (a prompt without fences) */
    const char *fenced[2]; /* the texts inside the fences, in the order shown (NULL: none),
                              so two splits of one placeholder prompt never share a key */
    const cJSON *schema;
    int sample;
    const char *retry_reply; /* with retry_error: the rejected reply and the validation */
    const char *retry_error; /* error as a second turn (attempt 1), or NULL */
    enum arb_judge_response_format mode; /* how JSON is asked for (the config's, or the mode
                                            the judge switched to) */
    long max_tokens; /* the output limit sent (0: the config's max_tokens) */
};

/* Text added to the prompt when the mode carries no schema (json_object, prompt): the schema
 * follows it as one line of JSON. */
#define JUDGE_SCHEMA_MARKER "follows this JSON Schema:"

/*
 * Build the provider's request body (*body, caller frees; a command judge's
 * is the canonical request it reads on stdin) and the cache key: the
 * SHA-256 hex of {"judge": judge_identity(cfg), "request": the body as it
 * would be with key_msg for user_msg, "fenced": the fenced texts}, in RFC
 * 8785 form.  The body holds the model, every parameter, the messages, the
 * schema and the sample index (the OpenAI "user", the Anthropic
 * metadata.user_id), so the key covers all of them and the endpoint; and not
 * the random fence code, so every run of the same question finds its reply.
 */
enum arb_status judge_build(const struct arb_judge_config *cfg, const struct judge_request *rq,
                            char **body, char *key, struct arb_err *err);

/* The SHA-256 of s as 64 hex digits into out (65 bytes); ARB_EINTERNAL when OpenSSL fails. */
enum arb_status judge_sha256_hex(const char *s, char *out);

/* judge_build for a pairwise question without fences (unit tests). */
enum arb_status judge_build_request(const struct arb_judge_config *cfg, const char *user_msg,
                                    const cJSON *schema, int sample, const char *retry_reply,
                                    const char *retry_error, char **body, char *key,
                                    struct arb_err *err);

/* The same for either kind of question: single selects the single-output system message. */
enum arb_status judge_build_request_as(const struct arb_judge_config *cfg, int single,
                                       const char *user_msg, const cJSON *schema, int sample,
                                       const char *retry_reply, const char *retry_error,
                                       char **body, char *key, struct arb_err *err);

/* ---- what a reply says (parse.c, clean.c, sse.c) ---- */

/* Token usage a provider reported for one reply (0 for what it did not report). */
struct judge_usage {
    long long prompt;     /* every input token, cached ones included */
    long long cached;     /* of prompt, served from the provider's prompt cache */
    long long completion; /* output tokens */
    int reported;         /* the reply had a usage object */
};

/* A provider's own account of an error (or, with type "refusal"/"content_filter", of a
 * refusal): each "" when not given. */
struct judge_provider_error {
    char type[64];
    char code[64];
    char message[512];
    int found;
};

/* What one reply body says. */
struct judge_reply {
    cJSON *answer;          /* the JSON object answered (found in the text when wrapped) */
    char *text;             /* the answer's text as the model wrote it, or NULL */
    char stop_reason[32];   /* as the provider named it; "" when it named none */
    int truncated;          /* the model stopped at the output limit */
    int refused;            /* a refusal or a content filter: error says which and its words */
    int error_body;         /* the body is an error, not a reply: error holds it */
    struct judge_provider_error error;
    char normalization[64]; /* JSON array of what was taken off (judge_calls.normalization);
                               "" when nothing was */
    struct judge_usage usage;
};

/*
 * Read a provider reply body into *r (release with judge_reply_release, whatever it returns):
 * ARB_OK with r->answer, or ARB_EPARSE with why (a body or an answer that is not JSON, no
 * answer, a refusal, an error body), the rest of *r filled as far as the body says.
 */
enum arb_status judge_parse_reply(const struct arb_judge_config *cfg, const char *body,
                                  struct judge_reply *r, struct arb_err *err);

void judge_reply_release(struct judge_reply *r);

/*
 * The answer object in a model's text (clean.c): the text itself when it is one object, else
 * found past byte order marks, <think>/<thinking>/<reasoning> blocks, a ``` fence and prose,
 * each step named in r->normalization.  NULL when there is none.
 */
cJSON *judge_clean_answer(const char *text, struct judge_reply *r);

/* The provider error in a parsed body, or in a body's text: 1 when one was found. */
int judge_error_from_doc(const cJSON *doc, struct judge_provider_error *e);
int judge_provider_error(const char *body, struct judge_provider_error *e);

/*
 * A body that is a server-sent event stream ("data: {...}" lines), assembled into the reply it
 * stands for (sse.c): an OpenAI chat completion from chat.completion.chunk events (content,
 * refusal, finish_reason, usage), an Anthropic message from message_start, content_block_*
 * and message_delta events.  NULL when body is not a stream (or memory ran out).
 */
cJSON *judge_sse_assemble(const struct arb_judge_config *cfg, const char *body);

/* ---- secrets in replies (scrub.c) ---- */

/* The strings no reply may carry into storage: the API key, base_url's user-info (as
 * written and percent-decoded: user:password, the password, their Basic-auth base64), and
 * every header value read from the environment, however many. */
struct judge_secrets {
    char **v; /* owned, each wiped on release */
    size_t n, cap;
};

/*
 * Collect the secrets of a judge: key (may be NULL) and the credentials in base_url.
 * ARB_ENOMEM when memory ran out: a secret missing from the list would not be scrubbed, so
 * the judge must not be used (what was collected is released by judge_secrets_release).
 */
enum arb_status judge_secrets_init(struct judge_secrets *s, const char *key,
                                   const char *base_url);

/* One more: a header value read from the environment (headers {"env": NAME}); ARB_ENOMEM. */
enum arb_status judge_secrets_add(struct judge_secrets *s, const char *v);

/* Wipe and free them. */
void judge_secrets_release(struct judge_secrets *s);

/* Overwrite s with zeros and free it (NULL: nothing): for what holds a secret. */
void judge_wipe_free(char *s);

/*
 * The config's extra headers as lines "Name: value" in *lines (cfg->n_headers of them, each
 * owned), a value from the environment added to s: ARB_EUSAGE naming the header when its
 * variable is unset or the value holds a line break, ARB_ENOMEM.  Whatever the outcome, free
 * *lines with judge_header_lines_free(*lines, cfg->n_headers).
 */
enum arb_status judge_header_lines(const struct arb_judge_config *cfg, struct judge_secrets *s,
                                   char ***lines, struct arb_err *err);
void judge_header_lines_free(char **lines, size_t n);

/*
 * *out: a copy of text[0..len) with every secret replaced by "[REDACTED]"
 * (*out_len its length; the caller frees), or NULL when no secret occurs in
 * it.  ARB_ENOMEM (and *out NULL) when memory ran out: then text must not be
 * used either.
 */
enum arb_status judge_scrub(const struct judge_secrets *s, const char *text, size_t len,
                            char **out, size_t *out_len);

/* ---- the spending cap (budget.c) ---- */

struct judge_budget {
    int on;          /* a cap is set */
    int stopped;     /* a request did not fit with nothing in flight: send no more */
    double max;      /* the cap, USD */
    double spent;    /* USD spent by the run, earlier executions included */
    double reserved; /* USD the requests in flight may still cost (their estimates) */
};

/* A request's estimated cost in USD, from its body's length and max_tokens (budget.c). */
double judge_estimate(const struct arb_judge_config *cfg, size_t body_len);

/* 1 and the estimate reserved when a request fits under the cap (always without a cap). */
int judge_budget_admit(struct judge_budget *b, double estimate);

/* A sent request finished: release its estimate and count what it actually cost. */
void judge_budget_settle(struct judge_budget *b, double estimate, double actual);


/*
 * Read the usage of a provider reply body, whether or not its answer is
 * valid: OpenAI usage.prompt_tokens, .completion_tokens and
 * .prompt_tokens_details.cached_tokens; Anthropic usage.input_tokens plus
 * cache_read_input_tokens and cache_creation_input_tokens (input_tokens
 * counts neither), cached = cache_read_input_tokens, and output_tokens.  A
 * command judge reports none.  Never fails: what cannot be read is 0.
 */
void judge_reply_usage(const struct arb_judge_config *cfg, const char *body,
                       struct judge_usage *u);

/*
 * Run the command judge: argv (NULL-terminated) in directory cwd (NULL: the
 * working directory), in a process group of its own, with input on its
 * standard input; its standard output into out (whose cap bounds it).
 * ARB_EIO with why on a failed start, a non-zero exit (why ends with the
 * tail of its standard error) or the timeout (the group is killed);
 * ARB_ETOOBIG past the cap.  A program that exits without reading its input
 * never raises SIGPIPE in the caller.
 */
enum arb_status judge_run_command(char *const *argv, const char *cwd, const char *input,
                                  double timeout_s, struct arb_buf *out, char *why, size_t whylen);

#endif
