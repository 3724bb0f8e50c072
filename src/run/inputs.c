/*
 * inputs.c - the identity of a run's input files (runs.inputs_json): made
 * when the run is created, compared by --resume before anything is written.
 *
 * The record, RFC 8785 text:
 *   {"cases": ID, "expected_files": {"NAME": ID, ...}, "systems": {"NAME": ID, ...}}
 * with ID = {"path", "kind": "file"|"directory", "size", "sha256"} and, for a
 * directory, "entries" (arb_input_identify).  "cases" is there only when the
 * suite's cases are a file of their own; inline cases are part of the suite,
 * which --resume checks by its own SHA-256.  "expected_files" holds every
 * expected_file the checks of the suite and of its cases read (a JSON Schema,
 * an expected value), under its name as the suite or case wrote it; a record
 * without the member (made before it was kept) leaves them unchecked.  Paths
 * are kept for the reader's sake and not compared: a run resumed from another
 * directory has the same inputs at other paths.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/json.h"
#include "arbiter/store.h"
#include "run_int.h"

/* One input's identity as a JSON object; NULL on ENOMEM. */
static cJSON *id_json(const char *path, const struct arb_input_id *id)
{
    cJSON *o = cJSON_CreateObject();
    int ok = o && cJSON_AddStringToObject(o, "path", path) &&
             cJSON_AddStringToObject(o, "kind", id->is_dir ? "directory" : "file") &&
             cJSON_AddNumberToObject(o, "size", (double)id->size) &&
             cJSON_AddStringToObject(o, "sha256", id->sha256);

    if (ok && id->is_dir)
        ok = cJSON_AddNumberToObject(o, "entries", (double)id->entries) != NULL;
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* Identify path (shown as path) and add it to parent under key. */
static enum arb_status add_input(cJSON *parent, const char *key, const char *path,
                                 const char *what, struct arb_err *err)
{
    struct arb_input_id id;
    char *abs = realpath(path, NULL);
    cJSON *o;
    enum arb_status st = arb_input_identify(path, what, &id, err);

    if (!st) {
        o = id_json(abs ? abs : path, &id);
        if (!o || !cJSON_AddItemToObject(parent, key, o)) {
            cJSON_Delete(o);
            st = arb_err_set(err, ARB_ENOMEM, "out of memory");
        }
    }
    free(abs);
    return st;
}

enum arb_status run_inputs_json(const struct arb_suite *s, char **out, struct arb_err *err)
{
    cJSON *doc = cJSON_CreateObject(), *systems = doc ? cJSON_AddObjectToObject(doc, "systems")
                                                      : NULL;
    cJSON *files = NULL;
    size_t i;
    enum arb_status st = systems ? ARB_OK : arb_err_set(err, ARB_ENOMEM, "out of memory");

    *out = NULL;
    if (!st && s->cases_file)
        st = add_input(doc, "cases", s->cases_file, "cases file", err);
    if (!st && !(files = cJSON_AddObjectToObject(doc, "expected_files")))
        st = arb_err_set(err, ARB_ENOMEM, "out of memory");
    for (i = 0; !st && i < s->n_files; i++)
        st = add_input(files, s->files[i].name, s->files[i].path, "expected_file", err);
    for (i = 0; !st && i < s->n_systems; i++) {
        st = add_input(systems, s->systems[i].name, s->systems[i].path, "outputs", err);
        if (st && st != ARB_ENOMEM)
            st = arb_err_prefix(err, st, "system '%s'", s->systems[i].name);
    }
    if (!st)
        st = arb_jcs_string(doc, out, NULL, err);
    cJSON_Delete(doc);
    return st;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/*
 * What differs between the recorded identity was and the input now, in
 * words, into what (empty when nothing does).
 */
static void describe_change(const cJSON *was, const struct arb_input_id *now, char *what,
                            size_t cap)
{
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(was, "kind");
    const cJSON *sha = cJSON_GetObjectItemCaseSensitive(was, "sha256");
    int was_dir = cJSON_IsString(kind) && strcmp(kind->valuestring, "directory") == 0;
    double size = num(was, "size"), entries = was_dir ? num(was, "entries") : 0;

    what[0] = '\0';
    if (was_dir != now->is_dir)
        snprintf(what, cap, "was a %s, is now a %s", was_dir ? "directory" : "file",
                 now->is_dir ? "directory" : "file");
    else if (now->is_dir && (entries != (double)now->entries || size != (double)now->size))
        snprintf(what, cap, "%.0f entries and %.0f bytes then, %llu entries and %llu bytes now",
                 entries, size, (unsigned long long)now->entries, (unsigned long long)now->size);
    else if (size != (double)now->size)
        snprintf(what, cap, "%.0f bytes then, %llu now", size, (unsigned long long)now->size);
    else if (!cJSON_IsString(sha) || strcmp(sha->valuestring, now->sha256) != 0)
        snprintf(what, cap, "same %s, different content (SHA-256)",
                 now->is_dir ? "entries and size" : "size");
}

/* Compare one recorded input with the same input now; ARB_EUSAGE naming it. */
static enum arb_status check_input(const cJSON *was, const char *label, const char *path,
                                   const char *what, int64_t run, struct arb_err *err)
{
    struct arb_input_id now;
    char change[160];
    enum arb_status st;

    if (!cJSON_IsObject(was))
        return arb_err_set(err, ARB_EUSAGE,
                           "resume: %s ('%s') is not among the inputs recorded with run %lld; "
                           "start a new run",
                           label, path, (long long)run);
    st = arb_input_identify(path, what, &now, err);
    if (st)
        return arb_err_prefix(err, st, "resume: %s", label);
    describe_change(was, &now, change, sizeof(change));
    if (change[0])
        return arb_err_set(err, ARB_EUSAGE,
                           "resume: %s ('%s') changed since run %lld started: %s; start a new run",
                           label, path, (long long)run, change);
    return ARB_OK;
}

struct stored_inputs {
    char *json;
    int oom;
};

static int on_run(void *ctx, const struct arb_run_row *r)
{
    struct stored_inputs *si = ctx;

    si->json = r->inputs_json ? strdup(r->inputs_json) : NULL;
    si->oom = r->inputs_json && !si->json;
    return 1;
}

enum arb_status run_inputs_check(struct arb_store *st, int64_t run, const struct arb_suite *s,
                                 struct arb_err *err)
{
    struct stored_inputs si = {NULL, 0};
    cJSON *doc = NULL;
    const cJSON *systems, *files;
    char label[600];
    size_t i;
    enum arb_status rc = arb_store_runs(st, run, on_run, &si, err);

    if (!rc && si.oom)
        rc = arb_err_set(err, ARB_ENOMEM, "out of memory");
    if (rc || !si.json) {
        free(si.json); /* NULL: a run from before inputs were recorded is resumed unchecked */
        return rc;
    }
    rc = arb_json_parse(si.json, strlen(si.json), 0, &doc, err);
    free(si.json);
    if (rc)
        return arb_err_prefix(err, rc, "the inputs_json of run %lld", (long long)run);
    if (s->cases_file)
        rc = check_input(cJSON_GetObjectItemCaseSensitive(doc, "cases"), "the cases file",
                         s->cases_file, "cases file", run, err);
    files = cJSON_GetObjectItemCaseSensitive(doc, "expected_files");
    for (i = 0; !rc && files && i < s->n_files; i++) {
        snprintf(label, sizeof(label), "expected_file '%s'", s->files[i].name);
        rc = check_input(cJSON_GetObjectItemCaseSensitive(files, s->files[i].name), label,
                         s->files[i].path, "expected_file", run, err);
    }
    systems = cJSON_GetObjectItemCaseSensitive(doc, "systems");
    for (i = 0; !rc && i < s->n_systems; i++) {
        snprintf(label, sizeof(label), "the outputs of system '%s'", s->systems[i].name);
        rc = check_input(cJSON_GetObjectItemCaseSensitive(systems, s->systems[i].name), label,
                         s->systems[i].path, "outputs", run, err);
    }
    cJSON_Delete(doc);
    return rc;
}
