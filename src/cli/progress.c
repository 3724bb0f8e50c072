/*
 * progress.c - the progress line (progress.h).  The library reports every
 * step; this file decides how often to draw: at most every 100 ms, and at
 * once when a phase changes, so a million-case run costs a clock read per
 * case and nothing more.
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "arbiter/judge.h"
#include "arbiter/run.h"
#include "cli.h"
#include "progress.h"

#define REDRAW_S 0.1

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void cli_progress_start(struct cli_progress *p, const char *cmd)
{
    p->cmd = cmd;
    p->on = p->mode == CLI_PROGRESS_ALWAYS ||
            (p->mode == CLI_PROGRESS_AUTO && isatty(STDERR_FILENO));
    p->printed = 0;
    p->phase = -1;
    p->start = p->last = now_s();
}

/* "1:02:03" or "2:03" */
static void clock_text(double s, char *out, size_t n)
{
    unsigned long t = s > 0 && s < 1e7 ? (unsigned long)(s + 0.5) : 0;

    if (t >= 3600)
        snprintf(out, n, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(out, n, "%lu:%02lu", t / 60, t % 60);
}

static void draw(struct cli_progress *p, const char *line)
{
    /* \r to the start, the line, then erase what a longer previous line left. */
    fprintf(stderr, "\r%s: ", p->cmd);
    cli_fputs_shown(line, stderr); /* a system name is data: it must not move the cursor */
    fputs("\033[K", stderr);
    fflush(stderr);
    p->printed = 1;
}

static size_t judge_text(const struct cli_progress *p, const struct arb_judge_progress *jp,
                         char *out, size_t n)
{
    int k;

    if (!jp || n == 0)
        return 0;
    k = snprintf(out, n, "judge %zu sent, %zu in flight, %zu answered, %zu failed, %zu cached",
                 jp->sent, jp->in_flight, jp->answered, jp->failed, jp->cached);
    if (k > 0 && (size_t)k < n && jp->held)
        k += snprintf(out + k, n - (size_t)k, ", %zu held (budget)", jp->held);
    if (k > 0 && (size_t)k < n && p->show_cost)
        k += snprintf(out + k, n - (size_t)k, ", $%.4f", jp->cost_usd);
    return k > 0 ? (size_t)k : 0;
}

void cli_progress_run(void *ctx, const struct arb_run_progress *rp)
{
    struct cli_progress *p = ctx;
    char line[512], judge[256], eta[32], el[32];
    double t;
    int n = 0;

    if (!p->on)
        return;
    t = now_s();
    if ((int)rp->phase != p->phase) {
        p->phase = (int)rp->phase;
        p->start = t;
    } else if (t - p->last < REDRAW_S && !(rp->total && rp->done == rp->total)) {
        return;
    }
    p->last = t;
    judge_text(p, rp->judge, judge, sizeof(judge));
    if (rp->phase == ARB_RUN_LOADING_CASES) {
        n = snprintf(line, sizeof(line), "loading cases: %zu", rp->done);
    } else if (rp->phase == ARB_RUN_LOADING_OUTPUTS) {
        n = snprintf(line, sizeof(line), "loading outputs of '%s': %zu",
                     rp->system ? rp->system : "", rp->done);
    } else {
        double rate = t > p->start ? (double)rp->done / (t - p->start) : 0.0;

        clock_text(t - p->start, el, sizeof(el));
        n = snprintf(line, sizeof(line), "%zu/%zu cases (%.0f%%), %.0f/s, %s", rp->done,
                     rp->total, rp->total ? 100.0 * (double)rp->done / (double)rp->total : 100.0,
                     rate, el);
        if (n > 0 && (size_t)n < sizeof(line) && rate > 0 && rp->done < rp->total) {
            clock_text((double)(rp->total - rp->done) / rate, eta, sizeof(eta));
            n += snprintf(line + n, sizeof(line) - (size_t)n, ", ETA %s", eta);
        }
        if (n > 0 && (size_t)n < sizeof(line) && rp->judge)
            snprintf(line + n, sizeof(line) - (size_t)n, " | %s", judge);
    }
    draw(p, line);
}

void cli_progress_judge(void *ctx, const struct arb_judge_progress *jp)
{
    struct cli_progress *p = ctx;
    char line[512], judge[256], el[32];
    double t;
    size_t finished = jp->answered + jp->failed + jp->cached;

    if (!p->on)
        return;
    t = now_s();
    if (t - p->last < REDRAW_S && finished < jp->planned)
        return;
    p->last = t;
    judge_text(p, jp, judge, sizeof(judge));
    clock_text(t - p->start, el, sizeof(el));
    snprintf(line, sizeof(line), "%zu/%zu requests, %s | %s", finished, jp->planned, el, judge);
    draw(p, line);
}

void cli_progress_notice(void *ctx, const char *msg)
{
    struct cli_progress *p = ctx;

    /* Off the progress line first, so the message stands on a line of its own. */
    if (p->on && p->printed)
        fputs("\r\033[K", stderr);
    p->printed = 0;
    fprintf(stderr, "%s: ", p->cmd);
    cli_fputs_shown(msg, stderr); /* the provider's words are data */
    fputc('\n', stderr);
    fflush(stderr);
}

void cli_progress_end(struct cli_progress *p)
{
    if (p->on && p->printed)
        fputc('\n', stderr);
    p->printed = 0;
}
