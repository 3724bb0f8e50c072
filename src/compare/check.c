/*
 * check.c - compiling a check and running it: the keys every operator shares
 * (op, expected, expected_file, threshold, fail_below, not, file, extract),
 * the verdict rule, and the result record's lifecycle.  The operators
 * themselves live in ops_*.c and are found through registry.c; how they read
 * expected and observed values (text, JSON) is expected_forms.c, and what the checks
 * of one output share (its parse, arb_check_run_on) is observed.c.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/file.h"
#include "arbiter/json.h"
#include "arbiter/unicode.h"
#include "check_impl.h"

/* Keys any check may carry, whatever its operator. */
static const char *const common_keys[] = {
    "op", "expected", "expected_file", "threshold", "fail_below", "not", "file", "extract", NULL};

#define DEFAULT_FILE_CAP ((size_t)64 << 20)

const char *arb_verdict_name(enum arb_verdict v)
{
    switch (v) {
    case ARB_PASS:
        return "pass";
    case ARB_FAIL:
        return "fail";
    case ARB_UNRESOLVED:
        return "unresolved";
    }
    return "unresolved";
}

void arb_result_init(struct arb_result *r)
{
    memset(r, 0, sizeof(*r));
    r->verdict = ARB_FAIL;
}

void arb_result_release(struct arb_result *r)
{
    size_t i;

    for (i = 0; i < r->n_notes; i++)
        free(r->notes[i]);
    free(r->notes);
    free(r->observed_owned);
    free(r->compared_owned);
    cJSON_Delete(r->details);
    for (i = 0; i < r->cap_children; i++)
        arb_result_release(&r->children[i]);
    free(r->children);
    arb_result_init(r);
}

enum arb_status result_note(struct arb_result *r, const char *note)
{
    char *copy;

    if (r->n_notes == r->cap_notes) {
        size_t cap = r->cap_notes ? r->cap_notes * 2 : 4;
        char **v = realloc(r->notes, cap * sizeof(*v));

        if (!v)
            return ARB_ENOMEM;
        r->notes = v;
        r->cap_notes = cap;
    }
    copy = strdup(note);
    if (!copy)
        return ARB_ENOMEM;
    r->notes[r->n_notes++] = copy;
    return ARB_OK;
}

enum arb_status result_notef(struct arb_result *r, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return result_note(r, msg);
}

void result_norm_side(struct arb_result *r, const char *step, unsigned side)
{
    size_t i;

    for (i = 0; i < r->n_norm; i++) {
        /* steps are the operators' string literals: the same step is mostly the same pointer */
        if (r->norm[i] == step || (r->norm[i][0] == step[0] && strcmp(r->norm[i], step) == 0)) {
            r->norm_side[i] |= (unsigned char)side;
            return;
        }
    }
    if (r->n_norm < sizeof(r->norm) / sizeof(r->norm[0])) {
        r->norm_side[r->n_norm] = (unsigned char)side;
        r->norm[r->n_norm++] = step;
    }
}

void result_norm(struct arb_result *r, const char *step)
{
    result_norm_side(r, step, ARB_SIDE_EXPECTED | ARB_SIDE_OBSERVED);
}

void result_compared_numbers(struct arb_result *r, double e, double o)
{
    r->compared_kind = ARB_COMPARED_NUMBER;
    r->compared_num[0] = e;
    r->compared_num[1] = o;
}

enum arb_status result_compared_texts(struct arb_result *r, enum arb_compared_kind kind,
                                      const char *e, size_t ne, const char *o, size_t no)
{
    /* One block for both sides, kept by arb_check_run from one run to the next. */
    char *p = r->compared_owned;

    if (ne + no + 2 > r->compared_cap) {
        p = realloc(r->compared_owned, ne + no + 2);
        if (!p)
            return ARB_ENOMEM;
        r->compared_owned = p;
        r->compared_cap = ne + no + 2;
    }
    if (ne)
        memcpy(p, e, ne);
    p[ne] = '\0';
    if (no)
        memcpy(p + ne + 1, o, no);
    p[ne + 1 + no] = '\0';
    r->compared_kind = kind;
    r->compared_text[0] = p;
    r->compared_len[0] = ne;
    r->compared_text[1] = p + ne + 1;
    r->compared_len[1] = no;
    return ARB_OK;
}

