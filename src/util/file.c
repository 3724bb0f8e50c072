/*
 * file.c - whole-file reads with a cap (see include/arbiter/file.h).
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "arbiter/file.h"

int arb_is_dir(const char *path)
{
    struct stat sb;

    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

enum arb_status arb_stream_read(FILE *f, const char *name, struct arb_buf *out, struct arb_err *err)
{
    char chunk[65536];
    size_t n;
    enum arb_status st;

    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
        st = arb_buf_add(out, chunk, n);
        if (st == ARB_ETOOBIG)
            return arb_err_set(err, st, "'%s' is larger than the limit of %zu bytes", name,
                               out->toobig - 1);
        if (st)
            return arb_err_set(err, st, "cannot read '%s': out of memory", name);
    }
    if (ferror(f))
        return arb_err_set(err, ARB_EIO, "cannot read '%s': %s", name, strerror(errno));
    return arb_buf_add(out, "", 0);
}

enum arb_status arb_file_read(const char *path, struct arb_buf *out, struct arb_err *err)
{
    FILE *f;
    enum arb_status st;

    if (arb_is_dir(path))
        return arb_err_set(err, ARB_EIO, "cannot read '%s': is a directory", path);
    f = fopen(path, "rb");
    if (!f)
        return arb_err_set(err, ARB_EIO, "cannot open '%s': %s", path, strerror(errno));
    st = arb_stream_read(f, path, out, err);
    fclose(f);
    return st;
}
