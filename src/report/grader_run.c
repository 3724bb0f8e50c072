/*
 * grader_run.c - run a comparison grader (seeds/comparison-graders.md, "Grader
 * Interface"): a local program, started without a shell (argv as given, PATH
 * searched), in a process group of its own, gets one JSON document on its
 * standard input and answers on its standard output.  Its standard error is
 * inherited, so what it says there reaches the user as it says it.
 *
 * Input and output move together (one poll loop over both pipes, the input
 * written non-blocking), so a grader that answers before it has read a large
 * input, or reads it all first, never deadlocks against us.  At the timeout
 * or past the output cap the whole process group is killed; the timeout runs
 * until the program exits.  The program's exit ends the exchange even when a
 * child it left behind still holds its output open: what the pipe holds then
 * is read without waiting, the rest of the group is killed, and the answer is
 * what the program wrote (a background `sleep &` no longer runs into the
 * timeout).  SIGPIPE (a grader that exits without reading) is
 * blocked in this thread around the exchange and the one it raised consumed
 * before the mask is restored, as src/judge/command.c does for the command
 * judge, whose stderr handling (captured into the error) differs from this.
 * Parsing the answer is custom.c's.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "strategy_int.h"

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

struct proc {
    pid_t pid;
    int in, out;
};

/* The child: its own group, the pipes on 0 and 1, then the program; errno on report if not. */
static void child(char *const *argv, int in[2], int out[2], int report, const sigset_t *mask)
{
    int e;

    setpgid(0, 0);
    signal(SIGPIPE, SIG_DFL);
    pthread_sigmask(SIG_SETMASK, mask, NULL);
    dup2(in[0], STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    close(in[0]);
    close(in[1]);
    close(out[0]);
    close(out[1]);
    execvp(argv[0], argv);
    e = errno;
    (void)!write(report, &e, sizeof(e));
    _exit(127);
}

static enum arb_status start(char *const *argv, const sigset_t *mask, struct proc *p,
                             struct arb_err *err)
{
    int in[2] = {-1, -1}, out[2] = {-1, -1}, rep[2] = {-1, -1}, e = 0;
    enum arb_status st = ARB_OK;
    ssize_t n;

    if (pipe(in) != 0 || pipe(out) != 0 || pipe(rep) != 0) {
        st = arb_err_set(err, ARB_EREMOTE, "cannot create pipes: %s", strerror(errno));
        goto out;
    }
    /* The report pipe closes on a successful exec: EOF means the program runs. */
    fcntl(rep[1], F_SETFD, FD_CLOEXEC);
    p->pid = fork();
    if (p->pid < 0) {
        st = arb_err_set(err, ARB_EREMOTE, "cannot start it: %s", strerror(errno));
        goto out;
    }
    if (p->pid == 0) {
        close(rep[0]);
        child(argv, in, out, rep[1], mask);
    }
    setpgid(p->pid, p->pid);
    close_fd(&rep[1]);
    while ((n = read(rep[0], &e, sizeof(e))) < 0 && errno == EINTR)
        ;
    if (n == (ssize_t)sizeof(e)) {
        while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
            ;
        p->pid = -1;
        st = arb_err_set(err, ARB_EREMOTE, "cannot run it: %s", strerror(e));
        goto out;
    }
    p->in = in[1];
    p->out = out[0];
    in[1] = out[0] = -1;
    fcntl(p->in, F_SETFL, O_NONBLOCK);
out:
    close_fd(&in[0]);
    close_fd(&in[1]);
    close_fd(&out[0]);
    close_fd(&out[1]);
    close_fd(&rep[0]);
    close_fd(&rep[1]);
    return st;
}

static void kill_group(const struct proc *p)
{
    if (kill(-p->pid, SIGKILL) != 0)
        kill(p->pid, SIGKILL);
}

/* How often the exchange looks whether the program has exited (its output may stay open). */
#define EXIT_CHECK_MS 20

/* Read one chunk of the output into out: 1 to go on, 0 at EOF or nothing more to read now. */
static int read_some(struct proc *p, struct arb_buf *out, enum arb_status *st)
{
    char buf[65536];
    ssize_t r = read(p->out, buf, sizeof(buf));

    if (r < 0 && errno == EINTR)
        return 1;
    if (r <= 0)
        return 0;
    *st = arb_buf_add(out, buf, (size_t)r);
    return *st == ARB_OK;
}

/* Past the cap or out of memory: the caller kills what still runs. */
static enum arb_status output_failed(enum arb_status st, const struct arb_buf *out,
                                     struct arb_err *err)
{
    return arb_err_set(
        err, st, st == ARB_ETOOBIG ? "wrote more than %zu bytes (killed)" : "out of memory (%zu)",
        out->toobig);
}

/*
 * Write the input and read the output until the program closes its output or exits (*exited
 * set, its status in *status): then what the pipe already holds is read without waiting.
 */
static enum arb_status exchange(struct proc *p, const char *input, size_t len, double deadline,
                                double timeout_s, struct arb_buf *out, int *status, int *exited,
                                struct arb_err *err)
{
    size_t off = 0;
    enum arb_status st = ARB_OK;

    if (len == 0)
        close_fd(&p->in);
    while (p->out >= 0) {
        struct pollfd pfd[2];
        int nfd = 0, wait_ms = (int)((deadline - now_s()) * 1000.0), i;

        if (wait_ms <= 0) {
            kill_group(p);
            return arb_err_set(err, ARB_EREMOTE, "timed out after %g s (killed)", timeout_s);
        }
        if (waitpid(p->pid, status, WNOHANG) == p->pid) {
            /* Exited; a child it left may hold the output open for good: take what is there. */
            *exited = 1;
            fcntl(p->out, F_SETFL, O_NONBLOCK);
            while (read_some(p, out, &st))
                ;
            return st ? output_failed(st, out, err) : ARB_OK;
        }
        pfd[nfd++] = (struct pollfd){.fd = p->out, .events = POLLIN};
        if (p->in >= 0)
            pfd[nfd++] = (struct pollfd){.fd = p->in, .events = POLLOUT};
        if (poll(pfd, (nfds_t)nfd, wait_ms < EXIT_CHECK_MS ? wait_ms : EXIT_CHECK_MS) < 0 &&
            errno != EINTR) {
            int e = errno;

            kill_group(p); /* the caller waits for it as for one it killed */
            return arb_err_set(err, ARB_EREMOTE, "poll: %s", strerror(e));
        }
        for (i = 0; i < nfd; i++) {
            if (!pfd[i].revents)
                continue;
            if (pfd[i].fd == p->in) {
                ssize_t w = write(p->in, input + off, len - off);

                if (w > 0)
                    off += (size_t)w;
                /* EPIPE: it stopped reading; its exit status says whether that was wrong */
                if ((w < 0 && errno != EAGAIN && errno != EINTR) || off == len)
                    close_fd(&p->in);
            } else if (!read_some(p, out, &st)) {
                if (st) {
                    kill_group(p);
                    return output_failed(st, out, err);
                }
                close_fd(&p->out); /* EOF (or a read error) */
                break;
            }
        }
    }
    return ARB_OK;
}

/* Wait for the exit until the deadline; one that lingers after closing its output is killed. */
static enum arb_status reap(struct proc *p, double deadline, double timeout_s, int *status,
                            struct arb_err *err)
{
    for (;;) {
        pid_t r = waitpid(p->pid, status, WNOHANG);
        struct timespec ts = {0, 5000000L};

        if (r == p->pid || (r < 0 && errno != EINTR))
            return ARB_OK;
        if (deadline - now_s() <= 0)
            break;
        nanosleep(&ts, NULL);
    }
    kill_group(p);
    while (waitpid(p->pid, status, 0) < 0 && errno == EINTR)
        ;
    return arb_err_set(err, ARB_EREMOTE, "timed out after %g s (killed)", timeout_s);
}

enum arb_status grader_exec(char *const *argv, const char *input, size_t len, double timeout_s,
                            struct arb_buf *out, struct arb_err *err)
{
    struct proc p = {-1, -1, -1};
    sigset_t pipe_set, pending, old;
    struct timespec zero = {0, 0};
    int status = 0, was_pending, exited = 0;
    enum arb_status st;

    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    sigpending(&pending);
    was_pending = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    st = start(argv, &old, &p, err);
    if (!st) {
        double deadline = now_s() + timeout_s;

        st = exchange(&p, input, len, deadline, timeout_s, out, &status, &exited, err);
        close_fd(&p.in);
        close_fd(&p.out);
        if (exited) /* reaped: only what it left behind in its group is killed */
            kill(-p.pid, SIGKILL);
        else if (st) /* killed: it ends at once */
            while (waitpid(p.pid, &status, 0) < 0 && errno == EINTR)
                ;
        else
            st = reap(&p, deadline, timeout_s, &status, err);
        if (!st && WIFEXITED(status) && WEXITSTATUS(status) != 0)
            st = arb_err_set(err, ARB_EREMOTE, "exited with status %d", WEXITSTATUS(status));
        else if (!st && WIFSIGNALED(status))
            st = arb_err_set(err, ARB_EREMOTE, "killed by signal %d", WTERMSIG(status));
    }
    /* A SIGPIPE this exchange raised is ours: consume it before unblocking. */
    if (!was_pending)
        while (sigtimedwait(&pipe_set, NULL, &zero) == SIGPIPE)
            ;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!st)
        st = arb_buf_add(out, "", 0);
    return st;
}
