/*
 * file.h - reading whole files with a size cap, and opening the files that
 * must be regular ones.  No open blocks: a FIFO without a writer is never
 * waited for.
 */
#ifndef ARBITER_FILE_H
#define ARBITER_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "arbiter/buf.h"
#include "arbiter/status.h"

/*
 * Append the contents of path to out.  The cap is the buffer's own (see
 * arb_buf_init): a larger file is ARB_ETOOBIG.  A directory is ARB_EIO with
 * "is a directory".  A pipe (`<(cmd)`, /dev/stdin) is read to its end; a FIFO
 * that no process writes to reads as empty.  Errors name the file and the
 * system's reason.
 */
enum arb_status arb_file_read(const char *path, struct arb_buf *out, struct arb_err *err);

/* As arb_file_read, from an open stream (name is used in messages). */
enum arb_status arb_stream_read(FILE *f, const char *name, struct arb_buf *out,
                                struct arb_err *err);

/*
 * Open path (symbolic links followed) as a stream the caller closes, only if
 * it is a regular file; decided on the open file, before anything is read.
 * ARB_EIO naming what ("cases file") and path: "cannot open ...: reason",
 * "cannot read ...: is a directory", "... is not a regular file (a FIFO)".
 */
enum arb_status arb_file_open_regular(const char *path, const char *what, FILE **out,
                                      struct arb_err *err);

/* "a regular file", "a directory", "a FIFO", "a socket", "a character device"... of st_mode. */
const char *arb_file_type_name(unsigned mode);

/* 1 when path names a directory. */
int arb_is_dir(const char *path);

#endif
