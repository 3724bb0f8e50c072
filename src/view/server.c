/*
 * server.c - the HTTP side of `arbiter view` (libmicrohttpd; only this file includes
 * microhttpd.h): one internal polling thread, so the pages run one at a time on one store.
 *
 * Every request is checked before a page sees it: GET, HEAD or POST only; the Host header
 * must name the address and port the server listens on (a DNS-rebinding page cannot reach
 * it); a POST must carry the session token in its form and, when the browser sends one, an
 * Origin of this server.  The path and query arguments are decoded by libmicrohttpd (with
 * unescape() below, once: a path is never decoded again), form bodies here
 * (application/x-www-form-urlencoded, at most 64 KiB); a path or argument that is not UTF-8,
 * holds %00, or comes with more than VIEW_MAX_ARGS others is refused (400), never cut or dropped.
 * Every reply carries a Content-Security-Policy that allows no inline script and nothing from
 * another origin, so even an escaping mistake in a page could not run an output's script.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "arbiter/buf.h"
#include "arbiter/case_index.h"
#include "arbiter/unicode.h"
#include "arbiter/view.h"
#include "view_int.h"

#define MAX_BODY (64 * 1024)
#define MAX_PAGE (64u * 1024 * 1024)
/* A case id of 4 KB, every byte percent-encoded, and room to spare; libmicrohttpd keeps the
 * headers in the connection's memory (MEMORY_LIMIT), so a longer one could not be sent. */
#define MAX_LOCATION (16u * 1024)
#define MEMORY_LIMIT (64u * 1024)

struct arb_view {
    struct MHD_Daemon *d;
    struct view_ctx ctx;
    char host[3][96]; /* the Host values accepted: the bound address, localhost */
    int any_host;     /* bound to every address: any Host naming the port */
    unsigned port;
};

/* What one connection gathers before its page runs. */
struct pending {
    struct arb_buf body;
    int too_big;
};

const char *view_arg(const struct view_req *r, const char *name)
{
    for (size_t i = 0; i < r->n_args; i++)
        if (strcmp(r->args[i].name, name) == 0)
            return r->args[i].value;
    return NULL;
}

/* ---- decoding --------------------------------------------------------------------------- */

size_t view_url_decode(char *s, int plus_is_space)
{
    size_t i = 0, o = 0;

    while (s[i]) {
        int hi, lo;

        if (s[i] == '%' && (hi = arb_hex_value((unsigned char)s[i + 1])) >= 0 &&
            (lo = arb_hex_value((unsigned char)s[i + 2])) >= 0) {
            s[o++] = (char)(hi * 16 + lo);
            i += 3;
        } else if (s[i] == '+' && plus_is_space) {
            s[o++] = ' ';
            i++;
        } else {
            s[o++] = s[i++];
        }
    }
    s[o] = '\0';
    return o;
}

/*
 * libmicrohttpd's unescaping of the path and the query arguments (%XX; it has turned + into a
 * space in arguments already), except that a %00 becomes 0xFF, a byte no UTF-8 text holds:
 * libmicrohttpd hands both over as C strings, where a NUL would silently cut them
 * ("/runs/1/cases/a%00b" would open case "a"), while 0xFF makes the UTF-8 checks refuse them.
 */
static size_t unescape(void *cls, struct MHD_Connection *c, char *s)
{
    size_t n = view_url_decode(s, 0);

    (void)cls;
    (void)c;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '\0')
            s[i] = (char)0xff;
    return n;
}

static enum MHD_Result on_query_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                    const char *value)
{
    struct view_args *l = cls;

    (void)kind;
    if (!key || !view_arg_acceptable(key, strlen(key)) ||
        (value && !arb_utf8_valid(value, strlen(value), NULL))) {
        l->bad = 1;
        return MHD_NO;
    }
    if (l->n == VIEW_MAX_ARGS) {
        l->too_many = 1;
        return MHD_NO;
    }
    l->a[l->n].name = key;
    l->a[l->n].value = value ? value : "";
    l->n++;
    return MHD_YES;
}

/* ---- replies ---------------------------------------------------------------------------- */

/*
 * No script but the server's own file, nothing from elsewhere.  Inline style attributes are
 * allowed: the report's writers, which the pages reuse, color swatches and bars with them,
 * and a style attribute cannot run script (user text never reaches one: it is escaped).
 */
static const char csp[] = "default-src 'none'; style-src 'self' 'unsafe-inline'; "
                          "script-src 'self'; img-src 'self' data:; connect-src 'self'; "
                          "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
