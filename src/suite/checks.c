/*
 * checks.c - compiling the checks of a suite or a case, with located errors.
 *
 * arb_check_compile knows checks, not suites: its errors name a pointer
 * inside the check ("/op: unknown operator ...").  Here that pointer is put
 * behind the check's own pointer in the suite and located in the text.  Three
 * suite rules are applied around compiling: a fields check without "fields"
 * gets the suite's comparator map (also inside aggregates); an expected_file
 * that is a FIFO, socket or device is refused before anything opens it (a
 * FIFO would block the load); and a check with a problem that would fail
 * every run (an invalid regex) is refused, so a bad pattern fails at load
 * time rather than on every case.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "arbiter/file.h"
#include "arbiter/json.h"
#include "suite_int.h"

/* 1 when cfg, or a child check of it, is a fields check without a map. */
static int needs_map(const cJSON *cfg)
{
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(cfg, "op");
    const cJSON *ch;

    if (!cJSON_IsObject(cfg))
        return 0;
    if (cJSON_IsString(op) && strcmp(op->valuestring, "fields") == 0 &&
        !cJSON_GetObjectItemCaseSensitive(cfg, "fields"))
        return 1;
    cJSON_ArrayForEach(ch, cJSON_GetObjectItemCaseSensitive(cfg, "checks"))
    {
        if (needs_map(ch))
            return 1;
    }
    return 0;
}

/* Add a copy of map to every fields check of cfg (a copy the caller owns) without one. */
static enum arb_status inject_map(cJSON *cfg, const cJSON *map)
{
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(cfg, "op");
    cJSON *ch;

    if (!cJSON_IsObject(cfg))
        return ARB_OK;
    if (cJSON_IsString(op) && strcmp(op->valuestring, "fields") == 0 &&
        !cJSON_GetObjectItemCaseSensitive(cfg, "fields")) {
        cJSON *copy = cJSON_Duplicate(map, 1);

        if (!copy || !cJSON_AddItemToObject(cfg, "fields", copy)) {
            cJSON_Delete(copy);
            return ARB_ENOMEM;
        }
    }
    cJSON_ArrayForEach(ch, cJSON_GetObjectItemCaseSensitive(cfg, "checks"))
    {
        if (inject_map(ch, map))
            return ARB_ENOMEM;
    }
    return ARB_OK;
}

/*
 * Re-locate arb_check_compile's message "/rel/ptr: what" at ptr + rel.  A
 * message without a leading pointer is shown at ptr.
 */
static enum arb_status relocate(const struct check_env *env, enum arb_status st, const char *ptr,
                                const char *msg, struct arb_err *err)
{
    const char *colon = msg[0] == '/' ? strstr(msg, ": ") : NULL;
    char full[512];

    if (st == ARB_ENOMEM)
        return arb_err_set(err, st, "out of memory");
    if (!colon)
        return located(err, st, env->src, ptr, 0, "%s", msg);
    /* "/" alone is how the compiler names the check itself */
    if (colon - msg == 1)
        snprintf(full, sizeof(full), "%s", ptr);
    else
        snprintf(full, sizeof(full), "%s%.*s", ptr, (int)(colon - msg), msg);
    return located(err, st, env->src, full, 0, "%s", colon + 2);
}

/*
 * The pointer of the part of cfg (at ptr) that carries a compile-time problem:
 * descend into aggregates' child checks, then point at "expected" (the
 * pattern) when there is one.
 */
static enum arb_status problem_pointer(const struct check_env *env, const cJSON *cfg,
                                       struct arb_buf *ptr)
{
    const cJSON *ch;
    size_t i = 0;
    enum arb_status st;

    cJSON_ArrayForEach(ch, cJSON_GetObjectItemCaseSensitive(cfg, "checks"))
    {
        struct arb_check *c = NULL;
        int bad;

        if (arb_check_compile(ch, &env->opts, &c, NULL))
            return ARB_OK;
        bad = arb_check_problem(c) != NULL;
        arb_check_free(c);
        if (bad) {
            char num[24];

            snprintf(num, sizeof(num), "%zu", i);
            st = arb_json_pointer_push(ptr, "checks");
            if (!st)
                st = arb_json_pointer_push(ptr, num);
            return st ? st : problem_pointer(env, ch, ptr);
        }
        i++;
    }
    if (cJSON_GetObjectItemCaseSensitive(cfg, "expected"))
        return arb_json_pointer_push(ptr, "expected");
    return ARB_OK;
}

