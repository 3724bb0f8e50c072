/*
 * ahead.c - a JSONL file's lines read and parsed on a thread of their own, ahead of the thread
 * that takes them (suite_int.h: ahead_*), for the suite's load: checking a million cases is
 * reading and parsing their lines (about a third of the work) and checking what the parse
 * gives, and the two now overlap.
 *
 * The lines go over in blocks of BLOCK_LINES, at most BLOCKS of them read ahead (memory stays
 * bounded), each with its lines' texts, so a parse error is located in its own line as before.
 * Nothing is decided on this thread: it hands over what line_reader_next and arb_json_parse
 * said, in the file's order, and the taker checks, refuses and reports as it did when it read
 * the lines itself, so the first error in the file is the one reported.  The thread stops at
 * the end of the file, at a read error (a line over the cap is skipped, as line_reader_next
 * allows), or when ahead_free asks.  The taker hands each parse back (ahead_recycle) for this
 * thread to free: glibc's malloc frees a block slowly on a thread that did not allocate it
 * (freed there, the load took 0.93 s instead of 0.61 s on one thread).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/json.h"
#include "suite_int.h"

#define BLOCK_LINES 256
#define BLOCKS      4

struct line_item {
    int got; /* line_reader_next's result */
    size_t lineno;
    size_t at; /* the line's text: at bytes into its block's text */
    size_t len;
    cJSON *obj; /* owned until taken, and again once handed back */
    enum arb_status parse_st;
    struct arb_err err; /* got < 0: line_reader_next's message; parse_st: the parser's */
};

struct block {
    int full; /* handed over, not yet taken whole (under mu) */
    size_t n;
    struct line_item item[BLOCK_LINES];
    struct arb_buf text;
};

struct ahead {
    struct line_reader *lr; /* read by the thread only, until ahead_free */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t changed;
    atomic_int stop;
    struct block block[BLOCKS];
    size_t take, next; /* the block being taken, and its next line */
    int holding;       /* the taker holds block take (full) */
    int ended;         /* the last line given was the end (or a read error) */
    struct line_item last;
};

/* 1 when reading ends after this result: the end, or an error but a line over the cap. */
static int final(int got)
{
    return got == 0 || (got < 0 && got != -(int)ARB_ETOOBIG);
}

/* Read and parse one line into it, its text appended to b's. */
static void read_one(struct ahead *a, struct block *b, struct line_item *it)
{
    const char *text;
    size_t len;

    /* The parse handed back (ahead_recycle) freed just before the next is made: malloc
     * reuses its blocks at once (freeing a block's worth first was slower). */
    cJSON_Delete(it->obj);
    it->obj = NULL;
    it->parse_st = ARB_OK;
    it->got = line_reader_next(a->lr, &text, &len, &it->err); /* err: only when it fails */
    it->lineno = a->lr->lineno;
    if (it->got <= 0)
        return;
    it->at = b->text.len;
    it->len = len;
    if (arb_buf_add(&b->text, text, len) || arb_buf_add(&b->text, "", 1)) {
        it->got = -(int)arb_err_set(&it->err, ARB_ENOMEM, "out of memory");
        return;
    }
    it->parse_st = arb_json_parse(text, len, ARB_JSON_NO_DUPLICATES, &it->obj, &it->err);
}

static void *ahead_thread(void *arg)
{
    struct ahead *a = arg;
    int end = 0;

    for (size_t k = 0; !end; k = (k + 1) % BLOCKS) {
        struct block *b = &a->block[k];

        pthread_mutex_lock(&a->mu);
        while (b->full && !atomic_load(&a->stop))
            pthread_cond_wait(&a->changed, &a->mu);
        pthread_mutex_unlock(&a->mu);
        if (atomic_load(&a->stop))
            break;
        arb_buf_reset(&b->text);
        for (b->n = 0; b->n < BLOCK_LINES && !end && !atomic_load(&a->stop); b->n++) {
            read_one(a, b, &b->item[b->n]);
            end = final(b->item[b->n].got);
        }
        pthread_mutex_lock(&a->mu);
        b->full = 1;
        pthread_cond_broadcast(&a->changed);
        pthread_mutex_unlock(&a->mu);
    }
    return NULL;
}