enum arb_verdict verdict_of(double score, double threshold, double fail_below, int has_fail_below)
{
    if (score >= threshold)
        return ARB_PASS;
    if (!has_fail_below || score < fail_below)
        return ARB_FAIL;
    return ARB_UNRESOLVED;
}

/* ---- parameters ---------------------------------------------------------------------- */

enum arb_status param_number(const cJSON *cfg, const char *key, const char *path, double *out,
                             int *present, struct arb_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cfg, key);

    if (present)
        *present = v != NULL && !cJSON_IsNull(v);
    if (!v || cJSON_IsNull(v))
        return ARB_OK;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return arb_err_set(err, ARB_ESCHEMA, "%s/%s: expected a number", path, key);
    *out = v->valuedouble;
    return ARB_OK;
}

enum arb_status param_bool(const cJSON *cfg, const char *key, const char *path, int *out,
                           struct arb_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cfg, key);

    if (!v)
        return ARB_OK;
    if (!cJSON_IsBool(v))
        return arb_err_set(err, ARB_ESCHEMA, "%s/%s: expected true or false", path, key);
    *out = cJSON_IsTrue(v);
    return ARB_OK;
}

enum arb_status param_string(const cJSON *cfg, const char *key, const char *path, const char **out,
                             struct arb_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cfg, key);

    if (!v)
        return ARB_OK;
    if (!cJSON_IsString(v))
        return arb_err_set(err, ARB_ESCHEMA, "%s/%s: expected a string", path, key);
    *out = v->valuestring;
    return ARB_OK;
}

/* ---- compile ------------------------------------------------------------------------- */

static int in_list(const char *const *list, const char *key)
{
    for (; list && *list; list++)
        if (strcmp(*list, key) == 0)
            return 1;
    return 0;
}

static void list_keys(const char *const *list, struct arb_buf *out)
{
    for (; list && *list; list++) {
        if (out->len)
            arb_buf_adds(out, ", ");
        arb_buf_adds(out, *list);
    }
}

static enum arb_status read_file_json(const char *base_dir, const char *name, size_t cap,
                                      const char *path, cJSON **out, struct arb_err *err)
{
    char full[4096];
    struct arb_buf b;
    struct arb_err ferr = {{0}};
    enum arb_status st;

    if (name[0] == '/' || !base_dir || !base_dir[0])
        snprintf(full, sizeof(full), "%s", name);
    else
        snprintf(full, sizeof(full), "%s/%s", base_dir, name);
    arb_buf_init(&b, cap + 1);
    st = arb_file_read(full, &b, &ferr);
    if (st == ARB_OK) {
        st = arb_json_parse(b.ptr, b.len, ARB_JSON_ALLOW_BOM, out, &ferr);
        if (st == ARB_ENOMEM)
            ferr.msg[0] = '\0';
    }
    if (st && ferr.msg[0])
        arb_err_set(err, st, "%s/expected_file: %s: %s", path, full, ferr.msg);
    arb_buf_release(&b);
    return st;
}

static enum arb_status compile_extract(struct arb_check *c, const cJSON *x, const char *path,
                                       struct arb_err *err)
{
    const char *pattern = NULL, *flags = "";
    char msg[200];

