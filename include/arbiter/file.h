/*
 * file.h - reading whole files with a size cap.
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
 * "is a directory".  Errors name the file and the system's reason.
 */
enum arb_status arb_file_read(const char *path, struct arb_buf *out, struct arb_err *err);

/* As arb_file_read, from an open stream (name is used in messages). */
enum arb_status arb_stream_read(FILE *f, const char *name, struct arb_buf *out,
                                struct arb_err *err);

/* 1 when path names a directory. */
int arb_is_dir(const char *path);

#endif
