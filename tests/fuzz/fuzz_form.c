/*
 * fuzz_form.c - libFuzzer target for what `arbiter view` reads from a request: a form body
 * or query string (view_form_parse, src/view/form.c) and the case table's filter read from
 * its arguments (view_filter_read, src/view/page.c).
 *
 * Oracle: a filter that was read is written back as a query (view_filter_query, as the
 * pages put it in their links), and that query, read again, is the same filter: the links a
 * page writes always lead to the page they describe.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/report/html_int.h"
#include "../../src/view/view_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same_text(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

static void check_round_trip(const struct view_filter *f)
{
    struct arb_buf out;
    struct html h;
    struct view_args args2;
    struct view_req r2;
    struct view_filter g;
    char bad[200], *q, *w;

    arb_buf_init(&out, 0);
    h.out = &out;
    h.st = ARB_OK;
    view_filter_query(&h, f, f->page);
    if (h.st || !out.ptr) {
        arb_buf_release(&out);
        return;
    }
    /* The query as an attribute holds "&amp;" between arguments: read it as a browser would. */
    q = out.ptr[0] == '?' ? out.ptr + 1 : out.ptr;
    for (w = q; *q;) {
        if (strncmp(q, "&amp;", 5) == 0) {
            *w++ = '&';
            q += 5;
        } else {
            *w++ = *q++;
        }
    }
    *w = '\0';
    memset(&args2, 0, sizeof(args2));
    view_form_parse(out.ptr[0] == '?' ? out.ptr + 1 : out.ptr, &args2);
    if (args2.bad || args2.too_many)
        abort();
    r2 = (struct view_req){0, "/runs/1/cases", args2.a, args2.n};
    if (!view_filter_read(&r2, 1, &g, bad, sizeof(bad)))
        abort();
    if (!same_text(f->q.status, g.q.status) || !same_text(f->q.winner, g.q.winner) ||
        !same_text(f->q.search, g.q.search) || f->q.flags != g.q.flags || f->q.sort != g.q.sort ||
        f->q.descending != g.q.descending || f->q.limit != g.q.limit || f->page != g.page)
        abort();
    arb_buf_release(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *body = malloc(size + 1);
    struct view_args args;
    struct view_req r;
    struct view_filter f;
    char bad[200];

    if (!body)
        return 0;
    memcpy(body, data, size);
    body[size] = '\0';
    memset(&args, 0, sizeof(args));
    view_form_parse(body, &args);
    for (size_t i = 0; i < args.n; i++)
        if (!view_arg_acceptable(args.a[i].name, strlen(args.a[i].name)) ||
            !view_arg_acceptable(args.a[i].value, strlen(args.a[i].value)))
            abort();
    r = (struct view_req){0, "/runs/1/cases", args.a, args.n};
    if (view_filter_read(&r, 1, &f, bad, sizeof(bad)))
        check_round_trip(&f);
    free(body);
    return 0;
}
