/*
 * outfile.h - the files commands write (outfile.c): `-o FILE` of `report`,
 * `export` and `compare`, and the comparison files of `export
 * --comparisons`.  Each is written whole to a temporary file beside it and
 * renamed over it only once complete, so it is never left half-written; and
 * none may be the database or an input of the command.
 */
#ifndef ARBITER_CLI_OUTFILE_H
#define ARBITER_CLI_OUTFILE_H

#include <stddef.h>
#include <stdint.h>

#include "arbiter/buf.h"
#include "arbiter/status.h"

/*
 * 0 when path may receive an output; -1 (message printed, naming cmd) when
 * it is the database db or one of its -wal, -shm, -journal files, under any
 * name (compared as files, not as strings).  path NULL: 0.
 */
int cli_outfile_check(const char *cmd, const char *path, const char *db);

/*
 * The same for one input of the command (what names it in the message:
 * "A_PATH", "--cases @FILE"): -1 (message printed) when path is that file,
 * or would be written inside it when it is a directory.  path or input NULL: 0.
 */
int cli_outfile_check_input(const char *cmd, const char *path, const char *input,
                            const char *what);

/*
 * Without printing: 1 when path is input (by device and inode, links
 * followed, or by name), 2 when input is a directory that path would be
 * written inside, else 0.
 */
int cli_outfile_clash(const char *path, const char *input);

/*
 * Without printing: the name (db, or db with -wal, -shm or -journal, built in
 * name) of the database file that path is, or NULL when it is none of them.
 */
const char *cli_outfile_database(const char *path, const char *db, struct arb_buf *name);

/*
 * Write data[0..len) to path (NULL: standard output): into a new file in
 * path's directory, flushed to disk, then renamed over path.  0 on success;
 * -1 with the message printed and no file left behind.
 */
int cli_outfile_write(const char *cmd, const char *path, const void *data, size_t len);

/*
 * An output written as it is made (a report of a million cases): to
 * standard output (path NULL) as it comes, or into the temporary file beside
 * path that replaces path when closed with commit 1 (a device or pipe is
 * written in place).  open: 0, or -1 with the message printed (naming cmd).
 * write has the shape of arb_report_sink's: 0, or -1 (the error is kept and
 * printed by close).  close: commit 0 removes the temporary file (standard
 * output keeps what it was given); returns 0 when committed, else -1 (with
 * commit 1 the message printed).
 */
struct cli_outstream {
    const char *path;
    int fd;
    int in_place;
    int err;            /* the first write's errno */
    struct arb_buf tmp; /* the temporary file's name */
};

int cli_outstream_open(const char *cmd, const char *path, struct cli_outstream *os);
int cli_outstream_write(void *ctx, const void *data, size_t len);
int cli_outstream_close(const char *cmd, struct cli_outstream *os, int commit);

/*
 * As cli_outfile_write to a path, without printing: -1 with the reason
 * appended to why.  sync 0 skips the flush to disk (many small files: each
 * is still complete or absent for any reader, only a crash of the machine can
 * lose the latest).
 */
int cli_outfile_put(const char *path, const void *data, size_t len, int sync, struct arb_buf *why);

/* The inputs a stored run read (its row: suite, cases file, expected_files, each system's
 * outputs). */
struct arb_store;
struct cli_run_inputs {
    long long run;
    char **path, **what; /* owned: each input, and "the outputs of system 'b'" */
    size_t n, cap;
};

/* Read run's inputs from st into ri (release it even on failure).  ARB_ENOMEM, ARB_EDB. */
enum arb_status cli_run_inputs_load(struct arb_store *st, int64_t run, struct cli_run_inputs *ri,
                                    struct arb_err *err);

void cli_run_inputs_release(struct cli_run_inputs *ri);

/*
 * Without printing: -1, with the reason appended to why, when path is one of
 * ri's inputs or lies inside one that is a directory; else 0.  Writing there
 * would lose an input that `run --resume` and `replay` read again.
 */
int cli_run_inputs_clash(const struct cli_run_inputs *ri, const char *path, struct arb_buf *why);

/* The same for `-o path` of a command on run, message printed (naming cmd).  path NULL: 0. */
int cli_outfile_check_run(const char *cmd, const char *path, struct arb_store *st, int64_t run);

#endif
