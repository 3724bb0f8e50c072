/*
 * cmd_view.c - `arbiter view`: browse a database's runs in a browser, and label pairs blind.
 * The server is the library's (src/view/); this file reads the options, opens the database
 * (read-only unless labelling), starts the server, says where it listens and waits for
 * SIGINT or SIGTERM.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pthread.h>

#include "arbiter/store.h"
#include "arbiter/view.h"
#include "cli.h"
#include "parse_options.h"

static const char usage_text[] =
    "usage: arbiter view [--db FILE] [--port N] [--bind ADDR] [--port-file FILE]\n"
    "                    [--label [--annotator NAME]] [--no-warm]\n"
    "\n"
    "Serve a local web application over a database (default ./" CLI_DEFAULT_DB "): the runs,\n"
    "each run's cases with filters (status, winner, position-inconsistent, judge failed,\n"
    "checks and judge disagreeing, expectation failed), search, sorting and paging, one\n"
    "case whole (both outputs side by side with a word diff, every check record, each\n"
    "judge order, the verdict), the report's panels and the static report.  Everything is\n"
    "served by this process; nothing is fetched from elsewhere.  Stop it with Ctrl-C.\n"
    "\n"
    "  --port N          the port (default 8377; 0 picks a free one)\n"
    "  --bind ADDR       the numeric address to listen on (default 127.0.0.1); anything\n"
    "                    but loopback lets other machines read the database\n"
    "  --port-file FILE  write the port bound to FILE once listening (for scripts)\n"
    "  --label           open the database for writing and let the labelling pages record\n"
    "                    blind human labels (/runs/ID/label); without it the database is\n"
    "                    opened read-only and nothing is written\n"
    "  --annotator NAME  the annotator the labelling pages record (else the page asks)\n"
    "  --no-warm         listen at once; by default the latest run's case index and report\n"
    "                    are built first (seconds for 100,000 cases), so its pages answer\n"
    "                    at once; other runs are prepared on their first visit\n"
    "\n"
    "Labels feed 'arbiter calibrate --run RUN --labels-from-db' and 'arbiter export RUN\n"
    "--labels'.  Writes need the session token that the server's own pages carry, so no\n"
    "other web page can label; requests naming another host are refused.\n"
    "\n"
    "Exit codes: 0 stopped by SIGINT or SIGTERM, 2 a bad option or no database,\n"
    "4 the database cannot be opened or the port cannot be bound.\n";

/* Writes the port to path.tmp.PID and renames it over path, so a reader never sees half. */
static int write_port_file(const char *path, unsigned port)
{
    size_t n = strlen(path) + 32;
    char *tmp = malloc(n);
    FILE *f;
    int ok;

    if (!tmp) {
        cli_error("view", "out of memory");
        return 0;
    }
    snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
    f = fopen(tmp, "w");
    ok = f != NULL;
    if (ok) {
        ok = fprintf(f, "%u\n", port) > 0;
        ok = fclose(f) == 0 && ok;
    }
    ok = ok && rename(tmp, path) == 0;
    if (!ok) {
        cli_error("view", "cannot write the port file '%s': %s", path, strerror(errno));
        remove(tmp);
    }
    free(tmp);
    return ok;
}

static enum arb_status open_db(const char *db, int labelling, struct arb_store **st)
{
    struct arb_err err = {{0}};
    enum arb_status rs;

    if (!labelling)
        return cli_open_for_reading("view", db, st);
    if (access(db, F_OK) != 0) {
        cli_error("view", "no database at '%s' (give --db FILE, or create one with 'arbiter run')",
                  db);
        return ARB_EUSAGE;
    }
    rs = arb_store_open(db, 0, st, &err);
    if (rs)
        cli_error("view", "%s", err.msg);
    return rs;
}

static int view_cmd(int argc, char **argv)
{
    const char *db = CLI_DEFAULT_DB, *bind = "127.0.0.1", *port_file = NULL, *annotator = NULL;
    unsigned port = 8377;
    int labelling = 0, no_warm = 0, n_pos, code, sig = 0;
    int64_t warm = 0;
    struct arb_store *st = NULL;
    struct arb_view *v = NULL;
    struct arb_err err = {{0}};
    struct arb_view_opts vo;
    sigset_t sigs;
    enum arb_status rs;
    const struct cli_option options[] = {
        CLI_OPT_DB(&db),
        CLI_OPT_WHOLE("--port", &port, 0, 65535),
        CLI_OPT_NONEMPTY("--bind", &bind, "a numeric address"),
        CLI_OPT_NONEMPTY("--port-file", &port_file, "a file name"),
        CLI_OPT_BOOL("--label", &labelling),
        CLI_OPT_NONEMPTY("--annotator", &annotator, "a name"),
        CLI_OPT_BOOL("--no-warm", &no_warm),
        CLI_OPT_END(),
    };

    code = cli_parse_options("view", usage_text, options, argc, argv, &n_pos);
    if (code != CLI_PARSED)
        return code;
    if (n_pos) {
        cli_error("view", "unexpected argument '%s' (see 'arbiter view --help')", argv[0]);
        return EXIT_USAGE;
    }
    if (annotator && !labelling) {
        cli_error("view", "--annotator: only with --label (labels are written only then)");
        return EXIT_USAGE;
    }
    rs = open_db(db, labelling, &st);
    if (rs)
        return cli_exit_for(rs);
    /* Block the stop signals before the server's thread exists, so only sigwait sees them. */
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);
    /* A database without runs has nothing to prepare. */
    if (!no_warm && arb_store_run_resolve(st, "latest", &warm, &err) != ARB_OK) {
        warm = 0;
        err.msg[0] = '\0';
    }
    if (warm > 0)
        fprintf(stderr, "arbiter view: preparing run %lld (its case index and report)...\n",
                (long long)warm);
    vo = (struct arb_view_opts){db, bind, port, labelling, annotator, warm};
    rs = arb_view_start(st, &vo, &v, &port, &err);
    if (rs) {
        cli_error("view", "%s", err.msg);
        arb_store_close(st);
        /* A bad --bind is the user's; a port taken (ARB_EIO) is the machine's, as documented. */
        return rs == ARB_EUSAGE ? EXIT_USAGE : EXIT_ENV;
    }
    code = EXIT_PASS;
    if (port_file && !write_port_file(port_file, port)) {
        code = EXIT_ENV;
    } else {
        fprintf(stderr, "arbiter view: serving '%s' %s at http://%s%s%s:%u/ (Ctrl-C stops)\n", db,
                labelling ? "for labelling" : "read-only", strchr(bind, ':') ? "[" : "", bind,
                strchr(bind, ':') ? "]" : "", port);
        sigwait(&sigs, &sig);
    }
    arb_view_stop(v);
    arb_store_close(st);
    if (port_file && code == EXIT_PASS)
        remove(port_file);
    return code;
}

const struct arb_cmd arb_cmd_view = {
    .name = "view",
    .summary = "browse runs in a browser and label pairs blind (a local web server)",
    .usage = usage_text,
    .run = view_cmd,
};
