/*
 * store_writer.c - a run's writes executed on a second thread (store.h:
 * arb_store_writer_*), so that SQLite's work on one case's records overlaps
 * the evaluation of the next.
 *
 * The caller's puts copy their rows into chunks of CHUNK_OPS operations;
 * full chunks go to the writer thread through a queue of at most QUEUE of
 * them (memory stays bounded), and it executes them in order on the
 * connection, which is its alone until arb_store_writer_finish (or a sync)
 * returns.  Transactions are operations too (begin, commit), so a kill loses
 * exactly what it would without the thread: the batch not yet committed.
 *
 * Errors are asynchronous: the first failure is kept (status and message),
 * every later operation is skipped, and each call returns the first failure
 * seen so far; sync and finish give it with its message.  Without a thread
 * (none could be started, or threads were not asked for) every call executes
 * at once, with its error at once.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/buf.h"
#include "store_int.h"

#define CHUNK_OPS 512
/*
 * Chunks waiting for the writer.  A deeper queue lets the queueing thread run on through the
 * writer's slower stretches (a commit; the checkpoint thread taking the second core) instead
 * of stopping at the fifth chunk: at a million cases (bench/run.sh, two cores), interleaved runs took 33.0 s with 4, 28.8 s with 8,
 * 29.0 s with 16 and 27.0 s with 32 (means of three, a busy machine), and 4 -> 32 took 0.7 s
 * off in quieter ones, for 6 MB more at the peak (75 -> 81 MB; each chunk keeps its text's
 * room for reuse).
 */
#define QUEUE     32
#define NO_TEXT   ((size_t)-1)
#define GROUP     16 /* check records put in one call (store_put_checks) */

enum op_kind {
    OP_BEGIN,
    OP_COMMIT,
    OP_CASE,
    OP_OUTPUT,
    OP_PROBLEM,
    OP_CHECK,
    OP_BLINDING,
    OP_VERDICT,
    OP_TRIAL
};

struct op {
    enum op_kind kind;
    int64_t run;
    size_t s[6];  /* texts: offsets into the chunk's text, NO_TEXT for NULL */
    double d[4];  /* numbers */
    int64_t i[5]; /* integers */
    size_t len;   /* a check's text as stored, or a verdict's text: its length, */
    uint64_t h;   /* and its hash */
};

struct chunk {
    size_t n;
    struct op op[CHUNK_OPS];
    struct arb_buf text;
    struct chunk *next; /* in the list of spare chunks */
};

struct arb_store_writer {
    struct arb_store *st;
    int threaded;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t changed;
    struct chunk *queue[QUEUE];
    size_t head, count;
    int busy;    /* the thread is executing a chunk */
    int closing; /* no more chunks: the thread ends when the queue is empty */
    struct chunk *filling;
    struct arb_buf cut; /* a check record's text as stored, made by the queueing thread */
    struct chunk *spare; /* executed chunks, kept for reuse with their text's room (under mu) */
    size_t n_spare;
    atomic_int failed;  /* the first failure (an enum arb_status; set under mu) */
    struct arb_err err; /* its message (under mu) */
};

static void chunk_free(struct chunk *c)
{
    if (c) {
        arb_buf_release(&c->text);
        free(c);
    }
}

static const char *text(const struct chunk *c, size_t off)
{
    return off == NO_TEXT ? NULL : c->text.ptr + off;
}

