/*
 * ops_list.c - top_k and the trajectory operators.
 *
 *  - top_k (evalwire): the observed text is a JSON array, or else one item
 *    per line (lines trimmed, empty lines dropped).  For each expected item,
 *    found first at position p < k it scores 1 - p/k, else 0; the score is
 *    the mean (0 with a note when nothing is expected).  String items compare
 *    by bytes, other items as JSON values.  Named steps (observed side):
 *    one_item_per_line, strip (a line was trimmed), drop_empty_lines; rfc8785
 *    when items compared as JSON values.
 *  - trajectory_exact / trajectory_in_order / trajectory_any_order (Google
 *    ADK's EXACT, IN_ORDER, ANY_ORDER): the observed text is JSON: an array of
 *    calls, an array of chat messages (their tool_calls are taken in order,
 *    other messages skipped), or an object with "tool_calls", "trajectory" or
 *    "calls".  A call is {name, args}, {tool_name, tool_input}, Anthropic's
 *    {name, input} or OpenAI's {function: {name, arguments}} where arguments
 *    may be a JSON string.  Calls are equal when their names are equal and
 *    (with match_args, the default) their arguments are equal as JSON;
 *    missing arguments are {}.  exact: same calls, same order, same count.
 *    in_order: expected calls appear in order, extras allowed.  any_order:
 *    every expected call is matched by a distinct observed call.
 *
 * The conversions made before comparing are the record's normalization, per
 * side: json_canonical_args (arguments compared as RFC 8785 text, with
 * match_args), arguments_text_parsed (arguments given as JSON text were
 * parsed), missing_args_as_empty (absent or null arguments read as {}), and
 * the compared surfaces are the calls as compared: [{"args": ..., "name": ...}]
 * (names only without match_args).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/json.h"
#include "ops.h"

/* ---- top_k --------------------------------------------------------------------------- */

struct topk_priv {
    long k;
};

OP_COMPILE(op_top_k_compile)
{
    struct topk_priv *tp = calloc(1, sizeof(*tp));
    double k = 20;
    enum arb_status st;

    if (!tp)
        return ARB_ENOMEM;
    c->priv = tp;
    st = param_number(cfg, "k", path, &k, NULL, err);
    if (st)
        return st;
    /* range first: converting a double past LONG_MAX to long is undefined */
    if (k < 1 || k >= (double)LONG_MAX || k != (double)(long)k)
        return arb_err_set(err, ARB_ESCHEMA, "%s/k: expected a whole number >= 1", path);
    tp->k = (long)k;
    return ARB_OK;
}

static int is_blank(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\f' || ch == '\v';
}

/* Conversions observed_items made, as bits of its *steps. */
enum item_step { IS_LINES = 1 << 0, IS_STRIP = 1 << 1, IS_EMPTY = 1 << 2 };

/* Build a JSON array of the observed items (JSON array, else lines); *steps as above. */
static enum arb_status observed_items(const struct op_input *in, cJSON **out, unsigned *steps)
{
    cJSON *arr = NULL;
    size_t i = 0;

    if (arb_json_parse(in->text, in->len, ARB_JSON_ALLOW_BOM, &arr, NULL) == ARB_OK) {
        if (cJSON_IsArray(arr)) {
            *out = arr;
            return ARB_OK;
        }
        cJSON_Delete(arr);
    }
    arr = cJSON_CreateArray();
    if (!arr)
        return ARB_ENOMEM;
    *steps |= IS_LINES;
    while (i < in->len) {
        size_t start = i, line_start = i, end, line_end;
        const char *nl = memchr(in->text + i, '\n', in->len - i);
        char *line;
        cJSON *item;

        end = nl ? (size_t)(nl - in->text) : in->len;
        line_end = end;
        i = end + 1;
        while (start < end && is_blank(in->text[start]))
            start++;
        while (end > start && is_blank(in->text[end - 1]))
            end--;
        if (end == start) {
            *steps |= IS_EMPTY;
            continue;
        }
        if (start != line_start || end != line_end)
            *steps |= IS_STRIP;
        line = malloc(end - start + 1);
        if (!line) {
            cJSON_Delete(arr);
            return ARB_ENOMEM;
        }
        memcpy(line, in->text + start, end - start);
        line[end - start] = '\0';
        item = cJSON_CreateString(line);
        free(line);
        if (!item || !cJSON_AddItemToArray(arr, item)) {
            cJSON_Delete(item);
            cJSON_Delete(arr);
            return ARB_ENOMEM;
        }
    }
    *out = arr;
    return ARB_OK;
}