/* The static report styles itself inline and has no script. */
static const char csp_report[] = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
                                 "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

static enum MHD_Result send_resp(struct MHD_Connection *c, struct view_resp *r)
{
    struct MHD_Response *resp;
    enum MHD_Result ret;
    size_t len = 0;
    char *text = arb_buf_detach(&r->body, &len);
    int ok;

    if (!text)
        return MHD_NO;
    resp = MHD_create_response_from_buffer_with_free_callback(len, text, free);
    if (!resp) {
        free(text);
        return MHD_NO;
    }
    ok = MHD_add_response_header(resp, "Content-Type",
                                 r->content_type ? r->content_type : "text/html; charset=utf-8") ==
             MHD_YES &&
         MHD_add_response_header(resp, "Content-Security-Policy",
                                 r->csp_report ? csp_report : csp) == MHD_YES &&
         MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff") == MHD_YES &&
         /* same-origin, not no-referrer: with no-referrer a browser sends "Origin: null"
          * on the labelling form's POST, which origin_ok must refuse. */
         MHD_add_response_header(resp, "Referrer-Policy", "same-origin") == MHD_YES &&
         MHD_add_response_header(resp, "Cache-Control",
                                 r->cacheable ? "max-age=3600" : "no-store") == MHD_YES;
    if (ok && r->status == 303)
        ok = r->location.ptr &&
             MHD_add_response_header(resp, "Location", r->location.ptr) == MHD_YES;
    ret = ok ? MHD_queue_response(c, (unsigned)r->status, resp) : MHD_NO;
    MHD_destroy_response(resp);
    return ret;
}

/* A plain refusal, before any page: text, so nothing in it is markup. */
static enum MHD_Result refuse(struct MHD_Connection *c, unsigned status, const char *why)
{
    struct view_resp r = {.status = (int)status, .content_type = "text/plain; charset=utf-8"};
    enum MHD_Result ret;

    arb_buf_init(&r.body, 4096);
    if (arb_buf_adds(&r.body, why) || arb_buf_addc(&r.body, '\n')) {
        arb_buf_release(&r.body);
        return MHD_NO;
    }
    ret = send_resp(c, &r);
    arb_buf_release(&r.body);
    return ret;
}

/* ---- the checks every request passes ------------------------------------------------------ */

/* "NAME:PORT" with this server's port and a name of host-name characters. */
static int any_name_this_port(const struct arb_view *v, const char *host)
{
    char port[16];
    size_t n = strlen(host), pn;

    pn = (size_t)snprintf(port, sizeof(port), ":%u", v->port);
    if (n <= pn || strcmp(host + n - pn, port) != 0)
        return 0;
    for (size_t i = 0; i < n - pn; i++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]", host[i]))
            return 0;
    return 1;
}

static int host_ok(const struct arb_view *v, const char *host)
{
    if (!host)
        return 0;
    /* Bound to every address (--bind 0.0.0.0 or ::), the server was asked to be reached by
     * other machines under whatever name they use: any Host naming its port.  Writes still
     * need the session's token. */
    if (v->any_host)
        return any_name_this_port(v, host);
    for (int i = 0; i < 3; i++)
        if (v->host[i][0] && strcmp(host, v->host[i]) == 0)
            return 1;
    return 0;
}

/* An Origin, when the browser sent one, must be this server ("http://" + an accepted Host). */
static int origin_ok(const struct arb_view *v, const char *origin)
{
    if (!origin)
        return 1;
    if (strncmp(origin, "http://", 7) != 0)
        return 0;
    return host_ok(v, origin + 7);
}

/* Constant-time comparison of the token a form carried with the session's. */
static int token_ok(const struct arb_view *v, const char *given)
{
    const char *want = v->ctx.token;
    size_t n = strlen(want);
    unsigned diff = 0;

    if (!given || strlen(given) != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned)(unsigned char)(given[i] ^ want[i]);
    return diff == 0;
}

