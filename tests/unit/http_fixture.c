/*
 * http_fixture.c - the tests' tiny HTTP server (see http_fixture.h).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "http_fixture.h"

double hs_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sleep in small steps so that stopping the server never waits for a long delay. */
static void nap(struct hs_server *s, int ms)
{
    while (ms > 0 && !atomic_load(&s->stop)) {
        struct timespec ts = {0, 10 * 1000000L};

        nanosleep(&ts, NULL);
        ms -= 10;
    }
}

struct conn_arg {
    struct hs_server *s;
    int fd;
};

static int send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);

        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static size_t content_length(const char *head)
{
    const char *p = head;

    while ((p = strstr(p, "\r\n"))) {
        p += 2;
        if (strncasecmp(p, "Content-Length:", 15) == 0)
            return (size_t)strtoul(p + 15, NULL, 10);
    }
    return 0;
}

/* Note a request (under the lock) and pick its scripted reply. */
static struct hs_reply take_reply(struct hs_server *s, const char *head, size_t head_len,
                                  const char *body, size_t body_len)
{
    struct hs_reply r = {200, "", "ok", 0, 0, 0};
    size_t used;

    pthread_mutex_lock(&s->mu);
    if (s->n_requests < HS_MAX_SEEN)
        s->arrival[s->n_requests] = hs_now();
    s->n_requests++;
    used = strlen(s->seen);
    if (used + head_len + 1 < sizeof(s->seen)) {
        memcpy(s->seen + used, head, head_len);
        s->seen[used + head_len] = '\0';
    }
    if (body_len >= sizeof(s->last_body))
        body_len = sizeof(s->last_body) - 1;
    memcpy(s->last_body, body, body_len);
    s->last_body[body_len] = '\0';
    if (s->n_replies) {
        r = s->replies[s->next_reply];
        if (s->next_reply + 1 < s->n_replies)
            s->next_reply++;
    }
    if (++s->in_flight > s->max_in_flight)
        s->max_in_flight = s->in_flight;
    pthread_mutex_unlock(&s->mu);
    return r;
}

/* Whether the extra header lines name a Content-Type of their own. */
static int names_content_type(const char *headers)
{
    const char *p;

    for (p = headers; p && *p; p++) {
        if ((p == headers || p[-1] == '\n') && strncasecmp(p, "Content-Type:", 13) == 0)
            return 1;
    }
    return 0;
}

static int answer(struct hs_server *s, int fd, const struct hs_reply *r)
{
    char head[1024];
    size_t len = r->body_len ? r->body_len : strlen(r->body);
    const char *type = names_content_type(r->headers) ? "" : "Content-Type: text/plain\r\n";
    int n;

    nap(s, r->delay_ms);
    pthread_mutex_lock(&s->mu);
    s->in_flight--;
    pthread_mutex_unlock(&s->mu);
    if (r->hangup || atomic_load(&s->stop))
        return -1;
    n = snprintf(head, sizeof(head), "HTTP/1.1 %d Scripted\r\nContent-Length: %zu\r\n%s%s\r\n",
                 r->status, len, type, r->headers ? r->headers : "");
    if (send_all(fd, head, (size_t)n) || send_all(fd, r->body, len))
        return -1;
    return 0;
}

/* The end of a request head: the first CRLF CRLF, or NULL. */
static char *find_blank_line(char *p, size_t n)
{
    size_t i;

    for (i = 0; i + 4 <= n; i++) {
        if (memcmp(p + i, "\r\n\r\n", 4) == 0)
            return p + i;
    }
    return NULL;
}

