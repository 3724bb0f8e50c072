/*
 * run_suite.c - runs the official JSON-Schema-Test-Suite against the schema
 * module: every required test (the .json files of tests/draft7 and
 * tests/draft2020-12, not optional/) with http://localhost:1234/...
 * served from the suite's remotes/ folder through the loader hook.
 *
 * Each instance is validated twice, fast (no error collection) and
 * collecting violations; the two must agree, and an invalid result must name
 * at least one violation.  Prints every failure and skip, then per draft
 * "draft7: passed N, failed N, skipped N".  Exits 1 when draft 7 has any
 * failure or 2020-12 passes fewer than 98% of its required tests.
 *
 * A suite without tests/draft2020-12 (Debian bookworm's json-schema-test-suite
 * 2.0.0 holds drafts 3 to 7) runs draft 7 alone and says so; draft 7 is required.
 *
 * Usage: schema-suite SUITE_DIR   (the folder holding tests/ and remotes/)
 */
#include <dirent.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/json.h"
#include "arbiter/schema.h"

#define REMOTE_PREFIX "http://localhost:1234/"

struct counts {
    size_t passed, failed, skipped;
};

/* Tests not run, with the reason (group or test NULL: all of them). */
struct skip {
    const char *draft, *file, *group, *test, *reason;
};

static const struct skip skips[] = {
    {NULL, NULL, NULL, NULL, NULL},
};

static const char *skip_reason(const char *draft, const char *file, const char *group,
                               const char *test)
{
    size_t i;

    for (i = 0; skips[i].draft; i++) {
        const struct skip *s = &skips[i];

        if (!strcmp(s->draft, draft) && !strcmp(s->file, file) &&
            (!s->group || !strcmp(s->group, group)) && (!s->test || !strcmp(s->test, test)))
            return s->reason;
    }
    return NULL;
}

/* Read a whole file into a malloc'd buffer; NULL when it cannot. */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long size = -1;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0)
        size = ftell(f);
    if (size >= 0 && fseek(f, 0, SEEK_SET) == 0)
        buf = malloc((size_t)size + 1);
    if (buf && fread(buf, 1, (size_t)size, f) != (size_t)size) {
        free(buf);
        buf = NULL;
    }
    if (buf) {
        buf[size] = '\0';
        *len = (size_t)size;
    }
    fclose(f);
    return buf;
}

static enum arb_status parse_file(const char *path, cJSON **out, struct arb_err *err)
{
    size_t len = 0;
    char *text = read_file(path, &len);
    enum arb_status st;

    if (!text)
        return arb_err_set(err, ARB_EIO, "cannot read '%s'", path);
    /* the const/enum "nul characters in strings" cases hold "\u0000": read as the comparators
     * read it (json.h), whole */
    st = arb_json_parse(text, len, ARB_JSON_ALLOW_NUL, out, err);
    free(text);
    return st;
}

/* The loader hook: http://localhost:1234/X is remotes/X of the suite. */
static enum arb_status load_remote(void *ctx, const char *uri, cJSON **out, struct arb_err *err)
{
    const char *suite = ctx;
    char path[4096];

    if (strncmp(uri, REMOTE_PREFIX, strlen(REMOTE_PREFIX)) != 0)
        return arb_err_set(err, ARB_EIO, "only %s is served", REMOTE_PREFIX);
    snprintf(path, sizeof(path), "%s/remotes/%s", suite, uri + strlen(REMOTE_PREFIX));
    return parse_file(path, out, err);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.json files directly in dir, sorted; NULL-terminated, caller frees. */
static char **list_json(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, cap = 0;

    if (!d)
        return NULL;
    for (e = readdir(d); e; e = readdir(d)) {
        size_t len = strlen(e->d_name);

        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        if (n + 2 > cap) {
            char **v;

            cap = cap ? cap * 2 : 64;
            v = realloc(names, cap * sizeof(*v));
            if (!v)
                break;
            names = v;
        }
        names[n] = strdup(e->d_name);
        if (names[n])
            n++;
    }
    closedir(d);
    if (!names)
        return calloc(1, sizeof(char *));
    names[n] = NULL;
    qsort(names, n, sizeof(*names), cmp_str);
    return names;
}

static void print_fail(const char *draft, const char *file, const char *group, const char *test,
                       const char *why)
{
    printf("FAIL %s/%s: %s / %s: %s\n", draft, file, group, test, why);
}

/* One test: 1 passed, 0 failed (printed). */
static int run_test(const struct arb_schema *s, const cJSON *t, const char *draft, const char *file,
                    const char *group)
{
    const cJSON *desc = cJSON_GetObjectItemCaseSensitive(t, "description");
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(t, "data");
    const cJSON *valid = cJSON_GetObjectItemCaseSensitive(t, "valid");
    const char *name = cJSON_IsString(desc) ? desc->valuestring : "?";
    struct arb_schema_errors errs;
    char why[sizeof(errs.err.msg) + 100];
    int fast, full;

    if (!data || !cJSON_IsBool(valid)) {
        print_fail(draft, file, group, name, "malformed test");
        return 0;
    }
    fast = arb_schema_validate(s, data, NULL);
    full = arb_schema_validate(s, data, &errs);
    if (fast < 0 || full < 0) {
        snprintf(why, sizeof(why), "validation error: %s", errs.err.msg);
    } else if (fast != full) {
        snprintf(why, sizeof(why), "fast (%d) and collecting (%d) validation disagree", fast, full);
    } else if (!full && errs.total == 0) {
        snprintf(why, sizeof(why), "invalid but no violation named");
    } else if (full != cJSON_IsTrue(valid)) {
        snprintf(why, sizeof(why), "expected %s, got %s%s%s",
                 cJSON_IsTrue(valid) ? "valid" : "invalid", full ? "valid" : "invalid",
                 full ? "" : ": ", full ? "" : errs.items[0].keyword);
    } else {
        return 1;
    }
    print_fail(draft, file, group, name, why);
    return 0;
}

static void run_group(const cJSON *g, const char *draft, const char *file, const char *suite,
                      struct counts *k)
{
    const cJSON *desc = cJSON_GetObjectItemCaseSensitive(g, "description");
    const cJSON *tests = cJSON_GetObjectItemCaseSensitive(g, "tests");
    const char *group = cJSON_IsString(desc) ? desc->valuestring : "?";
    struct arb_schema_opts opts = {0};
    struct arb_schema *s = NULL;
    struct arb_err err = {{0}};
    enum arb_status st;
    const cJSON *t;

