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

/* The whole template as one string (caller frees). */
char *judge_template(void);

/*
 * The fence code for (question, order, sample): 16 hex digits of an HMAC of
 * the case id, order and sample under the question's seed, drawn again with
 * a counter while it occurs in either output, so no output can contain, and
 * so close, its own fence.  out holds 17 bytes.
 */
enum arb_status judge_fence(const struct arb_judge_question *q, int swapped, int sample,
                            char *out);

/* The user message for one order (swapped: B's output shown first, as "A"). */
enum arb_status judge_render(const struct arb_judge_question *q, const char *fence, int swapped,
                             struct arb_buf *out);

/* The reply schema for a question: its items are the required members. */
cJSON *judge_schema(const struct arb_judge_question *q);

/*
 * Build the provider's request body (*body, caller frees) and the cache key
 * (SHA-256 hex of the canonical request: provider, model, parameters,
 * messages, schema, sample).  retry_reply / retry_error, when given, add the
 * rejected reply and the validation error as a second turn.
 */
enum arb_status judge_build_request(const struct arb_judge_config *cfg, const char *user_msg,
                                    const cJSON *schema, int sample, const char *retry_reply,
                                    const char *retry_error, char **body, char *key,
                                    struct arb_err *err);

/*
 * Parse a provider reply body: the judge's answer (the JSON object it
 * produced, *answer, caller frees), its text (*text, caller frees), and the
 * token usage.  ARB_EPARSE with a message when the body or the answer is not
 * what the protocol says.
 */
enum arb_status judge_parse_reply(const struct arb_judge_config *cfg, const char *body,
                                  cJSON **answer, char **text, long long *prompt_tokens,
                                  long long *completion_tokens, struct arb_err *err);

/*
 * Run the command judge: argv (NULL-terminated) with input on its standard
 * input; its standard output into out (whose cap bounds it).  ARB_EIO with
 * why on a failed start, a non-zero exit or the timeout (the program is
 * killed); ARB_ETOOBIG past the cap.
 */
enum arb_status judge_run_command(char *const *argv, const char *input, double timeout_s,
                                  struct arb_buf *out, char *why, size_t whylen);

#endif
