/*
 * suite.c - loading a suite file (include/arbiter/suite.h): read, parse
 * (duplicate keys refused), validate against the embedded suite schema, then
 * compile every check, so that a bad pattern or an unknown operator fails
 * before any work starts.  Inline cases and a cases JSONL file are read once
 * here too (case_reader in cases.c), to find bad cases and duplicate ids up
 * front; the run reads them again as a stream.
 *
 * Ownership: s->fields and s->judge point into s->doc (freed with it); every
 * other pointer of struct arb_suite is owned by the suite.  A check's
 * check_json is the RFC 8785 text of the check as compiled, i.e. with the
 * suite's fields map injected, so a stored check replays on its own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "arbiter/file.h"
#include "arbiter/json.h"
#include "suite_int.h"

#define SUITE_FILE_CAP ((size_t)256 << 20)

static const char *const default_content[] = {"correctness", "completeness", "accuracy", NULL};
static const char *const default_structure[] = {"organization", "formatting", "usability", NULL};

char *path_join(const char *dir, const char *rel)
{
    size_t n;
    char *out;

    if (rel[0] == '/' || !dir[0] || strcmp(dir, ".") == 0)
        return strdup(rel);
    n = strlen(dir) + strlen(rel) + 2;
    out = malloc(n);
    if (out)
        snprintf(out, n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", rel);
    return out;
}

enum arb_status sha256_hex(const void *data, size_t len, char hex[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;

    if (!EVP_Digest(data, len, md, &n, EVP_sha256(), NULL) || n != 32)
        return ARB_EINTERNAL;
    arb_hex(md, n, hex);
    return ARB_OK;
}

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *d;

    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    d = malloc((size_t)(slash - path) + 1);
    if (d) {
        memcpy(d, path, (size_t)(slash - path));
        d[slash - path] = '\0';
    }
    return d;
}

/* "runs/suite.json" -> "suite": the name when the file gives none. */
static char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    size_t n;
    char *out;

    b = b ? b + 1 : path;
    n = strlen(b);
    if (n > 5 && strcmp(b + n - 5, ".json") == 0)
        n -= 5;
    out = malloc(n + 1);
    if (out) {
        memcpy(out, b, n);
        out[n] = '\0';
    }
    return out;
}