    if (cJSON_IsString(x)) {
        if (x->valuestring[0] == '/' || x->valuestring[0] == '\0') {
            c->extract = EXTRACT_POINTER;
            c->extract_pointer = strdup(x->valuestring);
            return c->extract_pointer ? ARB_OK : ARB_ENOMEM;
        }
        pattern = x->valuestring;
    } else if (cJSON_IsObject(x)) {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(x, "pointer");
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(x, "regex");
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(x, "flags");
        const cJSON *k;

        cJSON_ArrayForEach(k, x)
        {
            if (strcmp(k->string, "pointer") && strcmp(k->string, "regex") &&
                strcmp(k->string, "flags"))
                return arb_err_set(err, ARB_ESCHEMA,
                                   "%s/extract/%s: unknown key (valid: pointer, regex, flags)",
                                   path, k->string);
        }
        if ((p != NULL) == (r != NULL))
            return arb_err_set(err, ARB_ESCHEMA,
                               "%s/extract: expected exactly one of 'pointer' or 'regex'", path);
        if (p) {
            if (!cJSON_IsString(p) || (p->valuestring[0] && p->valuestring[0] != '/'))
                return arb_err_set(err, ARB_ESCHEMA,
                                   "%s/extract/pointer: expected a JSON pointer ('' or '/...')",
                                   path);
            c->extract = EXTRACT_POINTER;
            c->extract_pointer = strdup(p->valuestring);
            return c->extract_pointer ? ARB_OK : ARB_ENOMEM;
        }
        if (!cJSON_IsString(r))
            return arb_err_set(err, ARB_ESCHEMA, "%s/extract/regex: expected a string", path);
        if (f && !cJSON_IsString(f))
            return arb_err_set(err, ARB_ESCHEMA, "%s/extract/flags: expected a string", path);
        pattern = r->valuestring;
        flags = f ? f->valuestring : "";
    } else {
        return arb_err_set(err, ARB_ESCHEMA,
                           "%s/extract: expected a JSON pointer, a regex or an object", path);
    }
    c->extract = EXTRACT_REGEX;
    if (regex_compile(pattern, strlen(pattern), flags, 0, (struct regex_prog **)&c->extract_re, msg,
                      sizeof(msg)))
        return arb_err_set(err, ARB_ESCHEMA, "%s/extract: invalid regex: %s", path, msg);
    if (regex_groups(c->extract_re) < 1)
        return arb_err_set(err, ARB_ESCHEMA,
                           "%s/extract: the regex needs one capture group for the value", path);
    return ARB_OK;
}

static enum arb_status compile_common(struct arb_check *c, const cJSON *cfg,
                                      const struct arb_check_opts *opts, const char *path,
                                      struct arb_err *err)
{
    const cJSON *k, *e, *ef, *x;
    enum arb_status st;
    const char *file = NULL;
    struct arb_buf names;

    cJSON_ArrayForEach(k, cfg)
    {
        if (in_list(common_keys, k->string) || in_list(c->op->params, k->string))
            continue;
        if (strcmp(k->string, "expected") == 0)
            continue;
        arb_buf_init(&names, 4096);
        list_keys(c->op->params, &names);
        st = arb_err_set(err, ARB_ESCHEMA,
                         "%s/%s: unknown parameter '%s' for operator '%s' (valid: %s%scommon: "
                         "expected, expected_file, threshold, fail_below, not, file, extract)",
                         path, k->string, k->string, c->op->name, names.ptr ? names.ptr : "",
                         names.len ? "; " : "");
        arb_buf_release(&names);
        return st;
    }
    e = cJSON_GetObjectItemCaseSensitive(cfg, "expected");
    ef = cJSON_GetObjectItemCaseSensitive(cfg, "expected_file");
    if ((c->op->flags & OP_NO_EXPECTED) && (e || ef))
        return arb_err_set(err, ARB_ESCHEMA, "%s/%s: operator '%s' takes no expected value", path,
                           e ? "expected" : "expected_file", c->op->name);
    if (e && ef)
        return arb_err_set(err, ARB_ESCHEMA,
                           "%s: give either 'expected' or 'expected_file', not both", path);
    if (e) {
        c->expected = cJSON_Duplicate(e, 1);
        if (!c->expected)
            return ARB_ENOMEM;
    } else if (ef) {
        if (!cJSON_IsString(ef))
            return arb_err_set(err, ARB_ESCHEMA, "%s/expected_file: expected a file name", path);
        st = read_file_json(opts ? opts->base_dir : NULL, ef->valuestring,
                            opts && opts->max_file_size ? opts->max_file_size : DEFAULT_FILE_CAP,
                            path, &c->expected, err);
        if (st)
            return st;
    }
    if (c->expected && (c->op->flags & OP_LIST_EXPECTED)) {
        char at[512];

        snprintf(at, sizeof(at), "%s/%s", path, e ? "expected" : "expected_file");
        st = expected_list_check(c->expected, at, err);
        if (st)
            return st;
    }

