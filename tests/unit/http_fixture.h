/*
 * http_fixture.h - a tiny HTTP/1.1 server on 127.0.0.1 for the transport and
 * judge unit tests, run in threads of the test: one thread per connection,
 * keep-alive by reading requests off the same socket until EOF, a
 * Content-Length body, and a script of replies (status, extra headers, body,
 * delay, or hang up without replying) consumed in arrival order; the last
 * entry repeats.  Every reply says Content-Type: text/plain unless its extra
 * headers name another.  A failure to start is a criterion assertion.
 */
#ifndef ARBITER_TESTS_HTTP_FIXTURE_H
#define ARBITER_TESTS_HTTP_FIXTURE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#define HS_MAX_REPLIES 16
#define HS_MAX_CONNS   256
#define HS_MAX_SEEN    64

/* One scripted reply. */
struct hs_reply {
    int status;
    const char *headers; /* extra header lines, each ending in \r\n */
    const char *body;
    size_t body_len; /* 0: strlen(body) */
    int delay_ms;
    int hangup; /* close the connection instead of replying */
};

/* A server on 127.0.0.1: what it was told to answer and what it saw (under mu). */
struct hs_server {
    int fd;
    int port;
    pthread_t acceptor;
    pthread_mutex_t mu;
    struct hs_reply replies[HS_MAX_REPLIES];
    size_t n_replies;
    size_t next_reply;
    pthread_t conns[HS_MAX_CONNS];
    int conn_fds[HS_MAX_CONNS];
    size_t n_conns;
    size_t n_ended; /* connections the client closed (EOF), not the server */
    size_t n_requests;
    double arrival[HS_MAX_SEEN];
    int in_flight;
    int max_in_flight;
    char seen[16384]; /* request lines and headers of every request, concatenated */
    char last_body[1024];
    atomic_int stop;
};

/* Listen on an ephemeral port and serve replies[0..n) (copied; their strings borrowed). */
void hs_start(struct hs_server *s, const struct hs_reply *replies, size_t n);

/* Stop accepting, cut every connection, join the threads. */
void hs_stop(struct hs_server *s);

/* The server's chat-completions URL into out (n bytes). */
void hs_url(const struct hs_server *s, char *out, size_t n);

/* How many requests have arrived so far (taken under the lock). */
size_t hs_requests(struct hs_server *s);

/* How many connections the client has closed so far (taken under the lock). */
size_t hs_ended(struct hs_server *s);

/* A port nobody listens on. */
int hs_closed_port(void);

/* Monotonic seconds. */
double hs_now(void);

#endif