static enum MHD_Result run_page(struct arb_view *v, struct MHD_Connection *c, const char *url,
                                int post, struct pending *p)
{
    struct view_args args = {.n = 0};
    struct view_req req;
    struct view_resp resp = {.status = 200};
    struct arb_err err = {{0}};
    enum arb_status st;
    enum MHD_Result ret;
    char *path = strdup(url);

    /* url is decoded already (unescape); decoding it again would turn a case id's own "%41"
     * into "A". */
    if (!path)
        return MHD_NO;
    if (!arb_utf8_valid(path, strlen(path), NULL)) {
        free(path);
        return refuse(c, 400, "the path is not UTF-8 text (or holds %00)");
    }
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, on_query_arg, &args);
    if (post) {
        if (arb_buf_addc(&p->body, '\0')) {
            free(path);
            return MHD_NO;
        }
        view_form_parse(p->body.ptr, &args);
    }
    if (args.bad || args.too_many) {
        free(path);
        return refuse(c, 400,
                      args.bad ? "an argument of the query or form is not UTF-8 text (or holds %00)"
                               : "the query and form carry more than 64 arguments");
    }
    req.post = post;
    req.path = path;
    req.args = args.a;
    req.n_args = args.n;
    if (post && !token_ok(v, view_arg(&req, "token"))) {
        free(path);
        return refuse(c, 403,
                      "this form carries no valid session token: reload the page "
                      "from the server and send it again");
    }
    arb_buf_init(&resp.body, MAX_PAGE);
    arb_buf_init(&resp.location, MAX_LOCATION);
    st = view_route(&v->ctx, &req, &resp, &err);
    if (st) {
        arb_buf_reset(&resp.body);
        resp.content_type = NULL;
        resp.csp_report = 0;
        st = view_error_page(&v->ctx, &resp, 500, err.msg[0] ? err.msg : arb_strerror(st));
    }
    ret = st ? MHD_NO : send_resp(c, &resp);
    arb_buf_release(&resp.body);
    arb_buf_release(&resp.location);
    free(path);
    return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_size, void **con_cls)
{
    struct arb_view *v = cls;
    struct pending *p = *con_cls;
    int post = strcmp(method, "POST") == 0;

    (void)version;
    if (!p) {
        /* First call: headers only.  Refuse early what no page will take. */
        if (!post && strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
            return refuse(c, 405, "only GET and POST are served");
        if (!host_ok(v, MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host")))
            return refuse(c, 403,
                          "this server answers only requests addressed to it "
                          "(the Host header names another server)");
        if (post && !origin_ok(v, MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin")))
            return refuse(c, 403, "a form of another site cannot write here");
        p = calloc(1, sizeof(*p));
        if (!p)
            return MHD_NO;
        arb_buf_init(&p->body, MAX_BODY + 1);
        *con_cls = p;
        return MHD_YES;
    }
    if (*upload_size) {
        if (!p->too_big && arb_buf_add(&p->body, upload_data, *upload_size))
            p->too_big = 1;
        *upload_size = 0;
        return MHD_YES;
    }
    if (p->too_big)
        return refuse(c, 413, "the form is larger than 64 KiB");
    return run_page(v, c, url, post, p);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct pending *p = *con_cls;

    (void)cls;
    (void)c;
    (void)toe;
    if (p) {
        arb_buf_release(&p->body);
        free(p);
        *con_cls = NULL;
    }
}

/* ---- start and stop ------------------------------------------------------------------------ */

static int new_token(char out[65], struct arb_err *err)
{
    unsigned char raw[32];
    FILE *f = fopen("/dev/urandom", "rb");
    size_t n = f ? fread(raw, 1, sizeof(raw), f) : 0;

    if (f)
        fclose(f);
    if (n != sizeof(raw))
        return arb_err_set(err, ARB_EIO, "cannot read /dev/urandom for the session token");
    for (size_t i = 0; i < sizeof(raw); i++)
        snprintf(out + 2 * i, 3, "%02x", raw[i]);
    return 0;
}

static enum arb_status listen_addr(const char *bind, unsigned port, struct sockaddr_storage *sa,
                                   int *v6, struct arb_err *err)
{
    struct sockaddr_in *s4 = (struct sockaddr_in *)sa;
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)sa;

    memset(sa, 0, sizeof(*sa));
    if (inet_pton(AF_INET, bind, &s4->sin_addr) == 1) {
        s4->sin_family = AF_INET;
        s4->sin_port = htons((uint16_t)port);
        *v6 = 0;
        return ARB_OK;
    }
    if (inet_pton(AF_INET6, bind, &s6->sin6_addr) == 1) {
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)port);
        *v6 = 1;
        return ARB_OK;
    }
    return arb_err_set(err, ARB_EUSAGE,
                       "--bind: expected a numeric IPv4 or IPv6 address, got '%.100s'", bind);
}

/*
 * A socket listening on sa, its port (the one picked, for port 0) into *port.  Bound here, not
 * by libmicrohttpd, so that the Host values are known before its thread can read them.
 */
static enum arb_status listen_on(const struct sockaddr_storage *sa, int v6, const char *addr,
                                 int *fd, unsigned *port, struct arb_err *err)
{
    struct sockaddr_storage got;
    socklen_t len = v6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    int one = 1, e;

    *fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (*fd < 0)
        return arb_err_set(err, ARB_EIO, "cannot open a socket: %s", strerror(errno));
    /* Only the address asked for: no IPv4 through an IPv6 socket. */
    if ((v6 && setsockopt(*fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) != 0) ||
        setsockopt(*fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
        bind(*fd, (const struct sockaddr *)sa, len) != 0 || listen(*fd, 64) != 0 ||
        getsockname(*fd, (struct sockaddr *)&got, &len) != 0) {
        e = errno;
        close(*fd);
        *fd = -1;
        return arb_err_set(err, ARB_EIO, "cannot listen on %s port %u: %s", addr,
                           (unsigned)ntohs(((const struct sockaddr_in *)sa)->sin_port),
                           strerror(e));
    }
    *port = ntohs(v6 ? ((struct sockaddr_in6 *)&got)->sin6_port
                     : ((struct sockaddr_in *)&got)->sin_port);
    return ARB_OK;
}

/*
 * The Host values a browser sends for this server: the address as a browser spells it
 * (inet_ntop's form: "[::1]" however --bind wrote it) and, on loopback, localhost.
 */
static void accepted_hosts(struct arb_view *v, const struct sockaddr_storage *sa, int v6)
{
    const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;
    const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
    char text[INET6_ADDRSTRLEN] = "";
    int loopback;

    if (v6) {
        inet_ntop(AF_INET6, &s6->sin6_addr, text, sizeof(text));
        loopback = IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr);
    } else {
        inet_ntop(AF_INET, &s4->sin_addr, text, sizeof(text));
        loopback = ntohl(s4->sin_addr.s_addr) == INADDR_LOOPBACK;
    }
    snprintf(v->host[0], sizeof(v->host[0]), v6 ? "[%s]:%u" : "%s:%u", text, v->port);
    v->any_host =
        v6 ? IN6_IS_ADDR_UNSPECIFIED(&s6->sin6_addr) : s4->sin_addr.s_addr == htonl(INADDR_ANY);
    if (loopback)
        snprintf(v->host[1], sizeof(v->host[1]), "localhost:%u", v->port);
}

enum arb_status arb_view_start(struct arb_store *st, const struct arb_view_opts *o,
                               struct arb_view **out, unsigned *port, struct arb_err *err)
{
    const char *bind = o->bind ? o->bind : "127.0.0.1";
    struct sockaddr_storage sa;
    struct arb_view *v;
    enum arb_status rs;
    int v6 = 0, fd = -1;

    *out = NULL;
    rs = listen_addr(bind, o->port, &sa, &v6, err);
    if (rs)
        return rs;
    v = calloc(1, sizeof(*v));
    if (!v)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    v->ctx.st = st;
    v->ctx.db_path = o->db_path;
    v->ctx.labelling = o->labelling;
    v->ctx.annotator = o->annotator;
    if (new_token(v->ctx.token, err)) {
        free(v);
        return ARB_EIO;
    }
    if (view_cache_new(&v->ctx.cache)) {
        free(v);
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    if (o->warm_run > 0) {
        const cJSON *rep;

        rs = arb_case_index_build(st, o->warm_run, err);
        if (!rs)
            rs = view_cache_report(&v->ctx, o->warm_run, &rep, err);
        if (rs) {
            view_cache_free(v->ctx.cache);
            free(v);
            return rs;
        }
    }
    rs = listen_on(&sa, v6, bind, &fd, port, err);
    v->port = *port;
    if (rs) {
        view_cache_free(v->ctx.cache);
        free(v);
        return rs;
    }
    accepted_hosts(v, &sa, v6);
    v->d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG | (v6 ? MHD_USE_IPv6 : 0),
        (uint16_t)v->port, NULL, NULL, on_request, v, MHD_OPTION_LISTEN_SOCKET, fd,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, v, MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)MEMORY_LIMIT, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)60, MHD_OPTION_CONNECTION_LIMIT, (unsigned)64, MHD_OPTION_END);
    if (!v->d) {
        close(fd);
        view_cache_free(v->ctx.cache);
        free(v);
        return arb_err_set(err, ARB_EIO, "cannot serve on %s port %u", bind, *port);
    }
    *port = v->port;
    *out = v;
    return ARB_OK;
}

void arb_view_stop(struct arb_view *v)
{
    if (!v)
        return;
    MHD_stop_daemon(v->d);
    view_cache_free(v->ctx.cache);
    free(v);
}