/* "invalid_regex_pattern: msg" reads "invalid regex pattern: msg". */
static void problem_words(const char *problem, char *out, size_t cap)
{
    const char *colon = strchr(problem, ':');
    size_t i;

    snprintf(out, cap, "%s", problem);
    for (i = 0; out[i] && (!colon || i < (size_t)(colon - problem)); i++)
        if (out[i] == '_')
            out[i] = ' ';
}

static enum arb_status refuse_problem(const struct check_env *env, const cJSON *cfg,
                                      const char *ptr, const char *problem, struct arb_err *err)
{
    struct arb_buf p;
    char words[600];
    enum arb_status st;

    arb_buf_init(&p, 0);
    st = arb_buf_adds(&p, ptr);
    if (!st)
        st = problem_pointer(env, cfg, &p);
    if (st) {
        arb_buf_release(&p);
        return arb_err_set(err, st, "out of memory");
    }
    problem_words(problem, words, sizeof(words));
    st = located(err, ARB_ESCHEMA, env->src, p.ptr ? p.ptr : "", 0, "%s", words);
    arb_buf_release(&p);
    return st;
}

/*
 * Refuse an expected_file (anywhere in cfg, at ptr) that exists and is neither
 * a regular file nor a directory: reading a FIFO would wait for a writer, a
 * device would be read as data.  Missing files and directories are left to
 * the compiler, which names them.  The values of "expected" are data and are
 * not searched.
 */
/* The expected_file name (in the check at ptr) when it names a special file: located.  At
 * load, the file is also added to the suite's files (the run's inputs). */
static enum arb_status refuse_special(const struct check_env *env, const char *name,
                                      struct arb_buf *ptr, struct arb_err *err)
{
    const char *dir = env->opts.base_dir;
    char *full = name[0] == '/' || !dir || !dir[0] ? strdup(name) : path_join(dir, name);
    struct stat sb;
    enum arb_status st = full ? ARB_OK : ARB_ENOMEM;

    if (!st && stat(full, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)) {
        st = arb_json_pointer_push(ptr, "expected_file");
        if (!st)
            st = located(err, ARB_EIO, env->src, ptr->ptr, 0,
                         "expected_file '%s' is not a regular file (%s)", full,
                         arb_file_type_name((unsigned)sb.st_mode));
    }
    if (!st && env->record)
        st = suite_add_file(env->record, name, full);
    free(full);
    return st;
}

enum arb_status suite_add_file(struct arb_suite *s, const char *name, const char *path)
{
    struct arb_suite_file *f;
    size_t i;

    for (i = 0; i < s->n_files; i++)
        if (strcmp(s->files[i].name, name) == 0)
            return ARB_OK;
    f = realloc(s->files, (s->n_files + 1) * sizeof(*f));
    if (!f)
        return ARB_ENOMEM;
    s->files = f;
    f += s->n_files;
    f->name = strdup(name);
    f->path = strdup(path);
    if (!f->name || !f->path) {
        free(f->name);
        free(f->path);
        return ARB_ENOMEM;
    }
    s->n_files++;
    return ARB_OK;
}

static enum arb_status special_expected_file(const struct check_env *env, const cJSON *cfg,
                                             struct arb_buf *ptr, struct arb_err *err)
{
    const cJSON *m;
    int index = 0, obj = cJSON_IsObject(cfg);
    enum arb_status st = ARB_OK;

    for (m = cfg->child; !st && m && (obj || cJSON_IsArray(cfg)); m = m->next, index++) {
        size_t len = ptr->len;
        char num[24];

        if (obj && strcmp(m->string, "expected") == 0)
            continue;
        if (obj && strcmp(m->string, "expected_file") == 0) {
            if (cJSON_IsString(m))
                st = refuse_special(env, m->valuestring, ptr, err);
            continue;
        }
        snprintf(num, sizeof(num), "%d", index);
        st = arb_json_pointer_push(ptr, obj ? m->string : num);
        if (!st)
            st = special_expected_file(env, m, ptr, err);
        ptr->len = len;
        if (ptr->ptr)
            ptr->ptr[len] = '\0';
    }
    return st == ARB_ENOMEM ? arb_err_set(err, st, "out of memory") : st;
}

/* special_expected_file over the check cfg at ptr. */
static enum arb_status no_special_files(const struct check_env *env, const cJSON *cfg,
                                        const char *ptr, struct arb_err *err)
{
    struct arb_buf p;
    enum arb_status st;

    arb_buf_init(&p, 0);
    st = arb_buf_adds(&p, ptr);
    if (!st)
        st = special_expected_file(env, cfg, &p, err);
    else
        st = arb_err_set(err, st, "out of memory");
    arb_buf_release(&p);
    return st;
}

