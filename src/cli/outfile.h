/*
 * outfile.h - `-o FILE` of `report` and `export` (outfile.c): a whole
 * output written to a temporary file beside FILE and renamed over it only
 * once complete, so FILE is never left half-written; and never the database.
 */
#ifndef ARBITER_CLI_OUTFILE_H
#define ARBITER_CLI_OUTFILE_H

#include <stddef.h>

/*
 * 0 when path may receive an output; -1 (message printed, naming cmd) when
 * it is the database db or one of its -wal, -shm, -journal files, under any
 * name (compared as files, not as strings).
 */
int cli_outfile_check(const char *cmd, const char *path, const char *db);

/*
 * Write data[0..len) to path (NULL: standard output): into a new file in
 * path's directory, flushed to disk, then renamed over path.  0 on success;
 * -1 with the message printed and no file left behind.
 */
int cli_outfile_write(const char *cmd, const char *path, const void *data, size_t len);

#endif