static const char *str_member(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static char *dup_or_null(const char *s, int *oom)
{
    char *d;

    if (!s)
        return NULL;
    d = strdup(s);
    if (!d)
        *oom = 1;
    return d;
}

/* The simple members: name, task, seed, systems, redact, policy, max_output_bytes, judge. */
const char *arb_decide_by_name(enum arb_decide_by d)
{
    return d == ARB_DECIDE_RUBRIC ? "rubric" : d == ARB_DECIDE_JUDGE ? "judge" : "rubric_then_judge";
}

static enum arb_status read_scalars(struct arb_suite *s, struct arb_err *err)
{
    const cJSON *doc = s->doc, *v, *m;
    const cJSON *systems = cJSON_GetObjectItemCaseSensitive(doc, "systems");
    const cJSON *redact = cJSON_GetObjectItemCaseSensitive(doc, "redact");
    const cJSON *policy = cJSON_GetObjectItemCaseSensitive(doc, "policy");
    int oom = 0;
    size_t i;

    s->name =
        str_member(doc, "name") ? dup_or_null(str_member(doc, "name"), &oom) : base_name(s->path);
    oom |= s->name == NULL;
    s->task = dup_or_null(str_member(doc, "task"), &oom);
    v = cJSON_GetObjectItemCaseSensitive(doc, "seed");
    s->seed = v ? (uint64_t)v->valuedouble : 0;
    v = cJSON_GetObjectItemCaseSensitive(doc, "max_output_bytes");
    s->max_output_bytes = ARB_OUTPUT_CAP_DEFAULT;
    /* the schema bounds it below only: a double past SIZE_MAX cannot be converted */
    if (v)
        s->max_output_bytes =
            v->valuedouble >= (double)SIZE_MAX ? SIZE_MAX : (size_t)v->valuedouble;
    s->fields = cJSON_GetObjectItemCaseSensitive(doc, "fields");
    s->judge = cJSON_GetObjectItemCaseSensitive(doc, "judge");
    v = cJSON_GetObjectItemCaseSensitive(policy, "tie_epsilon");
    s->policy.tie_epsilon = v ? v->valuedouble : 0.0;
    v = cJSON_GetObjectItemCaseSensitive(policy, "position_inconsistent");
    s->policy.inconsistent = v && strcmp(v->valuestring, "unresolved") == 0
                                 ? ARB_INCONSISTENT_UNRESOLVED
                                 : ARB_INCONSISTENT_TIE;
    v = cJSON_GetObjectItemCaseSensitive(policy, "decide_by");
    s->policy.decide_by = !v                                         ? ARB_DECIDE_RUBRIC_THEN_JUDGE
                          : strcmp(v->valuestring, "rubric") == 0    ? ARB_DECIDE_RUBRIC
                          : strcmp(v->valuestring, "judge") == 0     ? ARB_DECIDE_JUDGE
                                                                     : ARB_DECIDE_RUBRIC_THEN_JUDGE;

    s->systems = calloc((size_t)cJSON_GetArraySize(systems) + 1, sizeof(*s->systems));
    s->redact = calloc((size_t)cJSON_GetArraySize(redact) + 1, sizeof(*s->redact));
    oom |= !s->systems || !s->redact;
    if (oom)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    cJSON_ArrayForEach(m, systems)
    {
        struct arb_system *sys = &s->systems[s->n_systems++];

        sys->name = strdup(m->string);
        sys->path = path_join(s->dir, m->valuestring);
        oom |= !sys->name || !sys->path;
    }
    i = 0;
    cJSON_ArrayForEach(m, redact)
    {
        s->redact[i] = strdup(m->valuestring);
        oom |= !s->redact[i++];
    }
    s->n_redact = i;
    return oom ? arb_err_set(err, ARB_ENOMEM, "out of memory") : ARB_OK;
}

/* A criterion's description and its anchors for 1, 3 and 5, as the (valid) item gives them. */
static enum arb_status criterion_text(struct arb_criterion *c, const cJSON *item)
{
    static const char *const scores[3] = {"1", "3", "5"};
    const cJSON *anchors = cJSON_GetObjectItemCaseSensitive(item, "anchors");
    int oom = 0;
    size_t k;

    c->description = dup_or_null(str_member(item, "description"), &oom);
    for (k = 0; k < 3; k++)
        c->anchor[k] = dup_or_null(str_member(anchors, scores[k]), &oom);
    return oom ? ARB_ENOMEM : ARB_OK;
}

/* Criteria of one dimension from arr at ptr (NULL: the default names, without checks). */
static enum arb_status read_criteria(struct arb_suite *s, const struct check_env *env,
                                     const cJSON *arr, const char *ptr, enum arb_dim dim,
                                     const char *const *defaults, struct arb_err *err)
{
    const cJSON *item;
    size_t i = 0, j;
    enum arb_status st;

    for (; !arr && defaults[i]; i++) {
        struct arb_criterion *c = &s->criteria[s->n_criteria++];

        c->dim = dim;
        c->name = strdup(defaults[i]);
        if (!c->name)
            return arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    cJSON_ArrayForEach(item, arr)
    {
        struct arb_criterion *c = &s->criteria[s->n_criteria++];
        const cJSON *check = cJSON_GetObjectItemCaseSensitive(item, "check");
        char iptr[64];

        snprintf(iptr, sizeof(iptr), "%s/%zu", ptr, i++);
        c->dim = dim;
        c->graded = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(item, "graded"));
        c->name = strdup(str_member(item, "name"));
        if (!c->name || criterion_text(c, item))
            return arb_err_set(err, ARB_ENOMEM, "out of memory");
        for (j = 0; j + 1 < s->n_criteria && strcmp(s->criteria[j].name, c->name); j++)
            ;
        if (j + 1 < s->n_criteria)
            return located(err, ARB_ESCHEMA, env->src, iptr, 0, "duplicate criterion name '%s'",
                           c->name);
        if (check) {
            strncat(iptr, "/check", sizeof(iptr) - strlen(iptr) - 1);
            st = compile_check(env, check, iptr, &c->check, &c->check_json, err);
            if (st)
                return st;
        }
    }
    return ARB_OK;
}

static enum arb_status read_checks(struct arb_suite *s, const struct src *src, struct arb_err *err)
{
    const cJSON *rubric = cJSON_GetObjectItemCaseSensitive(s->doc, "rubric");
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(rubric, "content");
    const cJSON *structure = cJSON_GetObjectItemCaseSensitive(rubric, "structure");
    struct check_env env;
    char *json = NULL;
    size_t n;
    enum arb_status st;

    if (arb_schema_cache_new(NULL, &s->schemas))
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    memset(&env, 0, sizeof(env));
    env.src = src;
    env.opts.base_dir = s->dir;
    env.opts.schema_cache = s->schemas;
    env.record = s; /* the files its checks read are inputs of a run */
    if (s->fields) {
        /* The map alone, compiled once: its errors are located under /fields. */
        cJSON *cfg = cJSON_CreateObject();

        if (!cfg || !cJSON_AddStringToObject(cfg, "op", "fields") ||
            !cJSON_AddItemReferenceToObject(cfg, "fields", s->fields)) {
            cJSON_Delete(cfg);
            return arb_err_set(err, ARB_ENOMEM, "out of memory");
        }
        st = compile_check(&env, cfg, "", &s->fields_check, &json, err);
        cJSON_Delete(cfg);
        free(json);
        if (st)
            return st;
        env.fields_map = s->fields;
    }
    n = (content ? (size_t)cJSON_GetArraySize(content) : 3) +
        (structure ? (size_t)cJSON_GetArraySize(structure) : 3);
    s->criteria = calloc(n + 1, sizeof(*s->criteria));
    if (!s->criteria)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    st = read_criteria(s, &env, content, "/rubric/content", ARB_DIM_CONTENT, default_content, err);
    if (!st)
        st = read_criteria(s, &env, structure, "/rubric/structure", ARB_DIM_STRUCTURE,
                           default_structure, err);
    if (!st)
        st = compile_expectations(&env, cJSON_GetObjectItemCaseSensitive(s->doc, "expectations"),
                                  "/expectations", &s->expectations, &s->n_expectations, err);
    return st;
}

/* Read every case once (shape, checks, duplicate ids) so that errors come at load time. */
static enum arb_status read_cases(struct arb_suite *s, const struct src *src, struct arb_err *err)
{
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(s->doc, "cases");
    struct arb_case_reader *r = NULL;
    struct arb_case c;
    enum arb_status st;
    int got;

    if (cJSON_IsString(cases)) {
        struct arb_err ferr = {{0}};
        FILE *f;

        s->cases_file = path_join(s->dir, cases->valuestring);
        if (!s->cases_file)
            return arb_err_set(err, ARB_ENOMEM, "out of memory");
        /* A FIFO or a device is refused here, located, before anything waits on it. */
        st = arb_file_open_regular(s->cases_file, "cases file", &f, &ferr);
        if (st)
            return located(err, st, src, "/cases", 0, "%s", ferr.msg);
        fclose(f);
    }
    st = case_reader_open_text(s, src->text, src->len, &r, err);
    if (st)
        return st;
    case_reader_record(r, s); /* and so are the files their checks read */
    case_reader_ahead(r);     /* lines read and parsed on a second core meanwhile */
    memset(&c, 0, sizeof(c));
    while ((got = arb_case_reader_next(r, &c, err)) == 1)
        case_reader_release(r, &c);
    arb_case_reader_free(r);
    return got < 0 ? (enum arb_status)(-got) : ARB_OK;
}

/*
 * The first character of a suite, after white space and a byte order mark: a JSON suite
 * starts with '{'.  A newcomer's likeliest other file is YAML ("name: x", "---", "- a").
 */
static int looks_like_yaml(const char *t, size_t len)
{
    size_t i = 0;

    if (len >= 3 && memcmp(t, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < len && (t[i] == ' ' || t[i] == '\t' || t[i] == '\r' || t[i] == '\n'))
        i++;
    if (i == len || t[i] == '{' || t[i] == '[' || t[i] == '"')
        return 0;
    if (t[i] == '#' || (len - i >= 3 && memcmp(t + i, "---", 3) == 0) ||
        (len - i >= 2 && t[i] == '-' && t[i + 1] == ' '))
        return 1;
    while (i < len && t[i] != '\n' && t[i] != ':' && t[i] != '{' && t[i] != '"')
        i++;
    return i + 1 < len && t[i] == ':' && (t[i + 1] == ' ' || t[i + 1] == '\n');
}

/*
 * A parse error of a suite that is not JSON at all: say what a suite is, where the parser's
 * own words ("invalid literal, expected 'null'" for "name: x") would mislead.  The location
 * ("line L, column C: ") stays.
 */
static enum arb_status located_not_json(struct arb_err *err, enum arb_status st,
                                        const struct src *src, const char *parse_msg)
{
    char msg[sizeof(err->msg)];
    unsigned long line = 0, col = 0;
    int used = 0;

    if (sscanf(parse_msg, "line %lu, column %lu: %n", &line, &col, &used) < 2 || used <= 0)
        used = 0;
    snprintf(msg, sizeof(msg), "%.*sthis looks like YAML: a suite is JSON (its schema is "
             "schemas/suite.schema.json)", used, parse_msg);
    return located_parse(err, st, src, msg);
}

/* Everything after reading the text. */
static enum arb_status load_text(struct arb_suite *s, const struct src *src, struct arb_err *err)
{
    struct arb_err perr = {{0}};
    struct arb_schema *schema = NULL;
    cJSON *schema_doc = NULL;
    char *canon = NULL;
    size_t canon_len = 0;
    enum arb_status st;

    st = arb_json_parse(src->text, src->len, ARB_JSON_NO_DUPLICATES | ARB_JSON_ALLOW_BOM, &s->doc,
                        &perr);
    if (st == ARB_EPARSE && looks_like_yaml(src->text, src->len))
        return located_not_json(err, st, src, perr.msg);
    if (st)
        return st == ARB_ENOMEM ? arb_err_set(err, st, "out of memory")
                                : located_parse(err, st, src, perr.msg);
    /* Said plainly before the schema would say it as "does not satisfy 'propertyNames'". */
    if (cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s->doc, "systems"),
                                         "TIE"))
        return located(err, ARB_ESCHEMA, src, "/systems/TIE", 1,
                       "'TIE' cannot name a system: verdicts use it for a tie");
    st = suite_schema_load("", &schema_doc, &schema, err);
    if (!st)
        st = shape_check(schema, schema_doc, "", s->doc, src, "", err);
    arb_schema_free(schema);
    cJSON_Delete(schema_doc);
    if (!st)
        st = read_scalars(s, err);
    if (!st)
        st = read_checks(s, src, err);
    if (!st)
        st = read_cases(s, src, err);
    if (!st) {
        st = arb_jcs_string(s->doc, &canon, &canon_len, err);
        if (!st && sha256_hex(canon, canon_len, s->sha256))
            st = arb_err_set(err, ARB_EINTERNAL, "sha-256 failed in openssl");
        free(canon);
    }
    return st;
}

