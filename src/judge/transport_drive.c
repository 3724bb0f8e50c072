/*
 * transport_drive.c - curl driven by its own sockets and timer (transport_int.h:
 * transport_drive and the rest), for the scheduler in transport.c.
 *
 * curl_multi_perform visits every transfer of the multi handle, and a transfer
 * waiting for its reply checks its socket with a poll() of its own: at
 * concurrency 64 each call made 64 system calls, and a judge calls it for every
 * request it starts and every reply it reads (16,000 polls for 500 requests,
 * three quarters of the time it took to put a request on the wire).  Here curl
 * says which sockets it waits on and when its next timeout is due
 * (CURLMOPT_SOCKETFUNCTION, CURLMOPT_TIMERFUNCTION); one poll() watches them
 * all, and curl_multi_socket_action is told of the sockets that have news and
 * of its timer when it is due, so only the transfers with something to do run.
 *
 * pfd[0] is the read end of a pipe that arb_transport_abort writes to (from any
 * thread), so that a wait sees the abort at once, as curl_multi_wakeup did.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "transport_int.h"

#define MAX_TIMER_ROUNDS 8 /* timeouts acted on in one call, when curl asks for 0 ms again */

static short poll_events(int what)
{
    short ev = 0;

    if (what == CURL_POLL_IN || what == CURL_POLL_INOUT)
        ev |= POLLIN;
    if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT)
        ev |= POLLOUT;
    return ev;
}

/* CURLMOPT_SOCKETFUNCTION: what curl waits for on s (CURL_POLL_REMOVE: nothing more). */
static int on_socket(CURL *easy, curl_socket_t s, int what, void *userp, void *socketp)
{
    struct arb_transport *t = userp;
    size_t i;

    (void)easy;
    (void)socketp;
    for (i = 1; i < t->n_pfd && t->pfd[i].fd != s; i++)
        ;
    if (what == CURL_POLL_REMOVE) {
        if (i < t->n_pfd)
            t->pfd[i] = t->pfd[--t->n_pfd];
        return 0;
    }
    if (i == t->n_pfd) {
        if (t->n_pfd == t->cap_pfd) {
            size_t cap = t->cap_pfd * 2;
            struct pollfd *p = realloc(t->pfd, cap * sizeof(*p));

            if (!p)
                return -1; /* curl fails the call: out of memory */
            t->pfd = p;
            t->cap_pfd = cap;
        }
        t->pfd[i].fd = s;
        t->n_pfd++;
    }
    t->pfd[i].events = poll_events(what);
    t->pfd[i].revents = 0;
    return 0;
}

/* CURLMOPT_TIMERFUNCTION: act on curl's timeout in timeout_ms (-1: none). */
static int on_timer(CURLM *multi, long timeout_ms, void *userp)
{
    struct arb_transport *t = userp;

    (void)multi;
    t->timer_at = timeout_ms < 0 ? -1.0 : transport_now_s() + (double)timeout_ms / 1000.0;
    return 0;
}

