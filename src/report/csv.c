/*
 * csv.c - a run's verdicts as one CSV table (RFC 4180), for spreadsheets and
 * CSV readers: `arbiter export --csv` and `arbiter report --format csv`
 * (report.h: arb_report_csv).
 *
 * One row per case and pair of systems, in case order (within a case, in
 * the order the pairs were stored).  Fields holding a comma, a double quote,
 * CR or LF, or starting or ending with a space or tab, are quoted with
 * quotes doubled; lines end in CRLF; SQL NULL is an empty field.  Numbers
 * take the shortest digits that read back as the same double
 * (arb_json_number_format: 10, 0.5, 0.6666666666666666), so a reader gets
 * exactly the stored value.
 *
 * Text is written as stored, even a case id starting with = + - @ that a
 * spreadsheet may take for a formula: the ids are the keys a reader joins
 * on (and gives back to --cases), a prefixed quote would change them for
 * every other CSV reader, and they come from the suite's author, not from
 * the systems' outputs, which are never in the table.  Writing the table to
 * a file is the caller's.
 */
#include <math.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "arbiter/json.h"
#include "arbiter/report.h"

static const char header[] = "run,case_id,seq,system_a,system_b,status,winner,score_a,score_b,"
                             "pass_rate_a,pass_rate_b,judged,position_inconsistent,unresolved";

struct csv {
    struct arb_store *st;
    int64_t run;
    int64_t seq; /* of the case being written */
    struct arb_buf *out;
    const struct arb_report_sink *sink; /* NULL: all of it in out */
    struct arb_err *err;
    enum arb_status rc; /* the first failure: of the store, or of out */
};

/* A text field; NULL is empty. */
static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static enum arb_status add_text(struct arb_buf *out, const char *s)
{
    enum arb_status st;
    size_t n;

    if (!s)
        return ARB_OK;
    n = strlen(s);
    /* Spaces at either end are quoted too: some readers trim them from a bare field. */
    if (!s[strcspn(s, ",\"\r\n")] && !(n && (is_blank(s[0]) || is_blank(s[n - 1]))))
        return arb_buf_adds(out, s);
    st = arb_buf_addc(out, '"');
    for (; !st && *s; s++)
        st = *s == '"' ? arb_buf_adds(out, "\"\"") : arb_buf_addc(out, *s);
    return st ? st : arb_buf_addc(out, '"');
}

/* A number; NaN (SQL NULL) is empty. */
static enum arb_status add_number(struct arb_buf *out, double v)
{
    char s[ARB_JSON_NUMBER_MAX];

    if (!isfinite(v))
        return ARB_OK;
    arb_json_number_format(v, s);
    return arb_buf_adds(out, s);
}

/* ",value": a field after the first. */
static enum arb_status next_text(struct arb_buf *out, enum arb_status st, const char *s)
{
    st = st ? st : arb_buf_addc(out, ',');
    return st ? st : add_text(out, s);
}

static enum arb_status next_number(struct arb_buf *out, enum arb_status st, double v)
{
    st = st ? st : arb_buf_addc(out, ',');
    return st ? st : add_number(out, v);
}

/*
 * What the comparison says about the judge: judged 1 when the pair went to
 * it (a "judge" member), inconsistent 1 or 0 from its answer (NaN when it
 * gave none), and how many items stayed unresolved (NaN when not said).
 */
static void judge_fields(const char *comparison_json, double *judged, double *inconsistent,
                         double *unresolved)
{
    cJSON *cmp = comparison_json ? cJSON_Parse(comparison_json) : NULL;
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(cmp, "judge");
    const cJSON *pi = cJSON_GetObjectItemCaseSensitive(j, "position_inconsistent");
    const cJSON *un = cJSON_GetObjectItemCaseSensitive(cmp, "unresolved");

    *judged = j ? 1 : 0;
    *inconsistent = cJSON_IsBool(pi) ? (double)cJSON_IsTrue(pi) : NAN;
    *unresolved = cJSON_IsArray(un) ? (double)cJSON_GetArraySize(un) : NAN;
    cJSON_Delete(cmp);
}

static int on_verdict(void *ctx, const struct arb_verdict_row *v)
{
    struct csv *c = ctx;
    double judged, inconsistent, unresolved;
    enum arb_status st;

    judge_fields(v->comparison_json, &judged, &inconsistent, &unresolved);
    st = add_number(c->out, (double)c->run);
    st = next_text(c->out, st, v->case_id);
    st = next_number(c->out, st, (double)c->seq);
    st = next_text(c->out, st, v->system_a);
    st = next_text(c->out, st, v->system_b);
    st = next_text(c->out, st, v->status);
    st = next_text(c->out, st, v->winner);
    st = next_number(c->out, st, v->score_a);
    st = next_number(c->out, st, v->score_b);
    st = next_number(c->out, st, v->pass_rate_a);
    st = next_number(c->out, st, v->pass_rate_b);
    st = next_number(c->out, st, judged);
    st = next_number(c->out, st, inconsistent);
    st = next_number(c->out, st, unresolved);
    if (!st)
        st = arb_buf_adds(c->out, "\r\n");
    if (!st)
        st = arb_report_flush(c->out, c->sink, ARB_REPORT_FLUSH);
    c->rc = st;
    return st != ARB_OK;
}

static int on_case(void *ctx, const char *case_id, int64_t seq, const char *case_json)
{
    struct csv *c = ctx;
    enum arb_status rc;

    (void)case_json;
    c->seq = seq;
    rc = arb_store_verdicts(c->st, c->run, case_id, on_verdict, c, c->err);
    if (rc)
        c->rc = rc;
    return c->rc != ARB_OK;
}

enum arb_status arb_report_csv(struct arb_store *st, int64_t run, struct arb_buf *out,
                               struct arb_err *err)
{
    return arb_report_csv_to(st, run, out, NULL, err);
}

enum arb_status arb_report_csv_to(struct arb_store *st, int64_t run, struct arb_buf *out,
                                  const struct arb_report_sink *sink, struct arb_err *err)
{
    struct csv c = {st, run, 0, out, sink, err, ARB_OK};
    enum arb_status rc = arb_buf_adds(out, header);

    if (!rc)
        rc = arb_buf_adds(out, "\r\n");
    if (!rc)
        rc = arb_store_cases(st, run, on_case, &c, err);
    if (!rc)
        rc = c.rc;
    if (rc && !err->msg[0])
        arb_err_set(err, rc, "cannot build the CSV of run %lld: %s", (long long)run,
                    arb_strerror(rc));
    return rc;
}
