/*
 * tune_markdown.c - a grey-band tuning (tune.c's JSON) as markdown: the
 * chosen band, the best single threshold, their confusion counts, the check
 * to paste into a suite, and the definitions the numbers follow.  Reads only
 * the JSON, so a stored tuning renders the same as a fresh one.
 */
#include <stdio.h>
#include <string.h>

#include "arbiter/calibrate.h"
#include "arbiter/json.h"

static const char tune_definitions[] =
    "## Definitions\n"
    "\n"
    "- **score**: what the check's operator gives the output; the check's own threshold and "
    "fail_below are ignored.\n"
    "- **band**: auto-pass when score >= threshold, auto-fail when score < fail_below, "
    "escalate to the judge in between.\n"
    "- **agreement**: of the auto-decided outputs, the share whose decision is the human "
    "label; escalated outputs are left to the judge and not counted.\n"
    "- **escalated**: the share of all outputs that go to the judge.\n"
    "- **cut points**: a cut matters only by which scores fall on each side; the value "
    "shown is the shortest decimal strictly between two neighbouring scores, nearest their "
    "midpoint (fail_below 0: nothing auto-fails).\n"
    "- **chosen band**: among bands reaching the target agreement, the one escalating "
    "least, then agreeing most, then the narrower, then the higher threshold; when none "
    "reaches it, the one agreeing most, then escalating least.\n"
    "- **single threshold**: fail_below = threshold, nothing escalated.\n";

static double dbl(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);

    return cJSON_IsNumber(v) ? v->valuedouble : 0.0;
}

/* A cut value in its shortest exact form ("0.85"). */
static const char *cut(const cJSON *o, const char *name, char *buf)
{
    arb_json_number_format(dbl(o, name), buf);
    return buf;
}

/* One row of the confusion table: a decision against the human labels. */
static enum arb_status confusion_row(struct arb_buf *out, const cJSON *conf, const char *name,
                                     const char *label)
{
    const cJSON *row = cJSON_GetObjectItemCaseSensitive(conf, name);

    return arb_buf_printf(out, "| %s | %.0f | %.0f |\n", label, dbl(row, "human_pass"),
                          dbl(row, "human_fail"));
}

/* The numbers of one band: agreement, escalation, confusion. */
static enum arb_status band_md(struct arb_buf *out, const cJSON *band, double n)
{
    const cJSON *conf = cJSON_GetObjectItemCaseSensitive(band, "confusion");
    enum arb_status st;

    st = arb_buf_printf(out,
                        "\n| measure | value |\n|---|---:|\n"
                        "| agreement (auto-decided outputs) | %.3f (%.0f of %.0f) |\n"
                        "| escalated to the judge | %.3f (%.0f of %.0f) |\n",
                        dbl(band, "agreement"), dbl(band, "agreed"), dbl(band, "auto_decided"),
                        dbl(band, "escalation"), dbl(band, "escalated"), n);
    if (!st)
        st = arb_buf_adds(out, "\n| decision \\ human | pass | fail |\n|---|---:|---:|\n");
    if (!st)
        st = confusion_row(out, conf, "auto_pass", "auto-pass");
    if (!st)
        st = confusion_row(out, conf, "auto_fail", "auto-fail");
    if (!st)
        st = confusion_row(out, conf, "escalated", "escalated");
    return st;
}

/* "auto-pass at score >= T, auto-fail below F, escalate the rest." */
static enum arb_status rule(struct arb_buf *out, const cJSON *band)
{
    char t[ARB_JSON_NUMBER_MAX], f[ARB_JSON_NUMBER_MAX];

    if (dbl(band, "fail_below") >= dbl(band, "threshold"))
        return arb_buf_printf(out, "auto-pass at score >= %s, auto-fail below it (no grey band).\n",
                              cut(band, "threshold", t));
    if (dbl(band, "fail_below") <= 0.0)
        return arb_buf_printf(out,
                              "auto-pass at score >= %s, escalate the rest (fail_below 0: nothing "
                              "auto-fails).\n",
                              cut(band, "threshold", t));
    return arb_buf_printf(out, "auto-pass at score >= %s, auto-fail below %s, escalate the rest.\n",
                          cut(band, "threshold", t), cut(band, "fail_below", f));
}

enum arb_status arb_tune_markdown(const cJSON *tune, struct arb_buf *out)
{
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(tune, "operator");
    const cJSON *labels = cJSON_GetObjectItemCaseSensitive(tune, "labels");
    const cJSON *band = cJSON_GetObjectItemCaseSensitive(tune, "band");
    const cJSON *single = cJSON_GetObjectItemCaseSensitive(tune, "single");
    const cJSON *check = cJSON_GetObjectItemCaseSensitive(tune, "suggested_check");
    int reached = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(tune, "reached"));
    double n = dbl(tune, "n");
    char g[ARB_JSON_NUMBER_MAX];
    char *text = NULL;
    enum arb_status st;

    st = arb_buf_printf(out,
                        "# Grey-band tuning\n\n`%s` on %.0f labelled outputs (%s): %.0f should "
                        "pass, %.0f should fail; target agreement %s.\n",
                        cJSON_IsString(op) ? op->valuestring : "?", n,
                        cJSON_IsString(labels) ? labels->valuestring : "?", dbl(tune, "human_pass"),
                        dbl(tune, "human_fail"), cut(tune, "target", g));
    if (!st)
        st = arb_buf_printf(out, "\n## %s\n\n", reached ? "Chosen band" : "Target not reached");
    if (!st && reached)
        st = arb_buf_adds(out, "The target is reached: ");
    else if (!st)
        st = arb_buf_printf(out, "No band reaches agreement %s; the best achievable is %.3f: ", g,
                            dbl(band, "agreement"));
    if (!st)
        st = rule(out, band);
    if (!st)
        st = band_md(out, band, n);
    if (!st)
        st = arb_buf_adds(out, "\n## Best single threshold (no grey band)\n\n");
    if (!st)
        st = rule(out, single);
    if (!st)
        st = band_md(out, single, n);
    if (!st) {
        text = cJSON_PrintUnformatted(check);
        st = text ? arb_buf_printf(out, "\n## Suggested check%s\n\n```json\n%s\n```\n",
                                   reached ? "" : " (below the target)", text)
                  : ARB_ENOMEM;
        cJSON_free(text);
    }
    if (!st)
        st = arb_buf_printf(out, "\n%s", tune_definitions);
    return st;
}
