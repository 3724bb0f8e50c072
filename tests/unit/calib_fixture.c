/*
 * calib_fixture.c - helpers of the calibration study tests (calib_fixture.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "arbiter/buf.h"
#include "arbiter/json.h"
#include "arbiter/schema.h"
#include "calib_fixture.h"

static char labels_path[64];

static const cJSON *lookup(const cJSON *o, const char *path)
{
    char buf[256], *save = NULL, *tok;

    snprintf(buf, sizeof(buf), "%s", path);
    for (tok = strtok_r(buf, "/", &save); tok && o; tok = strtok_r(NULL, "/", &save)) {
        if (cJSON_IsArray(o))
            o = cJSON_GetArrayItem(o, atoi(tok));
        else
            o = cJSON_GetObjectItemCaseSensitive(o, tok);
    }
    return o;
}

const cJSON *cal_at(const cJSON *o, const char *path)
{
    const cJSON *v = lookup(o, path);

    cr_assert(v, "no %s in the study", path);
    return v;
}

double cal_num(const cJSON *o, const char *path)
{
    const cJSON *v = cal_at(o, path);

    cr_assert(cJSON_IsNumber(v), "%s is not a number", path);
    return v->valuedouble;
}

int cal_absent(const cJSON *o, const char *path)
{
    return lookup(o, path) == NULL;
}

const char *cal_labels_file(const char *text)
{
    int fd;
    size_t len = strlen(text);

    snprintf(labels_path, sizeof(labels_path), "/tmp/arbiter-calib-XXXXXX");
    fd = mkstemp(labels_path);
    cr_assert(fd >= 0, "cannot make a temporary file");
    cr_assert_eq(write(fd, text, len), (ssize_t)len);
    close(fd);
    return labels_path;
}

void cal_unlink(void)
{
    if (labels_path[0])
        unlink(labels_path);
    labels_path[0] = '\0';
}

void cal_assert_schema(const cJSON *study)
{
    FILE *f = fopen("schemas/calibration.schema.json", "rb");
    char text[32768];
    size_t len;
    cJSON *doc = NULL;
    struct arb_schema *s = NULL;
    struct arb_schema_errors errs;
    struct arb_err err = {{0}};
    struct arb_buf notes;
    int ok;

    cr_assert_not_null(f, "cannot open schemas/calibration.schema.json");
    len = fread(text, 1, sizeof(text), f);
    fclose(f);
    cr_assert(len < sizeof(text), "the schema outgrew the test's buffer");
    cr_assert_eq(arb_json_parse(text, len, 0, &doc, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_schema_compile(doc, NULL, &s, &err), ARB_OK, "%s", err.msg);
    arb_schema_errors_init(&errs);
    ok = arb_schema_validate(s, study, &errs);
    arb_buf_init(&notes, 0);
    cr_assert_eq(arb_schema_errors_write(&errs, &notes), ARB_OK);
    cr_assert_eq(ok, 1, "the study does not match the schema: %.*s", (int)notes.len,
                 notes.ptr ? notes.ptr : "");
    arb_buf_release(&notes);
    arb_schema_free(s);
    cJSON_Delete(doc);
}