    c->threshold = c->op->default_threshold;
    st = param_number(cfg, "threshold", path, &c->threshold, NULL, err);
    if (!st)
        st = param_number(cfg, "fail_below", path, &c->fail_below, &c->has_fail_below, err);
    if (!st)
        st = param_bool(cfg, "not", path, &c->negate, err);
    if (!st)
        st = param_string(cfg, "file", path, &file, err);
    if (st)
        return st;
    if (!(c->threshold > 0.0 && c->threshold <= 1.0))
        return arb_err_set(err, ARB_ESCHEMA, "%s/threshold: expected a number in (0, 1], got %g",
                           path, c->threshold);
    if (c->has_fail_below && !(c->fail_below >= 0.0 && c->fail_below <= c->threshold))
        return arb_err_set(err, ARB_ESCHEMA,
                           "%s/fail_below: expected a number in [0, threshold], got %g", path,
                           c->fail_below);
    if (file) {
        if (!file[0] || strstr(file, "..") || file[0] == '/')
            return arb_err_set(err, ARB_ESCHEMA,
                               "%s/file: expected a relative file name inside the output "
                               "directory, got '%s'",
                               path, file);
        c->file = strdup(file);
        if (!c->file)
            return ARB_ENOMEM;
    }
    x = cJSON_GetObjectItemCaseSensitive(cfg, "extract");
    if (x)
        return compile_extract(c, x, path, err);
    return ARB_OK;
}

enum arb_status check_compile_at(const cJSON *cfg, const struct arb_check_opts *opts,
                                 const char *path, struct arb_check **out, struct arb_err *err)
{
    const cJSON *op;
    struct arb_check *c;
    enum arb_status st;
    size_t i;

    *out = NULL;
    if (!cJSON_IsObject(cfg))
        return arb_err_set(err, ARB_ESCHEMA, "%s: expected a check object with an 'op'",
                           path[0] ? path : "/");
    op = cJSON_GetObjectItemCaseSensitive(cfg, "op");
    if (!op)
        return arb_err_set(err, ARB_ESCHEMA,
                           "%s: missing 'op' (a comparison needs a named operator)",
                           path[0] ? path : "/");
    if (!cJSON_IsString(op))
        return arb_err_set(err, ARB_ESCHEMA, "%s/op: expected an operator name", path);
    c = calloc(1, sizeof(*c));
    if (!c)
        return ARB_ENOMEM;
    for (i = 0; i < 3; i++)
        arb_buf_init(&c->scratch[i], 0);
    arb_buf_init(&c->own[0], 0);
    arb_buf_init(&c->own[1], 0);
    c->schema_cache = opts ? opts->schema_cache : NULL;
    c->opts = opts;
    c->op = op_lookup(op->valuestring);
    if (!c->op) {
        struct arb_buf hint;

        arb_buf_init(&hint, 4096);
        op_suggest(op->valuestring, &hint);
        st = arb_err_set(err, ARB_ESCHEMA, "%s/op: unknown operator '%.60s'%s", path,
                         op->valuestring, hint.ptr ? hint.ptr : "");
        arb_buf_release(&hint);
        arb_check_free(c);
        return st;
    }
    st = compile_common(c, cfg, opts, path, err);
    if (!st && c->op->compile)
        st = c->op->compile(c, cfg, path, err);
    c->opts = NULL;
    if (st) {
        arb_check_free(c);
        return st;
    }
    *out = c;
    return ARB_OK;
}

enum arb_status arb_check_compile(const cJSON *config, const struct arb_check_opts *opts,
                                  struct arb_check **out, struct arb_err *err)
{
    return check_compile_at(config, opts, "", out, err);
}

void arb_check_free(struct arb_check *c)
{
    size_t i;

    if (!c)
        return;
    if (c->priv && c->op && c->op->free_priv)
        c->op->free_priv(c->priv);
    for (i = 0; i < c->n_children; i++)
        arb_check_free(c->children[i]);
    free(c->children);
    free(c->weights);
    cJSON_Delete(c->expected);
    free(c->file);
    free(c->extract_pointer);
    regex_free(c->extract_re);
    free(c->problem);
    for (i = 0; i < 3; i++)
        arb_buf_release(&c->scratch[i]);
    arb_buf_release(&c->own[0]);
    arb_buf_release(&c->own[1]);
    free(c);
}

