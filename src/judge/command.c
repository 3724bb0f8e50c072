/*
 * command.c - the `command` judge provider: a local program gets the request
 * JSON on its standard input and answers with the judgment JSON on its
 * standard output (the custom-grader protocol of agent-eval harnesses), in
 * any language.  The program runs with the caller's environment, without a
 * shell (argv as configured), and is killed at the timeout.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "judge_int.h"

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

enum arb_status judge_run_command(char *const *argv, const char *input, double timeout_s,
                                  struct arb_buf *out, char *why, size_t whylen)
{
    int in[2] = {-1, -1}, outp[2] = {-1, -1}, status = 0;
    size_t off = 0, len = strlen(input);
    double deadline = now_s() + timeout_s;
    pid_t pid;
    enum arb_status st = ARB_OK;

    why[0] = '\0';
    if (pipe(in) != 0 || pipe(outp) != 0) {
        snprintf(why, whylen, "cannot create pipes: %s", strerror(errno));
        goto fail;
    }
    pid = fork();
    if (pid < 0) {
        snprintf(why, whylen, "cannot start '%s': %s", argv[0], strerror(errno));
        goto fail;
    }
    if (pid == 0) {
        dup2(in[0], STDIN_FILENO);
        dup2(outp[1], STDOUT_FILENO);
        close(in[0]);
        close(in[1]);
        close(outp[0]);
        close(outp[1]);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(in[0]);
    close(outp[1]);
    in[0] = outp[1] = -1;
    fcntl(in[1], F_SETFL, O_NONBLOCK);
    if (len == 0) {
        close(in[1]);
        in[1] = -1;
    }
    while (outp[0] >= 0) {
        struct pollfd pfd[2];
        int nfd = 0, wait_ms = (int)((deadline - now_s()) * 1000.0);
        char buf[65536];

        if (wait_ms <= 0) {
            kill(pid, SIGKILL);
            snprintf(why, whylen, "the judge command timed out after %.0f s", timeout_s);
            st = ARB_EIO;
            break;
        }
        pfd[nfd].fd = outp[0];
        pfd[nfd++].events = POLLIN;
        if (in[1] >= 0) {
            pfd[nfd].fd = in[1];
            pfd[nfd++].events = POLLOUT;
        }
        if (poll(pfd, (nfds_t)nfd, wait_ms) < 0 && errno != EINTR)
            break;
        if (nfd == 2 && (pfd[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
            ssize_t w = write(in[1], input + off, len - off);

            if (w > 0)
                off += (size_t)w;
            if (w < 0 || off == len) {
                close(in[1]);
                in[1] = -1;
            }
        }
        if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t r = read(outp[0], buf, sizeof(buf));

            if (r > 0 && arb_buf_add(out, buf, (size_t)r) != ARB_OK) {
                kill(pid, SIGKILL);
                snprintf(why, whylen, "the judge command wrote more than the limit");
                st = ARB_ETOOBIG;
                break;
            }
            if (r == 0) {
                close(outp[0]);
                outp[0] = -1;
            }
        }
    }
    if (in[1] >= 0)
        close(in[1]);
    if (outp[0] >= 0)
        close(outp[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!st && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
            snprintf(why, whylen, "cannot run the judge command '%s'", argv[0]);
        else
            snprintf(why, whylen, "the judge command failed (%s %d)",
                     WIFEXITED(status) ? "exit" : "signal",
                     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        st = ARB_EIO;
    }
    if (!st)
        st = arb_buf_add(out, "", 0);
    return st;
fail:
    if (in[0] >= 0)
        close(in[0]);
    if (in[1] >= 0)
        close(in[1]);
    if (outp[0] >= 0)
        close(outp[0]);
    if (outp[1] >= 0)
        close(outp[1]);
    return ARB_EIO;
}
