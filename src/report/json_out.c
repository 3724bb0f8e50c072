/*
 * json_out.c - the report as JSON (report.h: arb_report_json), written as it
 * goes: cJSON prints the report object, and the per-case entries that
 * case_rates.c wrote to the spill file as the verdicts were read take the
 * place of their placeholder, indented as cJSON would have printed them in
 * place, so the bytes are those of printing the whole tree while memory holds
 * only the report's summary.  Also the sink's flush, shared with csv.c.
 */
#include <string.h>

#include "arbiter/report.h"
#include "report_int.h"

enum arb_status arb_report_flush(struct arb_buf *out, const struct arb_report_sink *sink,
                                 size_t min)
{
    if (!sink || out->len < min || !out->len)
        return ARB_OK;
    if (sink->write(sink->ctx, out->ptr, out->len))
        return ARB_EIO;
    arb_buf_reset(out);
    return ARB_OK;
}

/* The tabs that start the line of p in s: cJSON's depth there. */
static size_t line_tabs(const char *s, const char *p)
{
    const char *line = p;
    size_t n = 0;

    while (line > s && line[-1] != '\n')
        line--;
    while (line + n < p && line[n] == '\t')
        n++;
    return n;
}

/*
 * The spill's entries into out, each line after the first indented by depth
 * tabs more (cJSON printed each alone, at depth 0).
 */
static enum arb_status copy_spill(FILE *spill, size_t depth, struct arb_buf *out,
                                  const struct arb_report_sink *sink)
{
    char chunk[16384], tabs[64];
    size_t n;
    enum arb_status st = ARB_OK;

    if (depth > sizeof(tabs))
        return ARB_EINTERNAL;
    memset(tabs, '\t', sizeof(tabs));
    if (fflush(spill) || fseek(spill, 0, SEEK_SET))
        return ARB_EIO;
    while (!st && (n = fread(chunk, 1, sizeof(chunk), spill)) > 0) {
        const char *p = chunk, *end = chunk + n;

        while (!st && p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            const char *stop = nl ? nl + 1 : end;

            st = arb_buf_add(out, p, (size_t)(stop - p));
            if (!st && nl)
                st = arb_buf_add(out, tabs, depth);
            p = stop;
        }
        if (!st)
            st = arb_report_flush(out, sink, ARB_REPORT_FLUSH);
    }
    return st ? st : ferror(spill) ? ARB_EIO : ARB_OK;
}

enum arb_status arb_report_json(const cJSON *report, FILE *case_spill, struct arb_buf *out,
                                const struct arb_report_sink *sink)
{
    char *s = cJSON_Print(report);
    const char *mark;
    enum arb_status st;

    if (!s)
        return ARB_ENOMEM;
    /* The placeholder is a raw byte cJSON never prints: it escapes control characters. */
    mark = case_spill ? strchr(s, CASE_SPILL_MARK) : NULL;
    if (!mark) {
        st = arb_buf_adds(out, s);
    } else {
        st = arb_buf_add(out, s, (size_t)(mark - s));
        if (!st)
            st = arb_report_flush(out, sink, 1);
        if (!st)
            st = copy_spill(case_spill, line_tabs(s, mark) + 1, out, sink);
        if (!st)
            st = arb_buf_adds(out, mark + 1);
    }
    if (!st)
        st = arb_buf_addc(out, '\n');
    if (!st)
        st = arb_report_flush(out, sink, ARB_REPORT_FLUSH);
    cJSON_free(s);
    return st;
}