enum arb_status arb_suite_load(const char *path, struct arb_suite **out, struct arb_err *err)
{
    struct arb_suite *s;
    struct arb_buf text;
    struct arb_err ferr = {{0}};
    struct src src;
    enum arb_status st;

    *out = NULL;
    s = calloc(1, sizeof(*s));
    if (!s)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    s->path = strdup(path);
    s->dir = dir_of(path);
    s->max_output_bytes = ARB_OUTPUT_CAP_DEFAULT;
    if (!s->path || !s->dir) {
        arb_suite_free(s);
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    arb_buf_init(&text, SUITE_FILE_CAP);
    st = arb_file_read(path, &text, &ferr);
    if (st) {
        arb_buf_release(&text);
        arb_suite_free(s);
        return arb_err_set(err, st, "cannot read suite: %s", ferr.msg);
    }
    src.file = path;
    src.text = text.ptr ? text.ptr : "";
    src.len = text.len;
    src.line0 = 1;
    st = load_text(s, &src, err);
    arb_buf_release(&text);
    if (st) {
        arb_suite_free(s);
        return st;
    }
    *out = s;
    return ARB_OK;
}

enum arb_status arb_suite_parse(const char *text, size_t len, const char *name, const char *dir,
                                struct arb_suite **out, struct arb_err *err)
{
    struct arb_suite *s;
    struct src src;
    enum arb_status st;

