/*
 * Unit tests for the suite load's cases read ahead on a thread of their own (src/suite/ahead.c):
 * a cases file of many blocks of lines loads, and a bad one gives the error that reading it
 * line by line gives (arb_case_reader_next, which reads on the caller's thread), the first in
 * the file when there are several, whichever block they fall in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "arbiter/suite.h"
#include "../../src/suite/suite_int.h"

#define LINES 3000 /* a dozen of the thread's blocks */
#define PAD   900  /* bytes of padding a line: the file over AHEAD_MIN_BYTES, read on the thread */

struct fixture {
    char dir[64];
    char suite[96];
    char cases[96];
};

static void fixture_init(struct fixture *f)
{
    FILE *s;

    snprintf(f->dir, sizeof(f->dir), "/tmp/arbiter-ahead-XXXXXX");
    cr_assert_not_null(mkdtemp(f->dir));
    snprintf(f->suite, sizeof(f->suite), "%s/suite.json", f->dir);
    snprintf(f->cases, sizeof(f->cases), "%s/cases.jsonl", f->dir);
    s = fopen(f->suite, "w");
    cr_assert_not_null(s);
    fputs("{\"name\": \"t\", \"systems\": {\"a\": \"a.jsonl\"}, \"cases\": \"cases.jsonl\",\n"
          " \"expectations\": [{\"id\": \"e\", \"text\": \"t\", \"check\": {\"op\": \"contains\", "
          "\"expected\": \"x\"}}]}\n",
          s);
    fclose(s);
}

static void fixture_release(struct fixture *f)
{
    unlink(f->suite);
    unlink(f->cases);
    rmdir(f->dir);
}

/* Write LINES cases, line k (from 1) replaced by bad[k] where given. */
static void write_cases(const struct fixture *f, const char *const *lines_at, const size_t *at,
                        size_t n_bad)
{
    FILE *c = fopen(f->cases, "w");
    char pad[PAD];

    memset(pad, 'x', sizeof(pad));
    cr_assert_not_null(c);
    for (size_t k = 1; k <= LINES; k++) {
        const char *bad = NULL;

        for (size_t i = 0; i < n_bad; i++)
            if (at[i] == k)
                bad = lines_at[i];
        if (bad)
            fprintf(c, "%s\n", bad);
        else if (k % 7 == 0)
            fprintf(c, "\n"); /* blank lines count */
        else
            fprintf(c, "{\"id\": \"c%zu\", \"expected\": {\"n\": %zu, \"pad\": \"%.*s\"}}\n", k, k,
                    PAD, pad);
    }
    cr_assert_geq(ftell(c), AHEAD_MIN_BYTES, "the cases file is read on the caller's thread");
    fclose(c);
}

/* The error of reading the cases on this thread, one at a time (the suite loaded without them). */
static enum arb_status read_one_by_one(const struct fixture *f, struct arb_err *err)
{
    struct arb_suite *s = NULL;
    struct arb_case_reader *r = NULL;
    struct arb_case c;
    struct arb_err lerr = {""};
    FILE *tmp;
    char *saved = NULL;
    size_t n = 0;
    int got;

    /* load with a good file, then read the bad one through the suite's reader */
    tmp = fopen(f->cases, "r");
    cr_assert_not_null(tmp);
    cr_assert_eq(getdelim(&saved, &n, '\0', tmp) > 0, 1);
    fclose(tmp);
    write_cases(f, NULL, NULL, 0);
    cr_assert_eq(arb_suite_load(f->suite, &s, &lerr), ARB_OK, "%s", lerr.msg);
    tmp = fopen(f->cases, "w");
    cr_assert_not_null(tmp);
    fputs(saved, tmp);
    fclose(tmp);
    free(saved);
    cr_assert_eq(arb_case_reader_open(s, &r, &lerr), ARB_OK, "%s", lerr.msg);
    while ((got = arb_case_reader_next(r, &c, err)) == 1)
        arb_case_release(&c);
    arb_case_reader_free(r);
    arb_suite_free(s);
    return got < 0 ? (enum arb_status) - got : ARB_OK;
}

