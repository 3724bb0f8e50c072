/*
 * file.c - whole-file reads with a cap, and opening a file that must be a
 * regular one (see include/arbiter/file.h).
 *
 * Every open is non-blocking (O_NONBLOCK, cleared once the file is open):
 * opening a FIFO that no process writes to would otherwise wait forever.
 * arb_file_read still reads a pipe given on the command line (`<(cmd)`,
 * /dev/stdin) to its end; a FIFO without a writer reads as empty.
 * arb_file_open_regular refuses anything but a regular file, before reading
 * a byte: it is for paths that come from data (a suite's cases file, its
 * expected_file, a system's outputs), where a FIFO or a device is a mistake.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arbiter/file.h"

int arb_is_dir(const char *path)
{
    struct stat sb;

    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

const char *arb_file_type_name(unsigned mode)
{
    if (S_ISREG(mode))
        return "a regular file";
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISLNK(mode))
        return "a symbolic link";
    return "a special file";
}

/*
 * Open path for reading without blocking, as a stream with O_NONBLOCK cleared;
 * *mode receives its type.  NULL with errno set on failure.
 */
static FILE *open_stream(const char *path, unsigned *mode)
{
    struct stat sb;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), flags;
    FILE *f;

    if (fd < 0)
        return NULL;
    flags = fcntl(fd, F_GETFL);
    f = fstat(fd, &sb) == 0 && flags >= 0 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0
            ? fdopen(fd, "rb")
            : NULL;
    if (!f) {
        int saved = errno;

        close(fd);
        errno = saved;
        return NULL;
    }
    *mode = (unsigned)sb.st_mode;
    return f;
}

enum arb_status arb_file_open_regular(const char *path, const char *what, FILE **out,
                                      struct arb_err *err)
{
    struct stat sb;
    unsigned mode = 0;
    FILE *f = NULL;

    *out = NULL;
    /* Not even opened when it is known to be special: opening a device can act on it. */
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode))
        mode = (unsigned)sb.st_mode;
    else
        f = open_stream(path, &mode);
    if (!f && mode)
        return arb_err_set(err, ARB_EIO, "%s '%s' is not a regular file (%s)", what, path,
                           arb_file_type_name(mode));
    if (!f)
        return arb_err_set(err, ARB_EIO, "cannot open %s '%s': %s", what, path, strerror(errno));
    if (S_ISDIR(mode)) {
        fclose(f);
        return arb_err_set(err, ARB_EIO, "cannot read %s '%s': is a directory", what, path);
    }
    if (!S_ISREG(mode)) {
        fclose(f);
        return arb_err_set(err, ARB_EIO, "%s '%s' is not a regular file (%s)", what, path,
                           arb_file_type_name(mode));
    }
    *out = f;
    return ARB_OK;
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
    unsigned mode = 0;
    FILE *f = open_stream(path, &mode);
    enum arb_status st;

    if (!f && errno == EISDIR)
        return arb_err_set(err, ARB_EIO, "cannot read '%s': is a directory", path);
    if (!f)
        return arb_err_set(err, ARB_EIO, "cannot open '%s': %s", path, strerror(errno));
    if (S_ISDIR(mode)) {
        fclose(f);
        return arb_err_set(err, ARB_EIO, "cannot read '%s': is a directory", path);
    }
    st = arb_stream_read(f, path, out, err);
    fclose(f);
    return st;
}