const char *arb_check_op(const struct arb_check *c)
{
    return c->op->name;
}

int arb_check_has_expected(const struct arb_check *c)
{
    return c->expected != NULL || !(c->op->flags & OP_NEEDS_EXPECTED);
}

const cJSON *arb_check_expected(const struct arb_check *c)
{
    return c->expected;
}

const char *arb_check_file(const struct arb_check *c)
{
    return c->file;
}

const char *arb_check_problem(const struct arb_check *c)
{
    size_t i;

    if (c->problem)
        return c->problem;
    for (i = 0; i < c->n_children; i++) {
        const char *p = arb_check_problem(c->children[i]);

        if (p)
            return p;
    }
    return NULL;
}

enum arb_status arb_check_problem_path(const struct arb_check *c, struct arb_buf *path)
{
    char step[40];
    size_t i;
    enum arb_status st;

    if (c->problem)
        return arb_buf_adds(path, "/expected");
    for (i = 0; i < c->n_children; i++) {
        if (!arb_check_problem(c->children[i]))
            continue;
        snprintf(step, sizeof(step), "/checks/%zu", i);
        st = arb_buf_adds(path, step);
        return st ? st : arb_check_problem_path(c->children[i], path);
    }
    return ARB_OK;
}

enum arb_status arb_check_takes_expected(const struct arb_check *c, const cJSON *case_expected,
                                         const char **op, struct arb_err *err)
{
    size_t i;
    enum arb_status st;

    for (i = 0; i < c->n_children; i++) {
        st = arb_check_takes_expected(c->children[i], case_expected, op, err);
        if (st)
            return st;
    }
    if (!case_expected || c->expected)
        return ARB_OK;
    st = ARB_OK;
    if (c->op->flags & OP_LIST_EXPECTED)
        st = expected_list_check(case_expected, "", err);
    else if ((c->op->flags & OP_NUMBER_EXPECTED) && !numeric_expected_ok(case_expected))
        st = numeric_expected_error(case_expected, "", err);
    if (st)
        *op = c->op->name;
    return st;
}

/* ---- run ----------------------------------------------------------------------------- */

/* Apply extract; on failure the record is a failing one with a note. */
static enum arb_status run_extract(struct arb_check *c, struct op_input *in, struct arb_result *res,
                                   int *failed)
{
    char msg[200];

    *failed = 0;
    if (c->extract == EXTRACT_POINTER) {
        cJSON *doc = NULL;
        const cJSON *node, *tree;
        enum arb_status st = observed_doc(in, res, &tree, &doc);

        if (st)
            return st;
        node = tree ? arb_json_pointer(tree, c->extract_pointer) : NULL;
        if (!node) {
            if (tree)
                st = result_notef(res, "extract_failed: no value at pointer '%s'",
                                  c->extract_pointer);
            else
                st = result_note(res, "extract_failed");
            cJSON_Delete(doc);
            *failed = 1;
            return st;
        }
        if (cJSON_IsString(node)) {
            res->observed_owned = arb_json_text(node->valuestring, &res->observed_len);
            st = res->observed_owned ? ARB_OK : ARB_ENOMEM;
        } else {
            /* a number, boolean, null, object or array is compared as its RFC 8785 text */
            result_norm_side(res, "extracted_as_json_text", ARB_SIDE_OBSERVED);
            st = arb_jcs_string(node, &res->observed_owned, &res->observed_len, NULL);
        }
        cJSON_Delete(doc);
        if (st)
            return st;
    } else {
        size_t gs = 0, gl = 0;
        int m = regex_exec(c->extract_re, in->text, in->len, 0, 1, &gs, &gl, msg, sizeof(msg));

        if (m <= 0) {
            *failed = 1;
            res->limited = m == -2;
            if (m == -2)
                return result_notef(res, "%s (in extract)", msg);
            if (m < 0)
                return result_notef(res, "extract_failed: %s", msg);
            return result_note(res, "extract_failed: the regex did not match");
        }
        res->observed_owned = malloc(gl + 1);
        if (!res->observed_owned)
            return ARB_ENOMEM;
        memcpy(res->observed_owned, in->text + gs, gl);
        res->observed_owned[gl] = '\0';
        res->observed_len = gl;
    }
    res->observed = res->observed_owned;
    in->text = res->observed;
    in->len = res->observed_len;
    in->shared = NULL; /* the text is the extracted value now, not the output */
    return ARB_OK;
}

