/*
 * calib_fixture.h - what the calibration study tests share
 * (test_calibrate_procedure.c, test_calibrate_named.c): reading a member of
 * a study by path, labels written to a temporary file, and the study checked
 * against schemas/calibration.schema.json.
 */
#ifndef ARBITER_TEST_CALIB_FIXTURE_H
#define ARBITER_TEST_CALIB_FIXTURE_H

#include <math.h>

#include <cjson/cJSON.h>

#define cal_assert_near(actual, expected)                                                          \
    cr_assert(fabs((double)(actual) - (double)(expected)) <= 1e-9, "%s = %.17g, expected %.17g",   \
              #actual, (double)(actual), (double)(expected))

/* The member at path ("combined/confusion/0/1": names and array indexes), asserting it exists. */
const cJSON *cal_at(const cJSON *o, const char *path);

/* The number at path, asserting it is one. */
double cal_num(const cJSON *o, const char *path);

/* 1 when o has no member at path. */
int cal_absent(const cJSON *o, const char *path);

/*
 * text written to a new temporary file; its path (static storage, one per
 * call site is enough: the next call overwrites it) is returned.  The file is
 * removed by cal_unlink.
 */
const char *cal_labels_file(const char *text);
void cal_unlink(void);

/* Assert that study satisfies schemas/calibration.schema.json (listing the violations). */
void cal_assert_schema(const cJSON *study);

#endif