/* Strings by bytes, anything else as JSON values (*by_value set: the step rfc8785). */
static int items_equal(const cJSON *a, const cJSON *b, int *by_value)
{
    if (cJSON_IsString(a) && cJSON_IsString(b))
        return strcmp(a->valuestring, b->valuestring) == 0;
    *by_value = 1;
    return arb_json_equal(a, b);
}

/* Name what top_k did to the observed text (and rfc8785 when items compared as JSON). */
static void top_k_steps(struct arb_result *res, unsigned steps, int by_value)
{
    if (steps & IS_LINES)
        result_norm_side(res, "one_item_per_line", ARB_SIDE_OBSERVED);
    if (steps & IS_STRIP)
        result_norm_side(res, "strip", ARB_SIDE_OBSERVED);
    if (steps & IS_EMPTY)
        result_norm_side(res, "drop_empty_lines", ARB_SIDE_OBSERVED);
    if (by_value)
        result_norm(res, "rfc8785");
}

OP_RUN(op_top_k_run)
{
    const struct topk_priv *tp = c->priv;
    cJSON *owned = NULL, *obs = NULL;
    const cJSON *e, *item, *o;
    double sum = 0.0;
    size_t n = 0;
    unsigned steps = 0;
    int by_value = 0;
    enum arb_status st = ARB_OK;

    if (cJSON_IsArray(in->expected))
        e = in->expected; /* the common case, without a call */
    else
        st = expected_list(in->expected, res, &owned, &e);
    if (!st)
        st = observed_items(in, &obs, &steps);
    if (st) {
        cJSON_Delete(owned);
        return st;
    }
    if (cJSON_IsArray(e)) {
        cJSON_ArrayForEach(item, e)
        {
            long p = 0;

            n++;
            for (o = obs->child; o && p < tp->k; o = o->next, p++) {
                if (items_equal(item, o, &by_value)) {
                    sum += 1.0 - (double)p / (double)tp->k;
                    break;
                }
            }
        }
    } else {
        long p = 0;

        n = 1;
        for (o = obs->child; o && p < tp->k; o = o->next, p++) {
            if (items_equal(e, o, &by_value)) {
                sum = 1.0 - (double)p / (double)tp->k;
                break;
            }
        }
    }
    top_k_steps(res, steps, by_value);
    if (n == 0)
        st = result_note(res, "no_expected_items");
    else
        res->score = sum / (double)n;
    cJSON_Delete(obs);
    cJSON_Delete(owned);
    return st;
}

/* ---- trajectories -------------------------------------------------------------------- */

struct traj_priv {
    int match_args;
};

OP_COMPILE(op_traj_compile)
{
    struct traj_priv *tp = calloc(1, sizeof(*tp));

    if (!tp)
        return ARB_ENOMEM;
    c->priv = tp;
    tp->match_args = 1;
    return param_bool(cfg, "match_args", path, &tp->match_args, err);
}

struct call {
    const char *name;
    char *args; /* RFC 8785 text of the arguments */
};

/* Conversions add_call made, as bits of struct calls' steps. */
enum call_step { CS_ARGS_TEXT = 1 << 0, CS_MISSING_ARGS = 1 << 1 };

struct calls {
    struct call *v;
    size_t n, cap;
    unsigned steps; /* enum call_step */
};

static void calls_release(struct calls *cs)
{
    size_t i;

    for (i = 0; i < cs->n; i++)
        free(cs->v[i].args);
    free(cs->v);
}