enum arb_status arb_check_run(struct arb_check *c, const char *observed, size_t len,
                              const cJSON *case_expected, struct arb_result *res,
                              struct arb_err *err)
{
    return check_run_shared(c, observed, len, NULL, case_expected, res, err);
}

enum arb_status check_run_shared(struct arb_check *c, const char *observed, size_t len,
                                 struct arb_observed *shared, const cJSON *case_expected,
                                 struct arb_result *res, struct arb_err *err)
{
    struct op_input in;
    enum arb_status st;
    int failed = 0;
    char *keep = res->compared_owned;
    size_t keep_cap = res->compared_cap, kids_cap = res->cap_children;
    struct arb_result *kids = res->children;

    /*
     * The compared surfaces' storage and the children's results are reused (most runs need
     * about as much as the last); a child's own run empties it the same way.
     */
    res->compared_owned = NULL;
    res->children = NULL;
    res->cap_children = 0;
    arb_result_release(res);
    res->compared_owned = keep;
    res->compared_cap = keep_cap;
    res->children = kids;
    res->cap_children = kids_cap;
    res->op = c->op->name;
    res->threshold = c->threshold;
    res->fail_below = c->fail_below;
    res->has_fail_below = c->has_fail_below;
    res->negated = c->negate;
    res->expected = c->expected                       ? c->expected
                    : (c->op->flags & OP_NO_EXPECTED) ? NULL
                                                      : case_expected;
    res->observed = observed;
    res->observed_len = len;

    in.text = observed;
    in.len = len;
    in.expected = res->expected;
    in.err = err;
    in.shared = shared;
    if ((c->op->flags & OP_NEEDS_EXPECTED) && !in.expected)
        return arb_err_set(err, ARB_ESCHEMA,
                           "operator '%s' needs an expected value: give 'expected' in the check "
                           "or in the case",
                           c->op->name);
    if (c->extract) {
        st = run_extract(c, &in, res, &failed);
        if (st)
            return st;
        if (failed) {
            res->observed = NULL;
            res->observed_len = 0;
            res->score = 0.0;
            res->verdict = res->limited ? ARB_UNRESOLVED : ARB_FAIL;
            return ARB_OK;
        }
    }
    in.utf8_ok = in.shared ? observed_utf8(in.shared) : arb_utf8_valid(in.text, in.len, NULL);
    if (!in.utf8_ok) {
        st = result_note(res, "invalid_utf8");
        if (st)
            return st;
    }
    res->score = 0.0;
    st = c->op->run(c, &in, res);
    if (st)
        return st;
    if (!(c->op->flags & OP_SETS_VERDICT))
        res->verdict = verdict_of(res->score, c->threshold, c->fail_below, c->has_fail_below);
    if (res->limited)
        res->verdict = ARB_UNRESOLVED;
    if (c->negate) {
        res->score = 1.0 - res->score;
        if (res->verdict == ARB_PASS)
            res->verdict = ARB_FAIL;
        else if (res->verdict == ARB_FAIL)
            res->verdict = ARB_PASS;
    }
    return ARB_OK;
}

enum arb_status arb_check_fail(const struct arb_check *c, const cJSON *case_expected,
                               const char *note, struct arb_result *res)
{
    arb_result_release(res);
    res->op = c->op->name;
    res->threshold = c->threshold;
    res->fail_below = c->fail_below;
    res->has_fail_below = c->has_fail_below;
    res->negated = c->negate;
    res->expected = c->expected ? c->expected : case_expected;
    res->observed = NULL;
    res->score = 0.0;
    res->verdict = ARB_FAIL;
    return result_note(res, note);
}
