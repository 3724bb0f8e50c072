/*
 * errors.c - the notes a record carries for a failed validation:
 * "instance path: keyword" for each kept violation, then how many more.
 */
#include "schema_int.h"

enum arb_status arb_schema_errors_write(const struct arb_schema_errors *errs, struct arb_buf *out)
{
    enum arb_status st = ARB_OK;
    size_t i;

    for (i = 0; i < errs->count && st == ARB_OK; i++) {
        const struct arb_schema_violation *v = &errs->items[i];

        st = arb_buf_printf(out, "%s%s: %s", i ? "; " : "", v->path[0] ? v->path : "(root)",
                            v->keyword);
    }
    if (st == ARB_OK && errs->total > errs->count)
        st = arb_buf_printf(out, " (+%zu more, %zu in total)", errs->total - errs->count,
                            errs->total);
    return st;
}
