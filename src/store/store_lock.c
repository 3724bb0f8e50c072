/*
 * store_lock.c - one process at a time works on a run (store.h: arb_store_lock_run).
 *
 * Two processes continuing the same run (a CI job retried while the first still runs, a
 * `batch wait` beside a `run --resume`) would each ask the judge about its undecided cases and
 * each submit its batches: twice the cost, and a provider batch nobody waits for.  SQLite's
 * locks cover a transaction, not a run, so the run's lock is a byte of a file beside the
 * database (its name and "-lock"; empty, kept), at the run's id, locked with an open file
 * description lock (F_OFD_SETLK): the kernel releases it when the process ends however it
 * ends (a kill included), closing another descriptor of the file does not release it (as it
 * would a POSIX record lock), and it is a different file from the database, whose own POSIX
 * locks SQLite keeps.  Where the system has no such lock, runs are not locked.
 */
#define _GNU_SOURCE /* F_OFD_SETLK */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store_int.h"

enum arb_status arb_store_lock_run(struct arb_store *st, int64_t run, struct arb_err *err)
{
#ifdef F_OFD_SETLK
    const char *db = sqlite3_db_filename(st->db, "main");
    struct flock fl;
    size_t n;
    char *path;

    if (st->flags & ARB_STORE_READONLY)
        return arb_err_set(err, ARB_EUSAGE, "cannot lock run %lld: '%s' is open read-only",
                           (long long)run, st->path);
    if (!db || !*db || run <= 0)
        return ARB_OK; /* a temporary database: no other process can open it */
    if (st->lock_fd < 0) {
        n = strlen(db) + sizeof("-lock");
        path = malloc(n);
        if (!path)
            return arb_err_set(err, ARB_ENOMEM, "out of memory locking run %lld", (long long)run);
        snprintf(path, n, "%s-lock", db);
        st->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (st->lock_fd < 0) {
            enum arb_status ret = arb_err_set(err, ARB_EIO, "cannot open the runs' lock file '%s': %s",
                                              path, strerror(errno));

            free(path);
            return ret;
        }
        free(path);
    }
    memset(&fl, 0, sizeof(fl)); /* l_pid 0, as an open file description lock wants */
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = (off_t)run;
    fl.l_len = 1;
    if (fcntl(st->lock_fd, F_OFD_SETLK, &fl) == 0)
        return ARB_OK;
    if (errno == EAGAIN || errno == EACCES)
        return arb_err_set(err, ARB_EDB,
                           "run %lld in '%s' is in use by another arbiter process (a run, a "
                           "resume or a batch wait of it); let that one end, or stop it, and try "
                           "again",
                           (long long)run, st->path);
    return arb_err_set(err, ARB_EIO, "cannot lock run %lld in '%s': %s", (long long)run, st->path,
                       strerror(errno));
#else
    (void)st, (void)run, (void)err;
    return ARB_OK;
#endif
}

void store_lock_close(struct arb_store *st)
{
    if (st->lock_fd >= 0)
        close(st->lock_fd); /* releases this store's runs */
    st->lock_fd = -1;
}