/* Execute one operation on the connection. */
static enum arb_status execute(struct arb_store *st, const struct chunk *c, const struct op *o,
                               struct arb_err *err)
{
    switch (o->kind) {
    case OP_BEGIN:
        return arb_store_begin(st, err);
    case OP_COMMIT:
        return arb_store_commit(st, err);
    case OP_CASE:
        return arb_store_put_case(st, o->run, text(c, o->s[0]), o->i[0], text(c, o->s[1]),
                                  text(c, o->s[2]), text(c, o->s[3]), err);
    case OP_OUTPUT: {
        struct arb_output_row row = {text(c, o->s[0]), text(c, o->s[1]), text(c, o->s[2]),
                                     text(c, o->s[3]), (size_t)o->i[0],  (int)o->i[1],
                                     text(c, o->s[4]), text(c, o->s[5]), o->i[2]};

        return arb_store_put_output(st, o->run, &row, err);
    }
    case OP_PROBLEM:
        return arb_store_put_problem(st, o->run, text(c, o->s[0]), text(c, o->s[1]),
                                     text(c, o->s[2]), text(c, o->s[3]), err);
    case OP_CHECK: {
        struct arb_check_row row = {text(c, o->s[0]), text(c, o->s[1]), text(c, o->s[2]),
                                    text(c, o->s[3]), text(c, o->s[4]), text(c, o->s[5]),
                                    o->d[0],          (int)o->i[0],     (int)o->i[1]};

        return arb_store_put_check(st, o->run, &row, err);
    }
    case OP_BLINDING:
        return arb_store_put_blinding(st, o->run, text(c, o->s[0]), text(c, o->s[1]),
                                      text(c, o->s[2]), text(c, o->s[3]), err);
    case OP_VERDICT: {
        struct arb_verdict_row v = {text(c, o->s[0]), text(c, o->s[1]), text(c, o->s[2]),
                                    text(c, o->s[3]), text(c, o->s[4]), o->d[0],
                                    o->d[1],          o->d[2],          o->d[3],
                                    text(c, o->s[5])};
        struct store_verdict_text t = {o->len, o->h}; /* made by the queueing thread */

        /* i[0]: the judge's final verdict, replacing the pending one. */
        return store_write_verdict(st, o->run, &v, &t, (int)o->i[0], err);
    }
    case OP_TRIAL: {
        struct arb_trial_row t = {text(c, o->s[0]), text(c, o->s[1]), o->i[0], (int)o->i[1],
                                  o->i[2],          o->i[3],          o->i[4], text(c, o->s[2])};

        return arb_store_put_trial(st, o->run, &t, err);
    }
    }
    return arb_err_set(err, ARB_EINTERNAL, "store writer: unknown operation %d", (int)o->kind);
}

/*
 * Execute the consecutive check records at c->op[k..) (at most GROUP of them, of one run) in
 * one call; *m how many.
 */
static enum arb_status put_checks(struct arb_store *st, const struct chunk *c, size_t k,
                                  size_t *m, struct arb_err *err)
{
    struct arb_check_row rows[GROUP];
    struct store_check_text texts[GROUP];
    size_t n = 0;

    while (k + n < c->n && n < GROUP && c->op[k + n].kind == OP_CHECK &&
           c->op[k + n].run == c->op[k].run) {
        const struct op *o = &c->op[k + n];

        /* s[4] is the text as stored, made by the queueing thread (arb_store_writer_put_check),
         * which the record is not needed beside. */
        rows[n] = (struct arb_check_row){text(c, o->s[0]), text(c, o->s[1]), text(c, o->s[2]),
                                         text(c, o->s[3]), text(c, o->s[4]), text(c, o->s[5]),
                                         o->d[0],          (int)o->i[0],     (int)o->i[1]};
        texts[n] = (struct store_check_text){text(c, o->s[4]), o->len, {o->i[2], o->i[3]}, o->h};
        n++;
    }
    *m = n;
    return store_put_checks(st, c->op[k].run, rows, texts, n, err);
}

