/*
 * view_int.h - what the files of `arbiter view` share (src/view/): one request as the
 * pages see it, one reply, and the server's state.  server.c owns the HTTP side
 * (libmicrohttpd: parsing, the Host and token checks, headers); the pages (browse.c,
 * case_page.c, label_pages.c ...) only read a struct view_req and fill a struct view_resp,
 * so they are tested without a socket.
 *
 * Pages write HTML with the report's writer (src/report/html_int.h): every piece of user
 * text (prompts, outputs, case ids, system names, notes) goes through html_text, never
 * html_raw or html_printf.
 */
#ifndef ARBITER_VIEW_INT_H
#define ARBITER_VIEW_INT_H

#include <stddef.h>
#include <stdint.h>

#include "arbiter/buf.h"
#include "arbiter/status.h"
#include "arbiter/store.h"

/* One query-string or form argument, decoded (UTF-8, no NUL inside). */
struct view_arg {
    const char *name;
    const char *value;
};

struct view_req {
    int post;                    /* 1 for POST (form: application/x-www-form-urlencoded) */
    const char *path;            /* decoded path without the query: "/runs/3/cases/inv-001" */
    const struct view_arg *args; /* query arguments, then (POST) form arguments */
    size_t n_args;
};

/* The first value of argument name, or NULL when absent. */
const char *view_arg(const struct view_req *r, const char *name);

struct view_resp {
    int status;               /* 200, 303, 400, 403, 404, 500 ... */
    const char *content_type; /* static string; "text/html; charset=utf-8" by default */
    struct arb_buf body;      /* owned by the server: initialised before, released after */
    char location[1024];      /* for 303: where to go (a path on this server) */
};

/* The server's state, shared by every page; one request at a time (no locking). */
struct view_ctx {
    struct arb_store *st;    /* read-only unless labelling */
    const char *db_path;     /* as given on the command line (shown in the page header) */
    int labelling;           /* --label: the database is open for writing labels */
    const char *annotator;   /* --annotator NAME, or NULL (the page then asks for a name) */
    char token[65];          /* this session's token (hex); every POST must carry it */
    struct view_cache *cache; /* per-run derived data (case flags, report); view_cache.c */
};

/*
 * A page: the route matched path (and run, case_id when the path names them).  Fills out;
 * returns ARB_OK (out->status says what the client sees, including 404 and 400 for a bad
 * argument, with an HTML body that says what was wrong), or a failure with err set, which
 * the server turns into a 500 page carrying err's message.
 */
typedef enum arb_status (*view_page_fn)(struct view_ctx *v, const struct view_req *r,
                                        struct view_resp *out, struct arb_err *err);

/*
 * Every page's frame (page.c): the doctype, <head> with the embedded stylesheet and script
 * (/assets/view.css, /assets/view.js), the session token as <meta name="arbiter-token">, the
 * top navigation (runs list; the run's cases, report and labelling when run > 0), then the
 * page's <main>.  view_page_end closes them.  title is user text (escaped).
 */
struct html;
void view_page_begin(struct html *h, const struct view_ctx *v, const char *title, int64_t run);
void view_page_end(struct html *h);

/* A 4xx page: status and a one-line message (user text, escaped) in the frame. */
enum arb_status view_error_page(struct view_ctx *v, struct view_resp *out, int status,
                                const char *msg);

/* The labelling pages (label_pages.c): every path under /runs/ID/label, GET and POST. */
enum arb_status view_label_route(struct view_ctx *v, const struct view_req *r, int64_t run,
                                 const char *rest, struct view_resp *out, struct arb_err *err);

#endif
