/*
 * command.c - the `command` judge provider: a local program gets the request
 * JSON on its standard input and answers with the judgment JSON on its
 * standard output (the custom-grader protocol of agent-eval harnesses), in
 * any language.  The program runs with the caller's environment, in the
 * judge's directory, without a shell (argv as configured), in a process
 * group of its own.
 *
 * A program may exit without reading its request: the write then fails with
 * EPIPE.  SIGPIPE is blocked in the calling thread around the exchange and a
 * SIGPIPE it raised is consumed (sigtimedwait) before the mask is restored,
 * as git and curl do, so the process-wide disposition is never touched and
 * Arbiter is never killed by a judge.  At the timeout (or past the output
 * cap) the whole process group is killed, so whatever the program started
 * dies with it; the timeout runs until the program exits, not only until it
 * closes its output (one that answers, closes it and sleeps is killed too).  The last bytes of its standard error go into the error.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "judge_int.h"

/* How much of the program's standard error the error message quotes (its end). */
#define STDERR_TAIL 160

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One running program: its pid (and process group), the parent's ends of its pipes. */
struct child {
    pid_t pid;
    int in, out, err;
    char tail[STDERR_TAIL + 1]; /* the end of its standard error, NUL-terminated */
    size_t tail_len;
};

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Keep the last STDERR_TAIL bytes of standard error, control bytes shown as spaces. */
static void keep_tail(struct child *ch, const char *buf, size_t n)
{
    size_t i;

    if (n > STDERR_TAIL) {
        buf += n - STDERR_TAIL;
        n = STDERR_TAIL;
    }
    if (ch->tail_len + n > STDERR_TAIL) {
        size_t drop = ch->tail_len + n - STDERR_TAIL;

        memmove(ch->tail, ch->tail + drop, ch->tail_len - drop);
        ch->tail_len -= drop;
    }
    for (i = 0; i < n; i++)
        ch->tail[ch->tail_len++] = (unsigned char)buf[i] < 0x20 || buf[i] == 0x7f ? ' ' : buf[i];
    ch->tail[ch->tail_len] = '\0';
}

/* The tail, trimmed of blanks at both ends (it points into ch). */
static const char *tail_text(struct child *ch)
{
    char *t = ch->tail;
    size_t n = ch->tail_len;

    while (n && t[n - 1] == ' ')
        t[--n] = '\0';
    while (*t == ' ')
        t++;
    return t;
}

/* The child's side: its own process group, the directory, the pipes, then the program.  A
 * failure before exec reports its errno and what failed ('d' directory, 'x' exec) on report. */