    opts.default_draft =
        strcmp(draft, "draft7") == 0 ? ARB_SCHEMA_DRAFT_7 : ARB_SCHEMA_DRAFT_2020_12;
    opts.load = load_remote;
    opts.load_ctx = (void *)suite;
    st = arb_schema_compile(cJSON_GetObjectItemCaseSensitive(g, "schema"), &opts, &s, &err);
    for (t = tests ? tests->child : NULL; t; t = t->next) {
        const cJSON *td = cJSON_GetObjectItemCaseSensitive(t, "description");
        const char *name = cJSON_IsString(td) ? td->valuestring : "?";
        const char *reason = skip_reason(draft, file, group, name);

        if (reason) {
            printf("SKIP %s/%s: %s / %s: %s\n", draft, file, group, name, reason);
            k->skipped++;
        } else if (st != ARB_OK) {
            char why[sizeof(err.msg) + 40];

            snprintf(why, sizeof(why), "schema did not compile: %s", err.msg);
            print_fail(draft, file, group, name, why);
            k->failed++;
        } else if (run_test(s, t, draft, file, group)) {
            k->passed++;
        } else {
            k->failed++;
        }
    }
    arb_schema_free(s);
}

static int run_draft(const char *suite, const char *draft, struct counts *k)
{
    char dir[4096], path[4200];
    char **files;
    size_t i;

    snprintf(dir, sizeof(dir), "%s/tests/%s", suite, draft);
    files = list_json(dir);
    if (!files || !files[0]) {
        fprintf(stderr, "schema-suite: no test files in '%s'\n", dir);
        free(files);
        return -1;
    }
    for (i = 0; files[i]; i++) {
        struct arb_err err = {{0}};
        cJSON *doc = NULL;
        const cJSON *g;

        snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
        if (parse_file(path, &doc, &err) != ARB_OK) {
            fprintf(stderr, "schema-suite: %s\n", err.msg);
            k->failed++;
        } else {
            for (g = doc->child; g; g = g->next)
                run_group(g, draft, files[i], suite, k);
        }
        cJSON_Delete(doc);
        free(files[i]);
    }
    free(files);
    return 0;
}

/* 1 when SUITE_DIR/tests/DRAFT is a directory. */
static int has_draft(const char *suite, const char *draft)
{
    char dir[4096];
    struct stat st;

    snprintf(dir, sizeof(dir), "%s/tests/%s", suite, draft);
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

int main(int argc, char **argv)
{
    struct counts d7 = {0, 0, 0}, d2020 = {0, 0, 0};
    size_t required2020;
    int bad = 0, with2020;

    if (argc != 2) {
        fprintf(stderr, "usage: schema-suite SUITE_DIR\n");
        return 2;
    }
    with2020 = has_draft(argv[1], "draft2020-12");
    if (run_draft(argv[1], "draft7", &d7) != 0 ||
        (with2020 && run_draft(argv[1], "draft2020-12", &d2020) != 0))
        return 2;
    printf("draft7: passed %zu, failed %zu, skipped %zu\n", d7.passed, d7.failed, d7.skipped);
    if (with2020)
        printf("draft2020-12: passed %zu, failed %zu, skipped %zu\n", d2020.passed, d2020.failed,
               d2020.skipped);
    else
        printf("draft2020-12: not in '%s' (an older suite); not run\n", argv[1]);
    required2020 = d2020.passed + d2020.failed + d2020.skipped;
    if (d7.failed) {
        printf("goal missed: draft 7 must pass every required test\n");
        bad = 1;
    }
    if (with2020 && d2020.passed * 100 < required2020 * 98) {
        printf("goal missed: 2020-12 must pass at least 98%% of its required tests\n");
        bad = 1;
    }
    printf("total: %zu passed, %zu failed, %zu skipped\n", d7.passed + d2020.passed,
           d7.failed + d2020.failed, d7.skipped + d2020.skipped);
    return bad;
}