/* Load the suite with these bad lines: the same error as reading the cases one by one. */
static void expect_same_error(const char *const *bad, const size_t *at, size_t n_bad,
                              const char *contains)
{
    struct fixture f;
    struct arb_err want = {""}, got = {""};
    struct arb_suite *s = NULL;
    enum arb_status st_want, st_got;

    fixture_init(&f);
    write_cases(&f, bad, at, n_bad);
    st_got = arb_suite_load(f.suite, &s, &got);
    st_want = read_one_by_one(&f, &want);
    fixture_release(&f);
    cr_assert_null(s);
    cr_assert_neq(st_want, ARB_OK);
    cr_assert_eq(st_got, st_want, "%s / %s", got.msg, want.msg);
    cr_assert_str_eq(got.msg, want.msg);
    cr_assert_not_null(strstr(got.msg, contains), "%s", got.msg);
}

/* Read the cases of the suite's file through a reader, on a thread when it takes one: how
 * many cases, and *ahead whether it read them on the thread. */
static size_t read_all(const struct fixture *f, int *ahead)
{
    struct arb_suite *s = NULL;
    struct arb_case_reader *r = NULL;
    struct arb_case c;
    struct arb_err err = {""};
    size_t n = 0;
    int got;

    cr_assert_eq(arb_suite_load(f->suite, &s, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_case_reader_open(s, &r, &err), ARB_OK, "%s", err.msg);
    *ahead = case_reader_ahead(r);
    while ((got = arb_case_reader_next(r, &c, &err)) == 1) {
        n++;
        arb_case_release(&c);
    }
    cr_assert_eq(got, 0, "%s", err.msg);
    arb_case_reader_free(r);
    arb_suite_free(s);
    return n;
}

Test(suite_ahead, should_read_on_a_thread_only_a_file_past_the_threshold)
{
    struct fixture f;
    FILE *c;
    int ahead = -1;

    fixture_init(&f);
    write_cases(&f, NULL, NULL, 0);
    cr_assert_eq(read_all(&f, &ahead), LINES - LINES / 7);
    cr_assert_eq(ahead, 1, "a file of %d lines over AHEAD_MIN_BYTES was read without the thread",
                 LINES);
    c = fopen(f.cases, "w"); /* a small file: read on this thread */
    cr_assert_not_null(c);
    for (int k = 1; k <= 300; k++)
        fprintf(c, "{\"id\": \"c%d\", \"expected\": {\"n\": %d}}\n", k, k);
    fclose(c);
    cr_assert_eq(read_all(&f, &ahead), 300);
    cr_assert_eq(ahead, 0, "a file of 300 short lines was read on a thread");
    fixture_release(&f);
}

Test(suite_ahead, should_load_a_cases_file_of_many_blocks)
{
    struct fixture f;
    struct arb_err err = {""};
    struct arb_suite *s = NULL;

    fixture_init(&f);
    write_cases(&f, NULL, NULL, 0);
    cr_assert_eq(arb_suite_load(f.suite, &s, &err), ARB_OK, "%s", err.msg);
    arb_suite_free(s);
    fixture_release(&f);
}

Test(suite_ahead, should_report_a_parse_error_past_the_first_blocks)
{
    const char *bad[] = {"{\"id\": \"x\", }"};
    const size_t at[] = {1500};

    expect_same_error(bad, at, 1, "cases.jsonl:1500:");
}

Test(suite_ahead, should_report_a_duplicate_before_a_later_parse_error)
{
    const char *bad[] = {"{\"id\": \"c10\"}", "{\"id\": \"x\", }"};
    const size_t at[] = {900, 901};

    expect_same_error(bad, at, 2,
                      "cases.jsonl:900:8: /id: duplicate case id 'c10' (first at "
                      "line 10)");
}

Test(suite_ahead, should_report_a_parse_error_before_a_later_duplicate)
{
    const char *bad[] = {"[1, 2", "{\"id\": \"c10\"}"};
    const size_t at[] = {257, 2999};

    expect_same_error(bad, at, 2, "cases.jsonl:257:");
}

Test(suite_ahead, should_report_a_case_of_the_wrong_shape_in_the_last_line)
{
    const char *bad[] = {"{\"id\": 5}"};
    const size_t at[] = {LINES};

    expect_same_error(bad, at, 1, "/id:");
}