CURLMcode transport_drive_init(struct arb_transport *t)
{
    CURLMcode mc;

    t->timer_at = -1.0;
    t->cap_pfd = t->o.concurrency + 8;
    t->pfd = calloc(t->cap_pfd, sizeof(*t->pfd));
    if (!t->pfd)
        return CURLM_OUT_OF_MEMORY;
    if (pipe(t->wake) != 0)
        return CURLM_INTERNAL_ERROR;
    for (int i = 0; i < 2; i++) {
        if (fcntl(t->wake[i], F_SETFL, O_NONBLOCK) != 0 ||
            fcntl(t->wake[i], F_SETFD, FD_CLOEXEC) != 0)
            return CURLM_INTERNAL_ERROR;
    }
    t->pfd[0].fd = t->wake[0];
    t->pfd[0].events = POLLIN;
    t->n_pfd = 1;
    mc = curl_multi_setopt(t->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    if (!mc)
        mc = curl_multi_setopt(t->multi, CURLMOPT_SOCKETDATA, t);
    if (!mc)
        mc = curl_multi_setopt(t->multi, CURLMOPT_TIMERFUNCTION, on_timer);
    if (!mc)
        mc = curl_multi_setopt(t->multi, CURLMOPT_TIMERDATA, t);
    return mc;
}

void transport_drive_free(struct arb_transport *t)
{
    for (int i = 0; i < 2; i++) {
        if (t->wake[i] >= 0)
            close(t->wake[i]);
        t->wake[i] = -1;
    }
    free(t->pfd);
    free(t->news);
    t->pfd = NULL;
    t->news = NULL;
    t->n_pfd = t->cap_pfd = t->cap_news = 0;
}

void transport_drive_wake(struct arb_transport *t)
{
    ssize_t n;

    if (t->wake[1] < 0)
        return;
    /* Full (EAGAIN): a wake is pending already. */
    do
        n = write(t->wake[1], "!", 1);
    while (n < 0 && errno == EINTR);
}

/* Act on curl's timer while it is due (a transfer just added starts here). */
static CURLMcode act_on_timer(struct arb_transport *t)
{
    CURLMcode mc = CURLM_OK;
    int running;

    for (int i = 0;
         i < MAX_TIMER_ROUNDS && !mc && t->timer_at >= 0 && t->timer_at <= transport_now_s(); i++) {
        t->timer_at = -1.0;
        mc = curl_multi_socket_action(t->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    }
    return mc;
}

static int wait_ms(const struct arb_transport *t, int limit)
{
    double ms;

    if (t->timer_at < 0)
        return limit;
    ms = (t->timer_at - transport_now_s()) * 1000.0;
    if (ms <= 0)
        return 0;
    ms += 1.0; /* past the timeout, not just before it */
    return ms < limit ? (int)ms : limit;
}

/* The sockets that poll() found with news, and what to tell curl of each (curl changes the
 * table as it acts, so this is taken first); how many, or -1 when out of memory. */
static int take_news(struct arb_transport *t)
{
    int got = 0;

    if (t->cap_news < t->n_pfd) {
        struct transport_news *p = realloc(t->news, t->n_pfd * sizeof(*p));

        if (!p)
            return -1;
        t->news = p;
        t->cap_news = t->n_pfd;
    }
    for (size_t i = 1; i < t->n_pfd; i++) {
        short re = t->pfd[i].revents;

        if (!re)
            continue;
        t->pfd[i].revents = 0;
        t->news[got].fd = t->pfd[i].fd;
        t->news[got].mask = (re & (POLLIN | POLLHUP) ? CURL_CSELECT_IN : 0) |
                            (re & POLLOUT ? CURL_CSELECT_OUT : 0) |
                            (re & (POLLERR | POLLNVAL) ? CURL_CSELECT_ERR : 0);
        got++;
    }
    return got;
}

CURLMcode transport_drive(struct arb_transport *t, int limit_ms, int *ready)
{
    CURLMcode mc = act_on_timer(t);
    int n, got, running;

    if (ready)
        *ready = 0;
    if (mc)
        return mc;
    do
        n = poll(t->pfd, (nfds_t)t->n_pfd, wait_ms(t, limit_ms));
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return CURLM_INTERNAL_ERROR;
    if (t->pfd[0].revents) {
        char sink[64];

        while (read(t->wake[0], sink, sizeof(sink)) > 0)
            ;
        t->pfd[0].revents = 0;
    }
    got = take_news(t);
    if (got < 0)
        return CURLM_OUT_OF_MEMORY;
    for (int k = 0; k < got && !mc; k++)
        mc = curl_multi_socket_action(t->multi, t->news[k].fd, t->news[k].mask, &running);
    if (ready)
        *ready = got;
    if (!mc)
        mc = act_on_timer(t);
    return mc;
}