    *out = NULL;
    s = calloc(1, sizeof(*s));
    if (!s)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    s->path = strdup(name);
    s->dir = strdup(dir);
    s->text = malloc(len + 1);
    s->text_len = len;
    s->max_output_bytes = ARB_OUTPUT_CAP_DEFAULT;
    if (!s->path || !s->dir || !s->text) {
        arb_suite_free(s);
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    if (len)
        memcpy(s->text, text, len);
    s->text[len] = '\0';
    src.file = name;
    src.text = s->text;
    src.len = len;
    src.line0 = 1;
    st = load_text(s, &src, err);
    if (st) {
        arb_suite_free(s);
        return st;
    }
    *out = s;
    return ARB_OK;
}

enum arb_status arb_suite_set_system(struct arb_suite *s, const char *name_eq_path,
                                     struct arb_err *err)
{
    const char *eq = strchr(name_eq_path, '=');
    struct arb_system *v;
    char *name, *path;
    size_t i;

    if (!eq || eq == name_eq_path || !eq[1])
        return arb_err_set(err, ARB_EUSAGE, "--system expects NAME=PATH, got '%s'", name_eq_path);
    if (eq - name_eq_path == 3 && strncmp(name_eq_path, "TIE", 3) == 0)
        return arb_err_set(err, ARB_EUSAGE,
                           "--system: 'TIE' cannot name a system: verdicts use it for a tie");
    name = strndup(name_eq_path, (size_t)(eq - name_eq_path));
    path = strdup(eq + 1);
    if (!name || !path) {
        free(name);
        free(path);
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    for (i = 0; i < s->n_systems && strcmp(s->systems[i].name, name); i++)
        ;
    if (i < s->n_systems) {
        free(name);
        free(s->systems[i].path);
        s->systems[i].path = path;
        return ARB_OK;
    }
    v = realloc(s->systems, (s->n_systems + 1) * sizeof(*v));
    if (!v) {
        free(name);
        free(path);
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    s->systems = v;
    s->systems[s->n_systems].name = name;
    s->systems[s->n_systems].path = path;
    s->n_systems++;
    return ARB_OK;
}

void arb_suite_free(struct arb_suite *s)
{
    size_t i, j;

    if (!s)
        return;
    for (i = 0; i < s->n_systems; i++) {
        free(s->systems[i].name);
        free(s->systems[i].path);
    }
    free(s->systems);
    for (i = 0; i < s->n_redact; i++)
        free(s->redact[i]);
    free(s->redact);
    for (i = 0; i < s->n_criteria; i++) {
        free(s->criteria[i].name);
        arb_check_free(s->criteria[i].check);
        free(s->criteria[i].check_json);
        free(s->criteria[i].description);
        for (j = 0; j < 3; j++)
            free(s->criteria[i].anchor[j]);
    }
    free(s->criteria);
    expectations_free(s->expectations, s->n_expectations);
    arb_check_free(s->fields_check);
    cJSON_Delete(s->doc);
    arb_schema_cache_free(s->schemas);
    free(s->cases_file);
    for (i = 0; i < s->n_files; i++) {
        free(s->files[i].name);
        free(s->files[i].path);
    }
    free(s->files);
    free(s->task);
    free(s->name);
    free(s->dir);
    free(s->path);
    free(s->text);
    free(s);
}