static void *writer_thread(void *arg)
{
    struct arb_store_writer *w = arg;

    pthread_mutex_lock(&w->mu);
    for (;;) {
        struct chunk *c;
        enum arb_status failed;
        struct arb_err e = {{0}};

        while (w->count == 0 && !w->closing)
            pthread_cond_wait(&w->changed, &w->mu);
        if (w->count == 0)
            break;
        c = w->queue[w->head];
        w->head = (w->head + 1) % QUEUE;
        w->count--;
        w->busy = 1;
        failed = (enum arb_status)atomic_load(&w->failed);
        pthread_cond_broadcast(&w->changed);
        pthread_mutex_unlock(&w->mu);
        for (size_t k = 0, m = 1; k < c->n && !failed; k += m) {
            m = 1;
            if (c->op[k].kind == OP_CHECK)
                failed = put_checks(w->st, c, k, &m, &e);
            else
                failed = execute(w->st, c, &c->op[k], &e);
        }
        pthread_mutex_lock(&w->mu);
        if (w->n_spare < QUEUE) {
            c->next = w->spare;
            w->spare = c;
            w->n_spare++;
        } else {
            chunk_free(c);
        }
        if (!atomic_load(&w->failed) && failed) {
            w->err = e;
            atomic_store(&w->failed, (int)failed);
        }
        w->busy = 0;
        pthread_cond_broadcast(&w->changed);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Hand the filling chunk to the thread, waiting for room in the queue. */
static void hand_over(struct arb_store_writer *w)
{
    if (!w->filling)
        return;
    pthread_mutex_lock(&w->mu);
    while (w->count == QUEUE)
        pthread_cond_wait(&w->changed, &w->mu);
    w->queue[(w->head + w->count++) % QUEUE] = w->filling;
    w->filling = NULL;
    pthread_cond_broadcast(&w->changed);
    pthread_mutex_unlock(&w->mu);
}

/*
 * The first failure so far, with its message in err; no lock on the way
 * through, taken for every write, only once something failed.
 */
static enum arb_status failure(struct arb_store_writer *w, struct arb_err *err)
{
    enum arb_status f = (enum arb_status)atomic_load_explicit(&w->failed, memory_order_acquire);

    if (f && err) {
        pthread_mutex_lock(&w->mu);
        *err = w->err;
        pthread_mutex_unlock(&w->mu);
    }
    return f;
}

/* A new operation in the filling chunk, or NULL when out of memory (then w->failed is set). */
static struct op *new_op(struct arb_store_writer *w, enum op_kind kind, int64_t run)
{
    struct op *o;

    if (w->filling && w->filling->n == CHUNK_OPS)
        hand_over(w);
    if (!w->filling) {
        /* A spare chunk when there is one: no allocation, and its text has room already. */
        pthread_mutex_lock(&w->mu);
        w->filling = w->spare;
        if (w->spare) {
            w->spare = w->spare->next;
            w->n_spare--;
        }
        pthread_mutex_unlock(&w->mu);
        if (!w->filling) {
            w->filling = malloc(sizeof(*w->filling));
            if (!w->filling)
                return NULL;
            arb_buf_init(&w->filling->text, 0);
        }
        w->filling->n = 0;
        arb_buf_reset(&w->filling->text);
    }
    o = &w->filling->op[w->filling->n];
    memset(o, 0, sizeof(*o));
    o->kind = kind;
    o->run = run;
    return o;
}

/*
 * Copy s (len bytes, then a NUL) into the filling chunk's text; its offset in
 * *off.  Non-zero when out of memory.
 */
static int keep(struct arb_store_writer *w, const char *s, size_t len, size_t *off)
{
    *off = s ? w->filling->text.len : NO_TEXT;
    return s && (arb_buf_add(&w->filling->text, s, len) != ARB_OK ||
                 arb_buf_add(&w->filling->text, "", 1) != ARB_OK);
}

/*
 * Queue an operation whose texts are t[0..n_t) (NUL-terminated, but for
 * t[len_of] when len_of < n_t, which is len bytes); the caller fills the
 * rest of *o.
 */
static enum arb_status queue_op_n(struct arb_store_writer *w, struct op *o, const char *const *t,
                                  size_t n_t, size_t len_of, size_t len, struct arb_err *err)
{
    int bad = !o;

    for (size_t k = 0; !bad && k < n_t; k++)
        bad = keep(w, t[k], k == len_of ? len : t[k] ? strlen(t[k]) : 0, &o->s[k]);
    if (bad) {
        pthread_mutex_lock(&w->mu);
        if (!atomic_load(&w->failed)) {
            arb_err_set(&w->err, ARB_ENOMEM, "out of memory queueing a write");
            atomic_store(&w->failed, ARB_ENOMEM);
        }
        pthread_mutex_unlock(&w->mu);
    } else
        w->filling->n++;
    return failure(w, err);
}

static enum arb_status queue_op(struct arb_store_writer *w, struct op *o, const char *const *t,
                                size_t n_t, struct arb_err *err)
{
    return queue_op_n(w, o, t, n_t, (size_t)-1, 0, err);
}

enum arb_status arb_store_writer_start(struct arb_store *st, int threaded,
                                       struct arb_store_writer **out, struct arb_err *err)
{
    struct arb_store_writer *w = calloc(1, sizeof(*w));

    *out = NULL;
    if (!w)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    arb_buf_init(&w->cut, 0);
    w->st = st;
    atomic_init(&w->failed, ARB_OK);
    /* The writer only inserts the records of a run that exists: checking each row's run
     * against runs (foreign keys) was a fourteenth of its work; on again at the finish. */
    if (threaded)
        store_foreign_keys(st, 0);
    if (threaded && pthread_mutex_init(&w->mu, NULL) == 0) {
        if (pthread_cond_init(&w->changed, NULL) == 0) {
            w->threaded = pthread_create(&w->thread, NULL, writer_thread, w) == 0;
            if (!w->threaded)
                pthread_cond_destroy(&w->changed);
        }
        if (!w->threaded)
            pthread_mutex_destroy(&w->mu);
    }
    if (w->threaded)
        store_ckpt_start(st); /* the writer thread writes; another copies into the database */
    *out = w;
    return ARB_OK;
}

int arb_store_writer_threaded(const struct arb_store_writer *w)
{
    return w->threaded;
}

enum arb_status arb_store_writer_begin(struct arb_store_writer *w, struct arb_err *err)
{
    if (!w->threaded)
        return arb_store_begin(w->st, err);
    return queue_op(w, new_op(w, OP_BEGIN, 0), NULL, 0, err);
}

enum arb_status arb_store_writer_commit(struct arb_store_writer *w, struct arb_err *err)
{
    if (!w->threaded)
        return arb_store_commit(w->st, err);
    return queue_op(w, new_op(w, OP_COMMIT, 0), NULL, 0, err);
}

enum arb_status arb_store_writer_put_case(struct arb_store_writer *w, int64_t run,
                                          const char *case_id, int64_t seq, const char *prompt,
                                          const char *expected_json, const char *case_json,
                                          struct arb_err *err)
{
    const char *t[4] = {case_id, prompt, expected_json, case_json};
    struct op *o;

    if (!w->threaded)
        return arb_store_put_case(w->st, run, case_id, seq, prompt, expected_json, case_json, err);
    o = new_op(w, OP_CASE, run);
    if (o)
        o->i[0] = seq;
    return queue_op(w, o, t, 4, err);
}

enum arb_status arb_store_writer_put_output(struct arb_store_writer *w, int64_t run,
                                            const struct arb_output_row *r, struct arb_err *err)
{
    const char *t[6] = {r->case_id, r->system, r->file, r->content, r->sha256, r->meta_json};
    struct op *o;

    if (!w->threaded)
        return arb_store_put_output(w->st, run, r, err);
    o = new_op(w, OP_OUTPUT, run);
    if (o) {
        o->i[0] = (int64_t)r->len;
        o->i[1] = r->binary;
        o->i[2] = r->trial;
    }
    return queue_op_n(w, o, t, 6, 3, r->content ? r->len : 0, err);
}

enum arb_status arb_store_writer_put_problem(struct arb_store_writer *w, int64_t run,
                                             const char *kind, const char *case_id,
                                             const char *system, const char *message,
                                             struct arb_err *err)
{
    const char *t[4] = {kind, case_id, system, message};

    if (!w->threaded)
        return arb_store_put_problem(w->st, run, kind, case_id, system, message, err);
    return queue_op(w, new_op(w, OP_PROBLEM, run), t, 4, err);
}

enum arb_status arb_store_writer_put_check(struct arb_store_writer *w, int64_t run,
                                           const struct arb_check_row *c, struct arb_err *err)
{
    struct store_check_text st;
    const char *t[6];
    struct op *o;

    if (!w->threaded || !c || !c->record_json || !c->verdict)
        return arb_store_put_check(w->st, run, c, err);
    /* The text as stored, and its hash, made here: the writer is the run's longer thread. */
    if (store_check_text(c, run, &w->cut, &st) != ARB_OK)
        return arb_err_set(err, ARB_ENOMEM, "out of memory queueing a check");
    t[0] = c->case_id, t[1] = c->system, t[2] = c->kind, t[3] = c->item, t[4] = st.text;
    t[5] = c->verdict;
    o = new_op(w, OP_CHECK, run);
    if (o) {
        o->d[0] = c->score;
        o->i[0] = c->observed_is_output;
        o->i[1] = c->expected_is_case;
        o->i[2] = st.at[0];
        o->i[3] = st.at[1];
        o->len = st.len;
        o->h = st.hash;
    }
    return queue_op_n(w, o, t, 6, 4, st.len, err);
}

enum arb_status arb_store_writer_put_blinding(struct arb_store_writer *w, int64_t run,
                                              const char *case_id, const char *system_a,
                                              const char *system_b, const char *hmac_hex,
                                              struct arb_err *err)
{
    const char *t[4] = {case_id, system_a, system_b, hmac_hex};

    if (!w->threaded)
        return arb_store_put_blinding(w->st, run, case_id, system_a, system_b, hmac_hex, err);
    return queue_op(w, new_op(w, OP_BLINDING, run), t, 4, err);
}

static enum arb_status verdict_op(struct arb_store_writer *w, int64_t run,
                                  const struct arb_verdict_row *v, int replace,
                                  struct arb_err *err)
{
    const char *t[6] = {v->case_id, v->system_a, v->system_b,
                        v->status,  v->winner,   v->comparison_json};
    struct store_verdict_text vt;
    struct op *o;

    if (!w->threaded)
        return replace ? arb_store_set_verdict(w->st, run, v, err)
                       : arb_store_put_verdict(w->st, run, v, err);
    /* The text's length and hash made here, as a check's: the writer only looks it up. */
    store_verdict_text(v, run, &vt);
    o = new_op(w, OP_VERDICT, run);
    if (o) {
        o->d[0] = v->score_a;
        o->d[1] = v->score_b;
        o->d[2] = v->pass_rate_a;
        o->d[3] = v->pass_rate_b;
        o->i[0] = replace;
        o->len = vt.len;
        o->h = vt.hash;
    }
    return queue_op_n(w, o, t, 6, 5, vt.len, err);
}

enum arb_status arb_store_writer_put_verdict(struct arb_store_writer *w, int64_t run,
                                             const struct arb_verdict_row *v, struct arb_err *err)
{
    return verdict_op(w, run, v, 0, err);
}

enum arb_status arb_store_writer_set_verdict(struct arb_store_writer *w, int64_t run,
                                             const struct arb_verdict_row *v, struct arb_err *err)
{
    return verdict_op(w, run, v, 1, err);
}

enum arb_status arb_store_writer_put_trial(struct arb_store_writer *w, int64_t run,
                                           const struct arb_trial_row *tr, struct arb_err *err)
{
    const char *t[3] = {tr->case_id, tr->system, tr->records_json};
    struct op *o;

    if (!w->threaded)
        return arb_store_put_trial(w->st, run, tr, err);
    o = new_op(w, OP_TRIAL, run);
    if (o) {
        o->i[0] = tr->trial;
        o->i[1] = tr->passed;
        o->i[2] = tr->n_pass;
        o->i[3] = tr->n_fail;
        o->i[4] = tr->n_unresolved;
    }
    return queue_op(w, o, t, 3, err);
}

/* Wait until every queued operation has been executed. */
static void drain(struct arb_store_writer *w)
{
    hand_over(w);
    pthread_mutex_lock(&w->mu);
    while (w->count || w->busy)
        pthread_cond_wait(&w->changed, &w->mu);
    pthread_mutex_unlock(&w->mu);
}

enum arb_status arb_store_writer_sync(struct arb_store_writer *w, struct arb_err *err)
{
    if (!w->threaded)
        return ARB_OK;
    enum arb_status f;

    drain(w);
    pthread_mutex_lock(&w->mu);
    f = (enum arb_status)atomic_load(&w->failed);
    if (f)
        *err = w->err;
    pthread_mutex_unlock(&w->mu);
    return f;
}

enum arb_status arb_store_writer_finish(struct arb_store_writer *w, struct arb_err *err)
{
    enum arb_status f = ARB_OK;

    if (!w)
        return ARB_OK;
    if (w->threaded) {
        hand_over(w);
        pthread_mutex_lock(&w->mu);
        w->closing = 1;
        pthread_cond_broadcast(&w->changed);
        pthread_mutex_unlock(&w->mu);
        pthread_join(w->thread, NULL);
        store_ckpt_stop(w->st);
        chunk_free(w->filling);
        while (w->spare) {
            struct chunk *c = w->spare;

            w->spare = c->next;
            chunk_free(c);
        }
        pthread_cond_destroy(&w->changed);
        pthread_mutex_destroy(&w->mu);
        f = (enum arb_status)atomic_load(&w->failed);
        if (f && err)
            *err = w->err;
    }
    store_foreign_keys(w->st, 1);
    arb_buf_release(&w->cut);
    free(w);
    return f;
}
