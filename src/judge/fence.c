/*
 * fence.c - the fence codes that wrap outputs in a judge's prompt.
 *
 * A code is 16 hex digits drawn from a random source (OpenSSL's RAND_bytes)
 * for every request, so no output can predict, and so close, the fences it
 * sits between.  It used to be an HMAC of the suite's seed and the case id:
 * an output that listed every candidate code blocked the whole run.  A code
 * an output happens to contain is drawn again, at most JUDGE_FENCE_DRAWS
 * times; past that only the request's question fails (the caller's part).
 *
 * The code is a delimiter, not part of the question: request.c hashes the
 * cache key over the prompt rendered with JUDGE_FENCE_PLACEHOLDER in its
 * place, so a second run, a --resume and a replay find the reply whatever
 * code they draw.  The code a request used is recorded with its judgment
 * (judgments.fence), for audit.
 */
#include <string.h>

#include <openssl/rand.h>

#include "judge_int.h"

int judge_random_bytes(void *ctx, unsigned char *buf, size_t n)
{
    (void)ctx;
    return n <= 1024 && RAND_bytes(buf, (int)n) == 1;
}

/* Whether text (may be NULL) contains code. */
static int holds(const char *text, const char *code)
{
    return text && strstr(text, code) != NULL;
}

enum arb_status judge_fence(const struct arb_judge_question *q, judge_random_fn rnd, void *ctx,
                            char *out)
{
    unsigned char raw[8];
    int k;

    for (k = 0; k < JUDGE_FENCE_DRAWS; k++) {
        if (!rnd(ctx, raw, sizeof(raw)))
            return ARB_EINTERNAL;
        arb_hex(raw, sizeof(raw), out);
        out[16] = '\0';
        if (!holds(q->output_a, out) && !holds(q->output_b, out))
            return ARB_OK;
    }
    return ARB_ESCHEMA;
}
