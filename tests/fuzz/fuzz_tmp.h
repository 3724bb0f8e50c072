/*
 * fuzz_tmp.h - scratch files for the fuzz targets whose parser takes a path.
 *
 * Each input gets its own directory from mkdtemp under /tmp, so relative
 * paths in the input (a suite's "cases", "expected_file") resolve inside an
 * empty folder, and nothing outlives the input: the caller removes what it
 * wrote with fuzz_tmp_remove.  Shared by fuzz_suite.c and fuzz_outputs.c only.
 */
#ifndef ARBITER_FUZZ_TMP_H
#define ARBITER_FUZZ_TMP_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fuzz_tmp {
    char dir[64];
    char path[4][128]; /* files written, removed in fuzz_tmp_remove */
    size_t n;
};

/* Make the scratch directory.  Returns 0 on success. */
static inline int fuzz_tmp_init(struct fuzz_tmp *t)
{
    memset(t, 0, sizeof(*t));
    snprintf(t->dir, sizeof(t->dir), "/tmp/arbiter-fuzz-XXXXXX");
    return mkdtemp(t->dir) ? 0 : -1;
}

/* Write data[0..len) to the file name inside the directory; its path into *path. */
static inline int fuzz_tmp_write(struct fuzz_tmp *t, const char *name, const void *data,
                                 size_t len, const char **path)
{
    FILE *f;
    char *p;
    int ok;

    if (t->n == sizeof(t->path) / sizeof(t->path[0]))
        return -1;
    p = t->path[t->n];
    snprintf(p, sizeof(t->path[0]), "%s/%s", t->dir, name);
    f = fopen(p, "wb");
    if (!f)
        return -1;
    t->n++;
    ok = fwrite(data, 1, len, f) == len;
    ok = fclose(f) == 0 && ok;
    *path = p;
    return ok ? 0 : -1;
}

/* Remove the files written and the directory. */
static inline void fuzz_tmp_remove(struct fuzz_tmp *t)
{
    while (t->n)
        unlink(t->path[--t->n]);
    rmdir(t->dir);
}

#endif