/* One connection: requests one after another on the same socket until EOF. */
static void *serve_conn(void *arg)
{
    struct conn_arg *ca = arg;
    struct hs_server *s = ca->s;
    int fd = ca->fd;
    static const size_t cap = 256 * 1024;
    char *buf = malloc(cap);
    size_t have = 0;

    free(ca);
    while (buf && !atomic_load(&s->stop)) {
        char *end = find_blank_line(buf, have);
        size_t head_len, need;
        struct hs_reply r;
        ssize_t k;

        if (end) {
            head_len = (size_t)(end - buf) + 4;
            buf[head_len - 2] = '\0'; /* ends the header text for content_length */
            need = head_len + content_length(buf);
            buf[head_len - 2] = '\r';
            if (need <= have) {
                r = take_reply(s, buf, head_len, buf + head_len, need - head_len);
                if (answer(s, fd, &r))
                    break;
                memmove(buf, buf + need, have - need);
                have -= need;
                continue;
            }
        }
        if (have == cap)
            break;
        k = recv(fd, buf + have, cap - have, 0);
        if (k <= 0) {
            if (k == 0 && !atomic_load(&s->stop)) {
                pthread_mutex_lock(&s->mu);
                s->n_ended++;
                pthread_mutex_unlock(&s->mu);
            }
            break;
        }
        have += (size_t)k;
    }
    free(buf);
    shutdown(fd, SHUT_RDWR);
    return NULL;
}

static void *accept_loop(void *arg)
{
    struct hs_server *s = arg;
    int one = 1;

    for (;;) {
        int fd = accept(s->fd, NULL, NULL);
        struct conn_arg *ca;

        if (fd < 0 || atomic_load(&s->stop)) {
            if (fd >= 0)
                close(fd);
            break;
        }
        /* Head and body go out in two sends; Nagle would hold the body for an ACK. */
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        ca = malloc(sizeof(*ca));
        pthread_mutex_lock(&s->mu);
        if (!ca || s->n_conns == HS_MAX_CONNS) {
            pthread_mutex_unlock(&s->mu);
            free(ca);
            close(fd);
            continue;
        }
        ca->s = s;
        ca->fd = fd;
        s->conn_fds[s->n_conns] = fd;
        if (pthread_create(&s->conns[s->n_conns], NULL, serve_conn, ca) == 0) {
            s->n_conns++;
        } else {
            free(ca);
            close(fd);
        }
        pthread_mutex_unlock(&s->mu);
    }
    return NULL;
}

void hs_start(struct hs_server *s, const struct hs_reply *replies, size_t n)
{
    struct sockaddr_in a;
    socklen_t alen = sizeof(a);
    int one = 1;

    memset(s, 0, sizeof(*s));
    cr_assert_leq(n, HS_MAX_REPLIES);
    memcpy(s->replies, replies, n * sizeof(*replies));
    s->n_replies = n;
    pthread_mutex_init(&s->mu, NULL);
    atomic_init(&s->stop, 0);
    s->fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(s->fd, 0);
    setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(bind(s->fd, (struct sockaddr *)&a, sizeof(a)), 0);
    cr_assert_eq(listen(s->fd, 64), 0);
    cr_assert_eq(getsockname(s->fd, (struct sockaddr *)&a, &alen), 0);
    s->port = ntohs(a.sin_port);
    cr_assert_eq(pthread_create(&s->acceptor, NULL, accept_loop, s), 0);
}

void hs_stop(struct hs_server *s)
{
    size_t i;

    atomic_store(&s->stop, 1);
    shutdown(s->fd, SHUT_RDWR); /* wakes the blocked accept */
    pthread_join(s->acceptor, NULL);
    close(s->fd);
    for (i = 0; i < s->n_conns; i++)
        shutdown(s->conn_fds[i], SHUT_RDWR);
    for (i = 0; i < s->n_conns; i++) {
        pthread_join(s->conns[i], NULL);
        close(s->conn_fds[i]);
    }
    pthread_mutex_destroy(&s->mu);
}

void hs_url(const struct hs_server *s, char *out, size_t n)
{
    snprintf(out, n, "http://127.0.0.1:%d/v1/chat/completions", s->port);
}

/* A port nobody listens on: bind one, note it, close it. */
int hs_closed_port(void)
{
    struct sockaddr_in a;
    socklen_t alen = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    int port;

    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
    port = ntohs(a.sin_port);
    close(fd);
    return port;
}

/* A count the connection threads keep, read under the lock. */
static size_t locked(struct hs_server *s, const size_t *count)
{
    size_t n;

    pthread_mutex_lock(&s->mu);
    n = *count;
    pthread_mutex_unlock(&s->mu);
    return n;
}

size_t hs_requests(struct hs_server *s)
{
    return locked(s, &s->n_requests);
}

size_t hs_ended(struct hs_server *s)
{
    return locked(s, &s->n_ended);
}