enum arb_status ahead_start(struct line_reader *lr, struct ahead **out)
{
    struct ahead *a = calloc(1, sizeof(*a));

    *out = NULL;
    if (!a)
        return ARB_ENOMEM;
    a->lr = lr;
    atomic_init(&a->stop, 0);
    for (size_t k = 0; k < BLOCKS; k++)
        arb_buf_init(&a->block[k].text, 0);
    if (pthread_mutex_init(&a->mu, NULL) != 0) {
        free(a);
        return ARB_EINTERNAL;
    }
    if (pthread_cond_init(&a->changed, NULL) != 0) {
        pthread_mutex_destroy(&a->mu);
        free(a);
        return ARB_EINTERNAL;
    }
    if (pthread_create(&a->thread, NULL, ahead_thread, a) != 0) {
        pthread_cond_destroy(&a->changed);
        pthread_mutex_destroy(&a->mu);
        free(a);
        return ARB_EINTERNAL;
    }
    *out = a;
    return ARB_OK;
}

/* Give it back as a line (its text in block b). */
static int give(const struct block *b, struct line_item *it, struct ahead_line *l,
                struct arb_err *err)
{
    if (it->got < 0) {
        if (err)
            *err = it->err;
        return it->got;
    }
    if (it->got == 0)
        return 0;
    l->text = b->text.ptr + it->at;
    l->len = it->len;
    l->lineno = it->lineno;
    l->obj = it->obj;
    it->obj = NULL; /* the taker's now */
    l->parse_st = it->parse_st;
    if (it->parse_st)
        l->parse_err = it->err;
    return 1;
}

int ahead_next(struct ahead *a, struct ahead_line *l, struct arb_err *err)
{
    struct block *b = &a->block[a->take];
    struct line_item *it;

    if (a->ended)
        return give(b, &a->last, l, err);
    if (a->holding && a->next == b->n) {
        /* this block taken whole: back to the thread */
        pthread_mutex_lock(&a->mu);
        b->full = 0;
        b->n = 0;
        pthread_cond_broadcast(&a->changed);
        pthread_mutex_unlock(&a->mu);
        a->holding = 0;
        a->next = 0;
        a->take = (a->take + 1) % BLOCKS;
        b = &a->block[a->take];
    }
    if (!a->holding) {
        /* once full, the block is the taker's until it gives it back: no lock to read it */
        pthread_mutex_lock(&a->mu);
        while (!b->full)
            pthread_cond_wait(&a->changed, &a->mu);
        pthread_mutex_unlock(&a->mu);
        a->holding = 1;
    }
    it = &b->item[a->next++];
    if (final(it->got)) {
        a->ended = 1;
        a->last = *it;
    }
    return give(b, it, l, err);
}

void ahead_recycle(struct ahead *a, cJSON *obj)
{
    a->block[a->take].item[a->next - 1].obj = obj;
}

void ahead_free(struct ahead *a)
{
    if (!a)
        return;
    pthread_mutex_lock(&a->mu);
    atomic_store(&a->stop, 1);
    pthread_cond_broadcast(&a->changed);
    pthread_mutex_unlock(&a->mu);
    pthread_join(a->thread, NULL);
    for (size_t k = 0; k < BLOCKS; k++) {
        for (size_t i = 0; i < BLOCK_LINES; i++)
            cJSON_Delete(a->block[k].item[i].obj); /* not taken, or handed back */
        arb_buf_release(&a->block[k].text);
    }
    pthread_cond_destroy(&a->changed);
    pthread_mutex_destroy(&a->mu);
    free(a);
}