enum arb_status compile_check(const struct check_env *env, const cJSON *cfg, const char *ptr,
                              struct arb_check **out, char **json, struct arb_err *err)
{
    struct arb_err cerr = {{0}};
    cJSON *owned = NULL;
    const cJSON *eff = cfg;
    enum arb_status st;

    *out = NULL;
    *json = NULL;
    if (env->fields_map && needs_map(cfg)) {
        owned = cJSON_Duplicate(cfg, 1);
        if (!owned || inject_map(owned, env->fields_map)) {
            cJSON_Delete(owned);
            return arb_err_set(err, ARB_ENOMEM, "out of memory");
        }
        eff = owned;
    }
    st = no_special_files(env, eff, ptr, err);
    if (st) {
        cJSON_Delete(owned);
        return st;
    }
    st = arb_check_compile(eff, &env->opts, out, &cerr);
    if (st) {
        cJSON_Delete(owned);
        return relocate(env, st, ptr, cerr.msg, err);
    }
    if (arb_check_problem(*out)) {
        st = refuse_problem(env, eff, ptr, arb_check_problem(*out), err);
    } else {
        st = arb_jcs_string(eff, json, NULL, &cerr);
        if (st)
            st = located(err, st, env->src, ptr, 0, "%s", cerr.msg);
    }
    cJSON_Delete(owned);
    if (st) {
        arb_check_free(*out);
        *out = NULL;
    }
    return st;
}

void expectations_free(struct arb_expectation *e, size_t n)
{
    size_t i;

    for (i = 0; e && i < n; i++) {
        free(e[i].id);
        free(e[i].text);
        arb_check_free(e[i].check);
        free(e[i].check_json);
        free(e[i].description);
    }
    free(e);
}

/* The index of an expectation named id among e[0..n), or n. */
static size_t find_id(const struct arb_expectation *e, size_t n, const char *id)
{
    size_t i;

    for (i = 0; i < n && strcmp(e[i].id, id); i++)
        ;
    return i;
}

/* Fill x from the (schema-valid) expectation object item found at ptr. */
static enum arb_status one_expectation(const struct check_env *env, const cJSON *item,
                                       const char *ptr, struct arb_expectation *x,
                                       struct arb_err *err)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(item, "id");
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(item, "text");
    const cJSON *check = cJSON_GetObjectItemCaseSensitive(item, "check");
    const cJSON *description = cJSON_GetObjectItemCaseSensitive(item, "description");
    char cptr[600];

    x->id = strdup(id->valuestring);
    x->text = strdup(text->valuestring);
    if (cJSON_IsString(description))
        x->description = strdup(description->valuestring);
    if (!x->id || !x->text || (cJSON_IsString(description) && !x->description))
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    if (!check)
        return ARB_OK;
    snprintf(cptr, sizeof(cptr), "%s/check", ptr);
    return compile_check(env, check, cptr, &x->check, &x->check_json, err);
}

enum arb_status compile_expectations(const struct check_env *env, const cJSON *arr, const char *ptr,
                                     struct arb_expectation **out, size_t *n, struct arb_err *err)
{
    struct arb_expectation *v;
    const cJSON *item;
    size_t count = (size_t)cJSON_GetArraySize(arr), i = 0;
    enum arb_status st = ARB_OK;

    *out = NULL;
    *n = 0;
    if (!arr || count == 0)
        return ARB_OK;
    v = calloc(count, sizeof(*v));
    if (!v)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    cJSON_ArrayForEach(item, arr)
    {
        char iptr[512];
        const char *id;

        snprintf(iptr, sizeof(iptr), "%s/%zu", ptr, i);
        st = one_expectation(env, item, iptr, &v[i], err);
        if (st)
            break;
        id = v[i].id;
        strncat(iptr, "/id", sizeof(iptr) - strlen(iptr) - 1);
        if (find_id(v, i, id) < i) {
            st = located(err, ARB_ESCHEMA, env->src, iptr, 0,
                         "duplicate expectation id '%s' (first at %s/%zu)", id, ptr,
                         find_id(v, i, id));
            break;
        }
        if (find_id(env->suite_exps, env->n_suite_exps, id) < env->n_suite_exps) {
            st = located(err, ARB_ESCHEMA, env->src, iptr, 0,
                         "duplicate expectation id '%s' (the suite has one; case expectations "
                         "add to the suite's)",
                         id);
            break;
        }
        i++;
    }
    if (st) {
        expectations_free(v, count);
        return st;
    }
    *out = v;
    *n = count;
    return ARB_OK;
}
