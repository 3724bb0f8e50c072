/*
 * fuzz_reply.c - libFuzzer target for the judge reply parser
 * (judge_parse_reply, internal to src/judge/).
 *
 * Input: one provider reply body, parsed as an OpenAI chat completion, an
 * Anthropic message and a command judge's standard output in turn (an event
 * stream assembled, the answer found past think blocks, fences and prose).  The
 * parser reads a NUL-terminated body, so the input is copied into one.
 * Whatever it hands back (answer and text, even on failure) is freed here.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/judge/judge_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const enum arb_judge_provider providers[] = {ARB_JUDGE_OPENAI, ARB_JUDGE_ANTHROPIC,
                                                        ARB_JUDGE_COMMAND};
    char model[] = "fuzz-model";
    char *body = malloc(size + 1);
    size_t i;

    if (!body)
        return 0;
    memcpy(body, data, size);
    body[size] = '\0';
    for (i = 0; i < sizeof(providers) / sizeof(providers[0]); i++) {
        struct arb_judge_config cfg;
        struct arb_err err = {{0}};
        struct judge_reply r;
        struct judge_usage u;

        memset(&cfg, 0, sizeof(cfg));
        cfg.provider = providers[i];
        cfg.model = model;
        cfg.swap = 1;
        cfg.samples = 1;
        cfg.max_tokens = 1024;
        judge_parse_reply(&cfg, body, &r, &err);
        judge_reply_release(&r);
        judge_reply_usage(&cfg, body, &u);
    }
    free(body);
    return 0;
}
