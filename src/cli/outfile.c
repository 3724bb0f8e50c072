/*
 * outfile.c - `-o FILE` written whole or not at all (outfile.h).
 *
 * The temporary file is FILE.PID.N.tmp in FILE's own directory, so the
 * rename that replaces FILE stays on one file system and is atomic; it is
 * created with mode 0666 less the umask, as FILE itself would be.  A FILE
 * that exists and is no regular file (/dev/stdout, a pipe) is written in
 * place.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arbiter/buf.h"
#include "cli.h"
#include "outfile.h"

#define TMP_ATTEMPTS 100

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;

    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

int cli_outfile_check(const char *cmd, const char *path, const char *db)
{
    static const char *const companions[] = {"", "-wal", "-shm", "-journal"};
    struct arb_buf name;
    int clash = 0;

    if (!path)
        return 0;
    arb_buf_init(&name, 0);
    for (size_t i = 0; !clash && i < sizeof(companions) / sizeof(companions[0]); i++) {
        arb_buf_reset(&name);
        if (arb_buf_printf(&name, "%s%s", db, companions[i])) {
            cli_error(cmd, "out of memory");
            arb_buf_release(&name);
            return -1;
        }
        clash = strcmp(path, name.ptr) == 0 || same_file(path, name.ptr);
    }
    if (clash)
        cli_error(cmd, "-o '%s' is the database '%s' (--db): refusing to write over it", path,
                  name.ptr);
    arb_buf_release(&name);
    return clash ? -1 : 0;
}

static int write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, p, len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Create path.PID.N.tmp; its name goes into tmp.  -1 with errno set when none could be. */
static int create_tmp(const char *path, struct arb_buf *tmp)
{
    for (int i = 0; i < TMP_ATTEMPTS; i++) {
        int fd;

        arb_buf_reset(tmp);
        if (arb_buf_printf(tmp, "%s.%ld.%d.tmp", path, (long)getpid(), i)) {
            errno = ENOMEM;
            return -1;
        }
        fd = open(tmp->ptr, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

/* A device or pipe (-o /dev/stdout) is written in place: it cannot be renamed over. */
static int write_special(const char *cmd, const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY);
    int bad = fd < 0 || write_all(fd, data, len);

    bad = (fd >= 0 && close(fd)) || bad;
    if (bad)
        cli_error(cmd, "cannot write '%s': %s", path, strerror(errno));
    return bad ? -1 : 0;
}

int cli_outfile_write(const char *cmd, const char *path, const void *data, size_t len)
{
    struct arb_buf tmp;
    struct stat sb;
    int fd, bad;

    if (!path) {
        if (fwrite(data, 1, len, stdout) != len || fflush(stdout)) {
            cli_error(cmd, "cannot write to standard output: %s", strerror(errno));
            return -1;
        }
        return 0;
    }
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        return write_special(cmd, path, data, len);
    arb_buf_init(&tmp, 0);
    fd = create_tmp(path, &tmp);
    if (fd < 0) {
        cli_error(cmd, "cannot write '%s': cannot create a temporary file beside it: %s", path,
                  strerror(errno));
        arb_buf_release(&tmp);
        return -1;
    }
    bad = write_all(fd, data, len) || fsync(fd);
    bad = close(fd) || bad;
    bad = bad || rename(tmp.ptr, path);
    if (bad) {
        cli_error(cmd, "cannot write '%s': %s", path, strerror(errno));
        unlink(tmp.ptr);
    }
    arb_buf_release(&tmp);
    return bad ? -1 : 0;
}
