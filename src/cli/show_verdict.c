/*
 * show_verdict.c - `arbiter show`'s text under a pair's verdict (show_verdict.h):
 * the judge's answers in each order put together (case_view.h reads them),
 * what decided, and the reasoning.  cmd_show.c prints everything else.
 */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "show_verdict.h"

void cli_show_text(const char *label, const char *text, size_t max)
{
    size_t n = strlen(text), i;

    if (n > max) {
        n = max;
        while (n && ((unsigned char)text[n] & 0xC0) == 0x80)
            n--;
    }
    printf("    %s: ", label);
    for (i = 0; i < n; i++)
        putchar(text[i] == '\n' || text[i] == '\r' ? ' ' : text[i]);
    printf("%s\n", n < strlen(text) ? " [...]" : "");
}

/* A policy member's value on one line: text as is, numbers, true/false, null as "none". */
static void print_scalar(const cJSON *m)
{
    char *s;

    if (cJSON_IsString(m)) {
        printf("%s", m->valuestring);
    } else if (cJSON_IsNumber(m)) {
        printf("%g", m->valuedouble);
    } else if (cJSON_IsBool(m)) {
        printf("%s", cJSON_IsTrue(m) ? "true" : "false");
    } else if (cJSON_IsNull(m)) {
        printf("none");
    } else {
        s = cJSON_PrintUnformatted(m);
        printf("%s", s ? s : "?");
        cJSON_free(s);
    }
}

/*
 * What decided the verdict, when its comparison says: "decided_by" and the "policy" object
 * (each member, its "why" on a line of its own).  Read as found: older records lack both.
 */
void cli_show_policy(const cJSON *cmp)
{
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(cmp, "policy");
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(cmp, "decided_by"), *m;
    int first = 1;

    if (d) {
        printf("    decided by: ");
        print_scalar(d);
        putchar('\n');
    }
    if (p && !cJSON_IsObject(p)) {
        printf("    policy: ");
        print_scalar(p);
        putchar('\n');
        return;
    }
    cJSON_ArrayForEach(m, p)
    {
        if (!m->string || strcmp(m->string, "why") == 0)
            continue;
        printf("%s%s ", first ? "    policy: " : ", ", m->string);
        print_scalar(m);
        first = 0;
    }
    if (!first)
        putchar('\n');
    m = cJSON_GetObjectItemCaseSensitive(p, "why");
    if (cJSON_IsString(m) && m->valuestring[0])
        cli_show_text("why", m->valuestring, REASONING_SHOWN);
}

/* "order AB (alpha shown first)" and ", sample N" when the orders were sampled more than once. */
static void order_label(char *buf, size_t size, const cJSON *e, int sampled)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(e, "sample");
    int k = snprintf(buf, size, "order %s (%s shown first)",
                     cJSON_GetObjectItemCaseSensitive(e, "ord")->valuestring,
                     cJSON_GetObjectItemCaseSensitive(e, "shown_first")->valuestring);

    if (sampled && k >= 0 && (size_t)k < size)
        snprintf(buf + k, size - (size_t)k, ", sample %d", n->valueint + 1);
}

/* Whether some slot of the view is a second sample: then each label names its sample. */
static int sampled(const cJSON *orders)
{
    const cJSON *e;

    cJSON_ArrayForEach(e, orders)
    {
        if (cJSON_GetObjectItemCaseSensitive(e, "sample")->valueint > 0)
            return 1;
    }
    return 0;
}

/*
 * The judge's answers of a pair put together, under its verdict: each order's winner (with
 * who was shown first), then whether the orders agreed, the sample agreement and the
 * judge's own winner.
 */
void cli_show_judge_view(const cJSON *view)
{
    const cJSON *orders = cJSON_GetObjectItemCaseSensitive(view, "orders"), *e;
    const cJSON *pi = cJSON_GetObjectItemCaseSensitive(view, "position_inconsistent");
    const cJSON *sa = cJSON_GetObjectItemCaseSensitive(view, "sample_agreement");
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(view, "winner");
    int multi = sampled(orders), said = 0;
    char label[600];

    cJSON_ArrayForEach(e, orders)
    {
        const cJSON *ew = cJSON_GetObjectItemCaseSensitive(e, "winner");
        const cJSON *as = cJSON_GetObjectItemCaseSensitive(e, "winner_as_shown");

        order_label(label, sizeof(label), e, multi);
        printf("    judge, %s: ", label);
        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "valid")))
            printf("no valid answer\n");
        else if (cJSON_IsString(ew) && strcmp(ew->valuestring, "TIE") == 0)
            printf("a tie\n");
        else if (cJSON_IsString(ew))
            printf("winner %s (Response %s)\n", ew->valuestring, as->valuestring);
        else
            printf("no winner named\n");
    }
    if (cJSON_IsBool(pi)) {
        printf("    judge: %s", cJSON_IsTrue(pi) ? "position-inconsistent (its orders disagree on "
                                                   "the winner)"
                                                 : "position-consistent");
        said = 1;
    }
    if (cJSON_IsNumber(sa)) {
        printf("%ssample agreement %.3g", said ? ", " : "    judge: ", sa->valuedouble);
        said = 1;
    }
    if (cJSON_IsString(w)) {
        printf("%sits own winner %s", said ? ", " : "    judge: ", w->valuestring);
        said = 1;
    }
    if (said)
        putchar('\n');
}

/*
 * The verdict's reasoning: a pair whose orders disagreed has two (the comparison keeps the
 * first order's), so then each order's own reasoning, under its order.
 */
void cli_show_reasoning(const cJSON *cmp, const cJSON *view)
{
    const cJSON *orders = cJSON_GetObjectItemCaseSensitive(view, "orders"), *e;
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(cmp, "reasoning");
    int multi = sampled(orders);
    char label[640];

    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(view, "position_inconsistent"))) {
        if (cJSON_IsString(r) && r->valuestring[0])
            cli_show_text("reasoning", r->valuestring, REASONING_SHOWN);
        return;
    }
    cJSON_ArrayForEach(e, orders)
    {
        r = cJSON_GetObjectItemCaseSensitive(e, "reasoning");
        if (!cJSON_IsString(r))
            continue;
        memcpy(label, "reasoning, ", 11);
        order_label(label + 11, sizeof(label) - 11, e, multi);
        cli_show_text(label, r->valuestring, REASONING_SHOWN);
    }
}
