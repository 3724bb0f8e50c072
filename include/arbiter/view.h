/*
 * view.h - `arbiter view`: a local web application over a run database (src/view/), served
 * by libmicrohttpd on one internal thread, so requests are handled one at a time and the
 * store is used by that thread only while the server runs.
 *
 * The pages read the database; with labelling on they also write labels (labels.h), and
 * every write needs the session's token, which only the server's own pages carry.  Requests
 * whose Host header is not the address the server listens on are refused (a web page of
 * another site cannot reach the server through a name it controls).
 */
#ifndef ARBITER_VIEW_H
#define ARBITER_VIEW_H

#include <stdint.h>

#include "arbiter/status.h"
#include "arbiter/store.h"

struct arb_view_opts {
    const char *db_path;   /* shown in the pages' header */
    const char *bind;      /* numeric IPv4 or IPv6 address; NULL: 127.0.0.1 */
    unsigned port;         /* 0: a free port */
    int labelling;         /* the labelling pages may write (st opened for writing) */
    const char *annotator; /* the default annotator of the labelling pages, or NULL */
    int64_t warm_run;      /* a run to prepare before listening (its case index and report,
                              which a 100,000-case run takes seconds to build), or 0 */
};

struct arb_view;

/*
 * Start serving st (borrowed: it must outlive the server, and the caller must not use it
 * until arb_view_stop) as o says; *port receives the port bound.  With o->warm_run, that
 * run's case index and report are built first, so its pages answer at once.  ARB_EUSAGE for
 * an address that is not numeric, ARB_EIO when the socket cannot be bound (the port taken),
 * with err set.
 */
enum arb_status arb_view_start(struct arb_store *st, const struct arb_view_opts *o,
                               struct arb_view **out, unsigned *port, struct arb_err *err);

/* Stop serving (waits for the request in hand) and free the server; NULL does nothing. */
void arb_view_stop(struct arb_view *v);

#endif
