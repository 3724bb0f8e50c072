/*
 * fuzz_view.c - libFuzzer target for the report's reading of a stored
 * comparison.json (cmp_view_read, src/report/view.c).
 *
 * Input: one text, as the verdicts table could hold it.  The view must never
 * read out of bounds or leak whatever the text, and where cJSON parses the
 * text as an object, the view must read it and agree with cJSON's tree on
 * every value a report counts (tests/common/view_oracle.h); a disagreement
 * aborts, which libFuzzer reports as a crash.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/view_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), why[200] = "";
    struct cmp_view v;

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    /* Any text: read or refused, and the view reused for a second one. */
    cmp_view_init(&v);
    (void)cmp_view_read(&v, text);
    (void)cmp_view_read(&v, "{\"rubric\":{\"A\":{\"overall_score\":1}}}");
    cmp_view_release(&v);
    if (!view_agrees(text, why, sizeof(why))) {
        fprintf(stderr, "fuzz_view: %s\n", why);
        abort();
    }
    free(text);
    return 0;
}