static const cJSON *member(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* Add one call object; 1 when it was not a recognisable call. */
static enum arb_status add_call(struct calls *cs, const cJSON *o, int *unknown)
{
    const cJSON *name = member(o, "name"), *args = NULL, *fn = member(o, "function");
    cJSON *parsed = NULL;
    struct call *cl;
    enum arb_status st;

    if (!name)
        name = member(o, "tool_name");
    if (cJSON_IsObject(fn)) {
        name = member(fn, "name");
        args = member(fn, "arguments");
    }
    if (!cJSON_IsString(name)) {
        *unknown = 1;
        return ARB_OK;
    }
    if (!args)
        args = member(o, "args");
    if (!args)
        args = member(o, "arguments");
    if (!args)
        args = member(o, "tool_input");
    if (!args)
        args = member(o, "input");
    if (cJSON_IsString(args) &&
        arb_json_parse(args->valuestring, strlen(args->valuestring), 0, &parsed, NULL) == ARB_OK) {
        args = parsed;
        cs->steps |= CS_ARGS_TEXT;
    }
    if (cs->n == cs->cap) {
        size_t cap = cs->cap ? cs->cap * 2 : 8;
        struct call *v = realloc(cs->v, cap * sizeof(*v));

        if (!v) {
            cJSON_Delete(parsed);
            return ARB_ENOMEM;
        }
        cs->v = v;
        cs->cap = cap;
    }
    cl = &cs->v[cs->n];
    cl->name = name->valuestring;
    if (!args || cJSON_IsNull(args)) {
        cs->steps |= CS_MISSING_ARGS;
        cl->args = strdup("{}");
        st = cl->args ? ARB_OK : ARB_ENOMEM;
    } else {
        st = arb_jcs_string(args, &cl->args, NULL, NULL);
    }
    cJSON_Delete(parsed);
    if (st)
        return st == ARB_ESCHEMA ? ARB_OK : st;
    cs->n++;
    return ARB_OK;
}

/* Collect the calls of a trajectory in any accepted shape. */
static enum arb_status collect(const cJSON *t, struct calls *cs, int *unknown)
{
    const cJSON *x;
    enum arb_status st = ARB_OK;

    if (cJSON_IsObject(t)) {
        const char *keys[] = {"tool_calls", "trajectory", "calls"};
        size_t i;

        for (i = 0; i < 3; i++) {
            x = member(t, keys[i]);
            if (cJSON_IsArray(x))
                return collect(x, cs, unknown);
        }
        return add_call(cs, t, unknown);
    }
    if (!cJSON_IsArray(t)) {
        *unknown = 1;
        return ARB_OK;
    }
    cJSON_ArrayForEach(x, t)
    {
        const cJSON *tc = member(x, "tool_calls");

        if (cJSON_IsArray(tc)) {
            const cJSON *y;

            cJSON_ArrayForEach(y, tc)
            {
                st = add_call(cs, y, unknown);
                if (st)
                    return st;
            }
        } else if (member(x, "role") && !member(x, "name") && !member(x, "function")) {
            continue; /* a chat message without tool calls */
        } else {
            st = add_call(cs, x, unknown);
            if (st)
                return st;
        }
    }
    return st;
}

static int call_eq(const struct call *a, const struct call *b, int match_args)
{
    if (strcmp(a->name, b->name) != 0)
        return 0;
    return !match_args || strcmp(a->args, b->args) == 0;
}

/* Append a call's name as a JSON string: as it is when nothing needs escaping, else RFC 8785. */
static enum arb_status name_json(const char *name, struct arb_buf *out)
{
    const unsigned char *p = (const unsigned char *)name;
    cJSON node;
    enum arb_status st;

    while (*p >= 0x20 && *p != '"' && *p != '\\')
        p++;
    if (*p == '\0') {
        st = arb_buf_addc(out, '"');
        if (!st)
            st = arb_buf_add(out, name, (size_t)(p - (const unsigned char *)name));
        return st ? st : arb_buf_addc(out, '"');
    }
    memset(&node, 0, sizeof(node)); /* a stack node: no allocation for the rare escaped name */
    node.type = cJSON_String;
    node.valuestring = (char *)name;
    return arb_jcs_write(&node, out, NULL);
}

/* The calls as compared, RFC 8785 text: [{"args":...,"name":"..."}] ("name" only without args). */
static enum arb_status calls_surface(const struct calls *cs, int with_args, struct arb_buf *out)
{
    static const char args_key[] = "{\"args\":", name_key[] = "\"name\":";
    enum arb_status st = arb_buf_addc(out, '[');
    size_t i;

    for (i = 0; !st && i < cs->n; i++) {
        if (i)
            st = arb_buf_addc(out, ',');
        if (!st && with_args) {
            st = arb_buf_add(out, args_key, sizeof(args_key) - 1);
            if (!st)
                st = arb_buf_adds(out, cs->v[i].args);
            if (!st)
                st = arb_buf_addc(out, ',');
        } else if (!st) {
            st = arb_buf_addc(out, '{');
        }
        if (!st)
            st = arb_buf_add(out, name_key, sizeof(name_key) - 1);
        if (!st)
            st = name_json(cs->v[i].name, out);
        if (!st)
            st = arb_buf_addc(out, '}');
    }
    return st ? st : arb_buf_addc(out, ']');
}

/* Name each side's conversions and record both call lists as the compared surfaces. */
static enum arb_status traj_record(struct arb_check *c, struct arb_result *res,
                                   const struct calls *ec, const struct calls *oc, int match_args)
{
    const struct calls *side[2] = {ec, oc};
    const unsigned flag[2] = {ARB_SIDE_EXPECTED, ARB_SIDE_OBSERVED};
    struct arb_buf *a = &c->scratch[0], *b = &c->scratch[1];
    enum arb_status st;
    int k;

    for (k = 0; k < 2; k++) {
        if (!match_args)
            continue; /* names only: the arguments were not compared */
        if (side[k]->steps & CS_ARGS_TEXT)
            result_norm_side(res, "arguments_text_parsed", flag[k]);
        if (side[k]->steps & CS_MISSING_ARGS)
            result_norm_side(res, "missing_args_as_empty", flag[k]);
        result_norm_side(res, "json_canonical_args", flag[k]);
    }
    arb_buf_reset(a);
    arb_buf_reset(b);
    st = calls_surface(ec, match_args, a);
    if (!st)
        st = calls_surface(oc, match_args, b);
    if (!st)
        st = result_compared_texts(res, ARB_COMPARED_JSON, a->ptr, a->len, b->ptr, b->len);
    return st;
}

enum traj_mode { TRAJ_EXACT, TRAJ_IN_ORDER, TRAJ_ANY_ORDER };

static enum arb_status traj_run(struct arb_check *c, const struct op_input *in,
                                struct arb_result *res, enum traj_mode mode)
{
    const struct traj_priv *tp = c->priv;
    cJSON *parsed = NULL, *owned = NULL;
    const cJSON *e = expected_json(in->expected, &owned), *doc = NULL;
    struct calls ec = {0}, oc = {0};
    int unknown_e = 0, unknown_o = 0, ok = 0;
    unsigned char *used = NULL;
    size_t i, j;
    enum arb_status st = observed_doc(in, res, &doc, &parsed);

    if (st || !doc)
        goto out;
    st = collect(e, &ec, &unknown_e);
    if (!st)
        st = collect(doc, &oc, &unknown_o);
    if (st)
        goto out;
    if (unknown_e && (st = result_note(res, "expected_call_shape_not_recognized")))
        goto out;
    if (unknown_o && (st = result_note(res, "observed_call_shape_not_recognized")))
        goto out;
    st = traj_record(c, res, &ec, &oc, tp->match_args);
    if (st)
        goto out;
    switch (mode) {
    case TRAJ_EXACT:
        ok = ec.n == oc.n;
        for (i = 0; ok && i < ec.n; i++)
            ok = call_eq(&ec.v[i], &oc.v[i], tp->match_args);
        break;
    case TRAJ_IN_ORDER:
        for (i = 0, j = 0; i < ec.n && j < oc.n; j++)
            if (call_eq(&ec.v[i], &oc.v[j], tp->match_args))
                i++;
        ok = i == ec.n;
        break;
    case TRAJ_ANY_ORDER:
        used = calloc(oc.n + 1, 1);
        if (!used) {
            st = ARB_ENOMEM;
            goto out;
        }
        ok = 1;
        for (i = 0; ok && i < ec.n; i++) {
            for (j = 0; j < oc.n; j++)
                if (!used[j] && call_eq(&ec.v[i], &oc.v[j], tp->match_args))
                    break;
            if (j == oc.n)
                ok = 0;
            else
                used[j] = 1;
        }
        break;
    }
    res->score = ok ? 1.0 : 0.0;
    if (!ok)
        st = result_notef(res, "expected %zu calls, observed %zu", ec.n, oc.n);
out:
    free(used);
    calls_release(&ec);
    calls_release(&oc);
    cJSON_Delete(parsed);
    cJSON_Delete(owned);
    return st;
}

OP_RUN(op_traj_exact_run)
{
    return traj_run(c, in, res, TRAJ_EXACT);
}

OP_RUN(op_traj_in_order_run)
{
    return traj_run(c, in, res, TRAJ_IN_ORDER);
}

OP_RUN(op_traj_any_order_run)
{
    return traj_run(c, in, res, TRAJ_ANY_ORDER);
}
