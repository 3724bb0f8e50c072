/*
 * observed.c - one output shared by the checks run on it (compare.h, struct arb_observed).
 *
 * A suite's checks on one output each used to derive the same things from it: four JSON
 * operators (json_match, json_valid, a JSON pointer's extract, a schema) parsed it four times,
 * and every check checked its UTF-8.  Here each is derived once, the first time a check asks,
 * and kept with the text until the next text is set.  What a check records from them (the
 * parse failure's notes, the repeated keys) is noted by each check from the kept results,
 * exactly as from its own parse (expected_forms.c).  How the checks run is check.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "arbiter/json.h"
#include "arbiter/unicode.h"
#include "check_impl.h"

/* How the comparators read observed JSON: expected_forms.c's OBSERVED_FLAGS. */
#define SHARED_FLAGS (ARB_JSON_ALLOW_BOM | ARB_JSON_ALLOW_NUL | ARB_JSON_LAST_KEY_WINS)

enum arb_status arb_observed_new(struct arb_observed **out)
{
    struct arb_observed *o = calloc(1, sizeof(*o));

    *out = o;
    if (!o)
        return ARB_ENOMEM;
    arb_buf_init(&o->dups, 0);
    o->utf8 = -1;
    return ARB_OK;
}

void arb_observed_set(struct arb_observed *o, const char *text, size_t len)
{
    cJSON_Delete(o->doc);
    o->doc = NULL;
    o->text = text;
    o->len = len;
    o->utf8 = -1;
    o->parsed = 0;
    o->pst = ARB_OK;
    o->perr.msg[0] = '\0';
    o->fail_note[0] = '\0';
    arb_buf_reset(&o->dups);
}

void arb_observed_free(struct arb_observed *o)
{
    if (!o)
        return;
    cJSON_Delete(o->doc);
    arb_buf_release(&o->dups);
    free(o);
}

enum arb_status observed_parsed(struct arb_observed *o, const cJSON **doc, enum arb_status *pst,
                                const struct arb_err **perr, const struct arb_buf **dups)
{
    if (!o->parsed) {
        enum arb_status st;

        o->perr.msg[0] = '\0';
        arb_buf_reset(&o->dups);
        st = arb_json_parse_ex(o->text, o->len, SHARED_FLAGS, &o->doc, &o->dups, &o->perr);
        if (st == ARB_ENOMEM) {
            o->doc = NULL;
            return st; /* not kept: the next check tries again */
        }
        if (st)
            o->doc = NULL;
        o->pst = st;
        o->parsed = 1;
    }
    *doc = o->doc;
    *pst = o->pst;
    *perr = &o->perr;
    *dups = &o->dups;
    return ARB_OK;
}

int observed_utf8(struct arb_observed *o)
{
    if (o->utf8 < 0)
        o->utf8 = arb_utf8_valid(o->text, o->len, NULL);
    return o->utf8;
}

enum arb_status arb_check_run_on(struct arb_check *c, struct arb_observed *o,
                                 const cJSON *case_expected, struct arb_result *res,
                                 struct arb_err *err)
{
    return check_run_shared(c, o->text, o->len, o, case_expected, res, err);
}