static void start_child(char *const *argv, const char *cwd, int in[2], int out[2], int err[2],
                        int report, const sigset_t *mask)
{
    struct {
        char what;
        int errno_;
    } why = {'x', 0};

    setpgid(0, 0);
    signal(SIGPIPE, SIG_DFL);
    pthread_sigmask(SIG_SETMASK, mask, NULL);
    if (cwd && chdir(cwd) != 0) {
        why.what = 'd';
        why.errno_ = errno;
        (void)!write(report, &why, sizeof(why));
        _exit(127);
    }
    dup2(in[0], STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    close(in[0]);
    close(in[1]);
    close(out[0]);
    close(out[1]);
    close(err[0]);
    close(err[1]);
    execvp(argv[0], argv);
    why.errno_ = errno;
    (void)!write(report, &why, sizeof(why));
    _exit(127);
}

/* Start the program; ARB_EIO with why when it cannot be. */
static enum arb_status spawn(char *const *argv, const char *cwd, const sigset_t *mask,
                             struct child *ch, char *why, size_t whylen)
{
    int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, rep[2] = {-1, -1};
    struct {
        char what;
        int errno_;
    } failed;
    ssize_t n;
    enum arb_status st = ARB_OK;

    if (pipe(in) != 0 || pipe(out) != 0 || pipe(err) != 0 || pipe(rep) != 0) {
        snprintf(why, whylen, "cannot create pipes: %s", strerror(errno));
        st = ARB_EIO;
        goto out;
    }
    /* The report pipe closes on a successful exec: EOF means the program runs. */
    fcntl(rep[1], F_SETFD, FD_CLOEXEC);
    ch->pid = fork();
    if (ch->pid < 0) {
        snprintf(why, whylen, "cannot start '%s': %s", argv[0], strerror(errno));
        st = ARB_EIO;
        goto out;
    }
    if (ch->pid == 0) {
        close(rep[0]);
        start_child(argv, cwd, in, out, err, rep[1], mask);
    }
    /* Also here, so the group exists before anyone signals it. */
    setpgid(ch->pid, ch->pid);
    close_fd(&rep[1]);
    while ((n = read(rep[0], &failed, sizeof(failed))) < 0 && errno == EINTR)
        ;
    if (n == (ssize_t)sizeof(failed)) {
        if (failed.what == 'd')
            snprintf(why, whylen, "cannot enter the judge command's directory '%s': %s", cwd,
                     strerror(failed.errno_));
        else
            snprintf(why, whylen, "cannot run the judge command '%s': %s", argv[0],
                     strerror(failed.errno_));
        while (waitpid(ch->pid, NULL, 0) < 0 && errno == EINTR)
            ;
        ch->pid = -1;
        st = ARB_EIO;
        goto out;
    }
    ch->in = in[1];
    ch->out = out[0];
    ch->err = err[0];
    in[1] = out[0] = err[0] = -1;
    fcntl(ch->in, F_SETFL, O_NONBLOCK);
out:
    close_fd(&in[0]);
    close_fd(&in[1]);
    close_fd(&out[0]);
    close_fd(&out[1]);
    close_fd(&err[0]);
    close_fd(&err[1]);
    close_fd(&rep[0]);
    close_fd(&rep[1]);
    return st;
}

/* End the program and everything it started. */
static void kill_group(const struct child *ch)
{
    if (kill(-ch->pid, SIGKILL) != 0)
        kill(ch->pid, SIGKILL);
}

/* Read what fd has into out (the program's output) or the tail (its stderr); 0 at EOF. */
static int drain_fd(struct child *ch, int *fd, struct arb_buf *out, enum arb_status *st)
{
    char buf[65536];
    ssize_t r = read(*fd, buf, sizeof(buf));

    if (r < 0)
        return errno == EINTR || errno == EAGAIN;
    if (r == 0) {
        close_fd(fd);
        return 0;
    }
    if (!out)
        keep_tail(ch, buf, (size_t)r);
    else if (arb_buf_add(out, buf, (size_t)r) != ARB_OK)
        *st = ARB_ETOOBIG;
    return 1;
}

/*
 * Feed input, collect the output and the stderr tail, until the program closes its output;
 * *unread set when it did not take the whole input (a write met EPIPE, or none was due).
 */
static enum arb_status exchange(struct child *ch, const char *input, double deadline,
                                double timeout_s, struct arb_buf *out, int *unread, char *why,
                                size_t whylen)
{
    size_t off = 0, len = strlen(input);
    enum arb_status st = ARB_OK;

    if (len == 0)
        close_fd(&ch->in);
    while (ch->out >= 0 || ch->err >= 0) {
        struct pollfd pfd[3];
        int nfd = 0, wait_ms = (int)((deadline - now_s()) * 1000.0), i;

        if (wait_ms <= 0) {
            kill_group(ch);
            snprintf(why, whylen, "the judge command timed out after %.0f s", timeout_s);
            return ARB_EIO;
        }
        if (ch->out >= 0)
            pfd[nfd++] = (struct pollfd){.fd = ch->out, .events = POLLIN};
        if (ch->err >= 0)
            pfd[nfd++] = (struct pollfd){.fd = ch->err, .events = POLLIN};
        if (ch->in >= 0)
            pfd[nfd++] = (struct pollfd){.fd = ch->in, .events = POLLOUT};
        if (poll(pfd, (nfds_t)nfd, wait_ms) < 0 && errno != EINTR)
            break;
        for (i = 0; i < nfd; i++) {
            if (!pfd[i].revents)
                continue;
            if (pfd[i].fd == ch->in) {
                ssize_t w = write(ch->in, input + off, len - off);

                if (w > 0)
                    off += (size_t)w;
                if ((w < 0 && errno != EAGAIN && errno != EINTR) || off == len)
                    close_fd(&ch->in);
            } else if (pfd[i].fd == ch->out) {
                drain_fd(ch, &ch->out, out, &st);
            } else {
                drain_fd(ch, &ch->err, NULL, &st);
            }
            if (st == ARB_ETOOBIG) {
                kill_group(ch);
                snprintf(why, whylen, "the judge command wrote more than the limit");
                return st;
            }
        }
    }
    *unread = off < len;
    return ARB_OK;
}

/*
 * Wait for the program to exit, until the same deadline: one that closed its output and
 * lingers (or closed it early and hangs) is killed with its group at the timeout, never
 * waited for without end.  Polls waitpid (from 1 ms, doubling to 32 ms): a program exits
 * right after its output as a rule, and the wait stays short.
 */
static enum arb_status reap(struct child *ch, double deadline, double timeout_s, int *status,
                            char *why, size_t whylen)
{
    long nap_ns = 1000000L;

    for (;;) {
        pid_t r = waitpid(ch->pid, status, WNOHANG);
        double left = deadline - now_s();
        struct timespec ts;

        if (r == ch->pid || (r < 0 && errno != EINTR))
            return ARB_OK;
        if (left <= 0)
            break;
        if (left * 1e9 < (double)nap_ns)
            nap_ns = (long)(left * 1e9) + 1;
        ts.tv_sec = 0;
        ts.tv_nsec = nap_ns;
        nanosleep(&ts, NULL);
        if (nap_ns < 32000000L)
            nap_ns *= 2;
    }
    kill_group(ch);
    while (waitpid(ch->pid, status, 0) < 0 && errno == EINTR)
        ;
    snprintf(why, whylen, "the judge command timed out after %.0f s (its output was closed)",
             timeout_s);
    return ARB_EIO;
}

/* Why a program that ran ended badly, into why; ARB_OK when it exited 0. */
static enum arb_status judge_status(struct child *ch, int status, int unread, char *why,
                                    size_t whylen)
{
    const char *tail = tail_text(ch);
    char how[64];

    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return ARB_OK;
    if (WIFEXITED(status))
        snprintf(how, sizeof(how), "exit %d", WEXITSTATUS(status));
    else
        snprintf(how, sizeof(how), "signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    snprintf(why, whylen, "the judge command failed (%s)%s%s%s", how,
             unread ? " before reading its whole request" : "", tail[0] ? ": " : "", tail);
    return ARB_EIO;
}

enum arb_status judge_run_command(char *const *argv, const char *cwd, const char *input,
                                  double timeout_s, struct arb_buf *out, char *why, size_t whylen)
{
    struct child ch = {.pid = -1, .in = -1, .out = -1, .err = -1};
    sigset_t pipe_set, pending, old;
    struct timespec zero = {0, 0};
    int status = 0, unread = 0, was_pending;
    enum arb_status st;

    why[0] = '\0';
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    sigpending(&pending);
    was_pending = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    st = spawn(argv, cwd, &old, &ch, why, whylen);
    if (!st) {
        double deadline = now_s() + timeout_s;

        st = exchange(&ch, input, deadline, timeout_s, out, &unread, why, whylen);
        close_fd(&ch.in);
        close_fd(&ch.out);
        close_fd(&ch.err);
        if (st) /* killed: it ends at once */
            while (waitpid(ch.pid, &status, 0) < 0 && errno == EINTR)
                ;
        else
            st = reap(&ch, deadline, timeout_s, &status, why, whylen);
        if (!st)
            st = judge_status(&ch, status, unread, why, whylen);
    }
    /* A SIGPIPE this exchange raised is ours: consume it before unblocking, so it is not
     * delivered (and does not kill the process).  One pending before was not ours. */
    if (!was_pending)
        while (sigtimedwait(&pipe_set, NULL, &zero) == SIGPIPE)
            ;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!st)
        st = arb_buf_add(out, "", 0);
    return st;
}
