/*
 * store_ahead.c - a run's verdicts read on a second thread while the caller
 * works on the ones already read (store.h: arb_store_verdicts_ahead).
 *
 * A report spends about as long stepping SQLite through the verdicts as it
 * does parsing and counting them; with the reading on its own thread the two
 * overlap.  The reader copies each row's texts into a batch and hands full
 * batches over through a queue of at most QUEUE of them, so memory stays
 * bounded whatever the run's size; the caller's callback runs on the
 * caller's thread, in case order, exactly as with arb_store_verdicts.  The
 * callback may use the store while the reader runs only on a connection
 * SQLite serializes (one opened without ARB_STORE_UNSHARED: a report's).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/buf.h"
#include "store_int.h"

#define BATCH_ROWS 128
#define QUEUE      4

enum { F_CASE, F_A, F_B, F_STATUS, F_WINNER, F_JSON, N_TEXT };

struct batch {
    size_t n;
    struct {
        size_t off[N_TEXT]; /* offsets into text, (size_t)-1 for NULL */
        double score_a, score_b, pass_rate_a, pass_rate_b;
    } row[BATCH_ROWS];
    struct arb_buf text;
};

struct ahead {
    pthread_mutex_t mu;
    pthread_cond_t changed;
    struct batch *queue[QUEUE];
    size_t head, count;
    struct batch *filling; /* the reader's */
    int done;              /* the reader has finished (status in st) */
    int stop;              /* the caller wants no more rows */
    enum arb_status st;    /* the reader's status (ARB_ENOMEM when a copy failed) */
    struct arb_store *store;
    int64_t run;
    struct arb_err *err;
};

static void batch_free(struct batch *b)
{
    if (b) {
        arb_buf_release(&b->text);
        free(b);
    }
}

/* Hand the filled batch over, waiting for room; 1 when the caller has stopped. */
static int hand_over(struct ahead *a)
{
    int stop;

    pthread_mutex_lock(&a->mu);
    while (a->count == QUEUE && !a->stop)
        pthread_cond_wait(&a->changed, &a->mu);
    stop = a->stop;
    if (!stop) {
        a->queue[(a->head + a->count++) % QUEUE] = a->filling;
        a->filling = NULL;
        pthread_cond_broadcast(&a->changed);
    }
    pthread_mutex_unlock(&a->mu);
    return stop;
}

static int copy_row(void *ctx, const struct arb_verdict_row *v)
{
    struct ahead *a = ctx;
    const char *f[N_TEXT] = {v->case_id, v->system_a, v->system_b,
                             v->status,  v->winner,   v->comparison_json};
    struct batch *b = a->filling;

    if (!b) {
        b = a->filling = malloc(sizeof(*b));
        if (!b) {
            a->st = ARB_ENOMEM;
            return 1;
        }
        b->n = 0;
        arb_buf_init(&b->text, 0);
    }
    for (int k = 0; k < N_TEXT; k++) {
        b->row[b->n].off[k] = f[k] ? b->text.len : (size_t)-1;
        if (f[k] && arb_buf_add(&b->text, f[k], strlen(f[k]) + 1)) {
            a->st = ARB_ENOMEM;
            return 1;
        }
    }
    b->row[b->n].score_a = v->score_a;
    b->row[b->n].score_b = v->score_b;
    b->row[b->n].pass_rate_a = v->pass_rate_a;
    b->row[b->n].pass_rate_b = v->pass_rate_b;
    return ++b->n == BATCH_ROWS && hand_over(a);
}

static void *reader(void *arg)
{
    struct ahead *a = arg;
    enum arb_status st = arb_store_verdicts(a->store, a->run, NULL, copy_row, a, a->err);

    if (!st && !a->st && a->filling)
        hand_over(a);
    pthread_mutex_lock(&a->mu);
    if (!a->st)
        a->st = st;
    a->done = 1;
    pthread_cond_broadcast(&a->changed);
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

/* The next batch, or NULL when the reader is done and the queue empty. */
static struct batch *take(struct ahead *a)
{
    struct batch *b = NULL;

    pthread_mutex_lock(&a->mu);
    while (a->count == 0 && !a->done)
        pthread_cond_wait(&a->changed, &a->mu);
    if (a->count) {
        b = a->queue[a->head];
        a->head = (a->head + 1) % QUEUE;
        a->count--;
        pthread_cond_broadcast(&a->changed);
    }
    pthread_mutex_unlock(&a->mu);
    return b;
}

static const char *text_at(const struct batch *b, size_t off)
{
    return off == (size_t)-1 ? NULL : b->text.ptr + off;
}

enum arb_status arb_store_verdicts_ahead(struct arb_store *st, int64_t run,
                                         int (*fn)(void *ctx, const struct arb_verdict_row *v),
                                         void *ctx, struct arb_err *err)
{
    struct ahead a;
    pthread_t t;
    struct batch *b;
    int stopped = 0;

    memset(&a, 0, sizeof(a));
    a.store = st;
    a.run = run;
    a.err = err;
    if (pthread_mutex_init(&a.mu, NULL))
        return arb_store_verdicts(st, run, NULL, fn, ctx, err);
    if (pthread_cond_init(&a.changed, NULL)) {
        pthread_mutex_destroy(&a.mu);
        return arb_store_verdicts(st, run, NULL, fn, ctx, err);
    }
    if (pthread_create(&t, NULL, reader, &a)) {
        pthread_cond_destroy(&a.changed);
        pthread_mutex_destroy(&a.mu);
        return arb_store_verdicts(st, run, NULL, fn, ctx, err);
    }
    while ((b = take(&a)) != NULL) {
        for (size_t i = 0; i < b->n && !stopped; i++) {
            struct arb_verdict_row v;

            v.case_id = text_at(b, b->row[i].off[F_CASE]);
            v.system_a = text_at(b, b->row[i].off[F_A]);
            v.system_b = text_at(b, b->row[i].off[F_B]);
            v.status = text_at(b, b->row[i].off[F_STATUS]);
            v.winner = text_at(b, b->row[i].off[F_WINNER]);
            v.comparison_json = text_at(b, b->row[i].off[F_JSON]);
            v.score_a = b->row[i].score_a;
            v.score_b = b->row[i].score_b;
            v.pass_rate_a = b->row[i].pass_rate_a;
            v.pass_rate_b = b->row[i].pass_rate_b;
            stopped = fn(ctx, &v) != 0;
        }
        batch_free(b);
        if (stopped) {
            pthread_mutex_lock(&a.mu);
            a.stop = 1;
            pthread_cond_broadcast(&a.changed);
            pthread_mutex_unlock(&a.mu);
            break;
        }
    }
    pthread_join(t, NULL);
    /* What the reader left behind after a stop or a failure. */
    while (a.count) {
        batch_free(a.queue[a.head]);
        a.head = (a.head + 1) % QUEUE;
        a.count--;
    }
    batch_free(a.filling);
    pthread_cond_destroy(&a.changed);
    pthread_mutex_destroy(&a.mu);
    if (a.st == ARB_ENOMEM && !stopped)
        return arb_err_set(err, ARB_ENOMEM, "out of memory reading the verdicts");
    return stopped ? ARB_OK : a.st;
}
