/*
 * store_fixture.c - what the store's unit tests share (store_fixture.h): a
 * fresh directory per test for the database file, the store opened on it,
 * and a connection of the test's own to look at the file.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <sqlite3.h>

#include "store_fixture.h"

static char fx_dir[64];
char fx_db_path[128];

void fx_setup(void)
{
    snprintf(fx_dir, sizeof(fx_dir), "%s", "/tmp/arb-store-XXXXXX");
    cr_assert_not_null(mkdtemp(fx_dir));
    snprintf(fx_db_path, sizeof(fx_db_path), "%s/arbiter.db", fx_dir);
}

void fx_teardown(void)
{
    char path[512];
    struct dirent *de;
    DIR *d = opendir(fx_dir);

    if (!d)
        return;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", fx_dir, de->d_name);
        unlink(path);
    }
    closedir(d);
    chmod(fx_dir, 0700);
    rmdir(fx_dir);
}

char *fx_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *data = NULL;
    size_t cap = 0, n = 0, got;

    cr_assert_not_null(f, "cannot open '%s' (run the tests from the repository root)", path);
    do {
        if (n == cap) {
            cap = cap ? cap * 2 : 4096;
            data = realloc(data, cap + 1);
            cr_assert_not_null(data);
        }
        got = fread(data + n, 1, cap - n, f);
        n += got;
    } while (got > 0);
    fclose(f);
    data[n] = '\0';
    *len = n;
    return data;
}

struct arb_store *fx_open_store(unsigned flags)
{
    struct arb_store *st = NULL;
    struct arb_err err = {{0}};

    cr_assert_eq(arb_store_open(fx_db_path, flags, &st, &err), ARB_OK, "%s", err.msg);
    cr_assert_not_null(st);
    return st;
}

int64_t fx_new_run(struct arb_store *st, const char *systems_json)
{
    struct arb_run_row r = {.suite_path = "s.json",
                            .suite_name = "fixture",
                            .suite_sha256 = "00",
                            .suite_json = "{}",
                            .systems_json = systems_json,
                            .seed = 1,
                            .version = "0"};
    struct arb_err err = {{0}};
    int64_t id = 0;

    cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_run_create(st, &r, &id, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_commit(st, &err), ARB_OK, "%s", err.msg);
    return id;
}

/* One integer or text from the file through a connection of the test's own. */
int64_t fx_raw_int(const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    int64_t v;

    cr_assert_eq(sqlite3_open_v2(fx_db_path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW, "%s: %s", sql, sqlite3_errmsg(db));
    v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(db);
    return v;
}

void fx_raw_exec(const char *sql)
{
    sqlite3 *db = NULL;

    cr_assert_eq(sqlite3_open_v2(fx_db_path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL),
                 SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    sqlite3_close(db);
}

int fx_integrity_ok(void)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    int ok;

    cr_assert_eq(sqlite3_open_v2(fx_db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW);
    ok = strcmp((const char *)sqlite3_column_text(s, 0), "ok") == 0;
    sqlite3_finalize(s);
    sqlite3_close(db);
    return ok;
}
