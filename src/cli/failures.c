/*
 * failures.c - why the judge failed, in a command's summary (failures.h).
 * Which judgments failed and how they group is the library's; this file
 * only prints them, each reason on one line a terminal shows whole.
 */
#include <stdio.h>
#include <string.h>

#include "arbiter/report.h"
#include "cli.h"
#include "failures.h"

#define SHOWN_REASONS 5   /* lines of reasons in a text summary */
#define SHOWN_IDS     3   /* case ids on each */
#define REASON_BYTES  160 /* a reason is cut there */
#define JSON_REASONS  100 /* reasons in a --json summary */
#define JSON_IDS      5

/* The reason on one line: control characters as spaces, cut at REASON_BYTES (UTF-8 safe). */
static void print_reason(const char *s)
{
    size_t n = strlen(s), i;

    if (n > REASON_BYTES) {
        n = REASON_BYTES;
        while (n && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    }
    for (i = 0; i < n; i++)
        putchar((unsigned char)s[i] < 0x20 || s[i] == 0x7f ? ' ' : s[i]);
    fputs(n < strlen(s) ? "...\n" : "\n", stdout);
}

static void print_one(const cJSON *f)
{
    const cJSON *count = cJSON_GetObjectItemCaseSensitive(f, "count");
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(f, "cases");
    const cJSON *ids = cJSON_GetObjectItemCaseSensitive(f, "case_ids"), *id;
    const cJSON *reason = cJSON_GetObjectItemCaseSensitive(f, "reason");
    int first = 1;

    printf("    %.0f judgment%s in %.0f case%s (", count->valuedouble,
           count->valuedouble == 1 ? "" : "s", cases->valuedouble,
           cases->valuedouble == 1 ? "" : "s");
    cJSON_ArrayForEach(id, ids)
    {
        printf("%s%s", first ? "" : ", ", id->valuestring);
        first = 0;
    }
    printf("%s): ", cases->valuedouble > cJSON_GetArraySize(ids) ? ", ..." : "");
    print_reason(reason->valuestring);
}

void cli_print_judge_failures(const char *cmd, struct arb_store *st, int64_t run, const char *db)
{
    struct arb_err err = {{0}};
    cJSON *o = cJSON_CreateObject();
    const cJSON *list, *f, *more;
    enum arb_status rs =
        o ? arb_report_add_judge_failures(st, run, o, SHOWN_REASONS, SHOWN_IDS, &err) : ARB_ENOMEM;

    if (rs) {
        fprintf(stderr, "arbiter %s: note: cannot list why the judge failed: %s\n", cmd,
                err.msg[0] ? err.msg : arb_strerror(rs));
        cJSON_Delete(o);
        return;
    }
    list = cJSON_GetObjectItemCaseSensitive(o, "judge_failures");
    if (cJSON_GetArraySize(list) > 0)
        printf("  why the judge failed, most frequent first:\n");
    cJSON_ArrayForEach(f, list)
    {
        print_one(f);
    }
    more = cJSON_GetObjectItemCaseSensitive(o, "judge_failures_more");
    if (more) {
        double n = cJSON_GetObjectItemCaseSensitive(more, "reasons")->valuedouble;

        printf("    and %.0f more reason%s (arbiter report %lld --db %s)\n", n, n == 1 ? "" : "s",
               (long long)run, db);
    }
    cJSON_Delete(o);
}

int cli_add_judge_failures(const char *cmd, struct arb_store *st, int64_t run, cJSON *o)
{
    struct arb_err err = {{0}};
    enum arb_status rs = arb_report_add_judge_failures(st, run, o, JSON_REASONS, JSON_IDS, &err);

    if (!rs)
        return 0;
    fprintf(stderr, "arbiter %s: note: cannot list why the judge failed: %s\n", cmd,
            err.msg[0] ? err.msg : arb_strerror(rs));
    cJSON_DeleteItemFromObjectCaseSensitive(o, "judge_failures");
    cJSON_DeleteItemFromObjectCaseSensitive(o, "judge_failures_more");
    return -1;
}
