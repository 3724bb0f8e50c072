/*
 * batch_store.c - the test judge's uploaded files and batches, kept in memory for the life of
 * the server, and the processing of a batch's requests.
 *
 * Processing answers each request exactly as the synchronous route answers the same body
 * (reply.c, drawn from the body with its fence code masked), counts it in the same attempt
 * table, and draws --batch-expire and --batch-error-rate from the body, the seed and the
 * attempt, so a request retried in a later batch gets a fresh draw. The wire formats of the
 * two protocols are batch_openai.c's and batch_anthropic.c's; every function here that touches
 * the store expects st->batch_lock held.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch.h"

struct sim_batch_store {
    struct sim_file **files;
    size_t nfiles, capfiles;
    struct sim_batch **batches; /* in creation order */
    size_t nbatches, capbatches;
    unsigned long long serial;
};

struct sim_batch_store *sim_batch_store_new(void)
{
    return calloc(1, sizeof(struct sim_batch_store));
}

void sim_file_free(struct sim_file *f)
{
    if (!f)
        return;
    free(f->filename);
    free(f->data);
    free(f);
}

void sim_batch_free(struct sim_batch *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->n; i++) {
        free(b->reqs[i].custom_id);
        free(b->reqs[i].body);
        free(b->reqs[i].reply);
    }
    free(b->reqs);
    free(b->model);
    cJSON_Delete(b->errors);
    cJSON_Delete(b->metadata);
    free(b->results);
    free(b);
}

void sim_batch_store_free(struct sim_batch_store *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nfiles; i++)
        sim_file_free(s->files[i]);
    for (size_t i = 0; i < s->nbatches; i++)
        sim_batch_free(s->batches[i]);
    free(s->files);
    free(s->batches);
    free(s);
}

long long sim_now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void sim_store_id(struct sim_state *st, const char *prefix, char *out, size_t cap)
{
    unsigned char d[SIM_DIGEST_LEN];
    char text[64];

    snprintf(text, sizeof(text), "%s\n%llu", prefix, ++st->batches->serial);
    if (!sim_draw(d, text, strlen(text), st->cfg->seed, "id", 0))
        memset(d, 0, sizeof(d)); /* no digest: still an id, the serial keeps it unique */
    sim_hex_id(out, cap, prefix, d);
}

/* Appends item to a growing array of pointers; 0 when out of memory. */
static int push(void ***arr, size_t *n, size_t *cap, void *item)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 16;
        void **p = realloc(*arr, c * sizeof(*p));

        if (!p)
            return 0;
        *arr = p;
        *cap = c;
    }
    (*arr)[(*n)++] = item;
    return 1;
}

int sim_store_add_file(struct sim_state *st, struct sim_file *f)
{
    struct sim_batch_store *s = st->batches;
    void **arr = (void **)s->files;
    int ok = push(&arr, &s->nfiles, &s->capfiles, f);

    s->files = (struct sim_file **)arr;
    if (!ok)
        sim_file_free(f);
    return ok;
}

int sim_store_add_batch(struct sim_state *st, struct sim_batch *b)
{
    struct sim_batch_store *s = st->batches;
    void **arr = (void **)s->batches;
    int ok = push(&arr, &s->nbatches, &s->capbatches, b);

    s->batches = (struct sim_batch **)arr;
    if (!ok)
        sim_batch_free(b);
    return ok;
}

static long file_index(const struct sim_batch_store *s, const char *id)
{
    for (size_t i = 0; i < s->nfiles; i++)
        if (!strcmp(s->files[i]->id, id))
            return (long)i;
    return -1;
}

static long batch_index(const struct sim_batch_store *s, enum sim_proto p, const char *id)
{
    for (size_t i = 0; i < s->nbatches; i++)
        if (s->batches[i]->proto == p && !strcmp(s->batches[i]->id, id))
            return (long)i;
    return -1;
}

struct sim_file *sim_store_file(struct sim_state *st, const char *id)
{
    long i = file_index(st->batches, id);

    return i < 0 ? NULL : st->batches->files[i];
}

struct sim_batch *sim_store_batch(struct sim_state *st, enum sim_proto p, const char *id)
{
    long i = batch_index(st->batches, p, id);

    return i < 0 ? NULL : st->batches->batches[i];
}

int sim_store_drop_file(struct sim_state *st, const char *id)
{
    struct sim_batch_store *s = st->batches;
    long i = file_index(s, id);

    if (i < 0)
        return 0;
    sim_file_free(s->files[i]);
    memmove(s->files + i, s->files + i + 1, (s->nfiles - (size_t)i - 1) * sizeof(*s->files));
    s->nfiles--;
    return 1;
}

int sim_store_drop_batch(struct sim_state *st, enum sim_proto p, const char *id)
{
    struct sim_batch_store *s = st->batches;
    long i = batch_index(s, p, id);

    if (i < 0)
        return 0;
    sim_batch_free(s->batches[i]);
    memmove(s->batches + i, s->batches + i + 1,
            (s->nbatches - (size_t)i - 1) * sizeof(*s->batches));
    s->nbatches--;
    return 1;
}

/* Where batch id stands among p's batches, newest first; -1 when it is not there. */
static long newest_first(const struct sim_batch_store *s, enum sim_proto p, const char *id)
{
    long k = 0;

    for (size_t i = s->nbatches; i > 0; i--) {
        if (s->batches[i - 1]->proto != p)
            continue;
        if (!strcmp(s->batches[i - 1]->id, id))
            return k;
        k++;
    }
    return -1;
}

size_t sim_store_page(struct sim_state *st, enum sim_proto p, const char *after, const char *before,
                      size_t limit, struct sim_batch **out, bool *more)
{
    struct sim_batch_store *s = st->batches;
    size_t total = 0, start = 0, end, k = 0, n = 0;
    long at;

    for (size_t i = 0; i < s->nbatches; i++)
        total += s->batches[i]->proto == p;
    if (before) {
        /* The page just before the cursor: the limit batches newer than it. */
        at = newest_first(s, p, before);
        end = at < 0 ? 0 : (size_t)at;
        start = end > limit ? end - limit : 0;
        *more = start > 0;
    } else {
        at = after ? newest_first(s, p, after) : -1;
        start = at < 0 ? 0 : (size_t)at + 1;
        end = start + limit < total ? start + limit : total;
        *more = end < total;
    }
    for (size_t i = s->nbatches; i > 0 && k < end; i--) {
        if (s->batches[i - 1]->proto != p)
            continue;
        if (k >= start)
            out[n++] = s->batches[i - 1];
        k++;
    }
    return n;
}

/* qsort has no context argument in C11: sort (id, index) pairs instead. */
struct id_at {
    const char *id;
    size_t at;
};

static int cmp_id_at(const void *a, const void *b)
{
    const struct id_at *x = a, *y = b;
    int c = strcmp(x->id, y->id);

    return c ? c : (x->at > y->at) - (x->at < y->at);
}

long sim_find_duplicates(char *const *ids, size_t n, bool *dup)
{
    struct id_at *v;
    long count = 0;

    if (n == 0)
        return 0;
    v = malloc(n * sizeof(*v));
    if (!v)
        return -1;
    for (size_t i = 0; i < n; i++) {
        v[i].id = ids[i];
        v[i].at = i;
        dup[i] = false;
    }
    qsort(v, n, sizeof(*v), cmp_id_at);
    for (size_t i = 1; i < n; i++) {
        if (!strcmp(v[i].id, v[i - 1].id)) {
            dup[v[i].at] = true;
            count++;
        }
    }
    free(v);
    return count;
}

size_t *sim_batch_order(const struct sim_state *st, const struct sim_batch *b)
{
    unsigned char d[SIM_DIGEST_LEN];
    struct sim_rng rng;
    size_t *order = malloc((b->n ? b->n : 1) * sizeof(*order));

    if (!order)
        return NULL;
    for (size_t i = 0; i < b->n; i++)
        order[i] = i;
    if (!sim_draw(d, b->id, strlen(b->id), st->cfg->seed, "order", 0))
        return order; /* no digest: input order, still a valid listing */
    sim_rng_seed(&rng, d);
    /* Fisher-Yates: clients must match results by custom_id, never by position. */
    for (size_t i = b->n; i > 1; i--) {
        size_t j = (size_t)(sim_rng_next(&rng) % i), t = order[i - 1];

        order[i - 1] = order[j];
        order[j] = t;
    }
    return order;
}

void sim_batch_req_id(const struct sim_batch *b, const struct sim_batch_req *q, const char *prefix,
                      const char *label, char *out, size_t cap)
{
    unsigned char d[SIM_DIGEST_LEN];
    const void *parts[5] = {b->id, "\n", q->custom_id, "\n", label};
    size_t lens[5] = {strlen(b->id), 1, strlen(q->custom_id), 1, strlen(label)};

    if (!sim_digest(d, 5, parts, lens))
        memset(d, 0, sizeof(d));
    sim_hex_id(out, cap, prefix, d);
}

size_t sim_batch_done_at_cancel(const struct sim_config *cfg, const struct sim_batch *b)
{
    unsigned long polls = (unsigned long)(cfg->batch_polls > 0 ? cfg->batch_polls : 1);

    if (b->polls_cancel >= polls)
        return b->n;
    return (size_t)((unsigned long long)b->n * b->polls_cancel / polls);
}

static bool drawn(const struct sim_config *cfg, const char *hashed, size_t len, const char *label,
                  unsigned long attempt, double rate)
{
    unsigned char d[SIM_DIGEST_LEN];

    if (rate <= 0)
        return false;
    return sim_draw(d, hashed, len, cfg->seed, label, attempt) && sim_digest_unit(d) < rate;
}

/* Answers, fails or expires one request; 0 when out of memory. */
static int process(struct sim_state *st, const struct sim_batch *b, struct sim_batch_req *q)
{
    const struct sim_config *cfg = st->cfg;
    char *masked = sim_mask_fence(q->body, q->len);
    const char *hashed = masked ? masked : q->body, *fault = NULL;
    unsigned char d[SIM_DIGEST_LEN];
    const void *parts[1] = {hashed};
    size_t lens[1] = {q->len};
    unsigned long long arrival;
    unsigned long attempt = 0;
    cJSON *req = NULL, *err;
    bool invalid;

    if (sim_digest(d, 1, parts, lens))
        attempt = sim_attempt_next(st, d, &arrival);
    if (attempt == 0)
        goto enomem;
    if (drawn(cfg, hashed, q->len, "batch-expire", attempt, cfg->batch_expire)) {
        q->out = SIM_OUT_EXPIRED; /* never processed, so not logged */
        free(masked);
        return 1;
    }
    if (drawn(cfg, hashed, q->len, "batch-error", attempt, cfg->batch_error_rate)) {
        err = sim_error_json(b->proto, 500, "judge_sim: batch request failed (--batch-error-rate)");
        q->reply = err ? cJSON_PrintUnformatted(err) : NULL;
        cJSON_Delete(err);
        q->out = SIM_OUT_ERRORED;
        q->status = 500;
        fault = "batch-error";
    } else {
        req = cJSON_ParseWithLength(q->body, q->len);
        invalid = drawn(cfg, hashed, q->len, "invalid", attempt, cfg->rate_invalid);
        q->reply = req ? sim_answer(cfg, b->proto, req, hashed, q->len, invalid) : NULL;
        cJSON_Delete(req);
        if (!q->reply)
            goto enomem;
        q->out = SIM_OUT_OK;
        q->status = 200;
        fault = invalid ? "invalid" : NULL;
    }
    sim_log_request(
        st, b->proto == SIM_PROTO_OPENAI ? "batch:/v1/chat/completions" : "batch:/v1/messages",
        attempt, q->status, q->body, true, fault, NULL);
    free(masked);
    return 1;
enomem:
    free(masked);
    q->out = SIM_OUT_ERRORED;
    q->status = 500;
    return 0;
}

int sim_batch_run(struct sim_state *st, struct sim_batch *b, size_t done)
{
    size_t *order = sim_batch_order(st, b), *rank;
    int ok = 1;

    if (!order)
        return 0;
    rank = malloc((b->n ? b->n : 1) * sizeof(*rank));
    if (!rank) {
        free(order);
        return 0;
    }
    for (size_t i = 0; i < b->n; i++)
        rank[order[i]] = i;
    b->n_ok = b->n_errored = b->n_expired = b->n_canceled = 0;
    /* In input order, so two requests with one body count their attempts as they were listed. */
    for (size_t i = 0; i < b->n; i++) {
        struct sim_batch_req *q = &b->reqs[i];

        if (rank[i] >= done)
            q->out = SIM_OUT_CANCELED;
        else if (!process(st, b, q))
            ok = 0;
        b->n_ok += q->out == SIM_OUT_OK;
        b->n_errored += q->out == SIM_OUT_ERRORED;
        b->n_expired += q->out == SIM_OUT_EXPIRED;
        b->n_canceled += q->out == SIM_OUT_CANCELED;
    }
    free(rank);
    free(order);
    return ok;
}

size_t sim_query_limit(const char *s, size_t def, size_t max)
{
    char *end;
    long v;

    if (!s)
        return def;
    v = strtol(s, &end, 10);
    if (end == s || *end || v < 1 || (unsigned long)v > max)
        return 0;
    return (size_t)v;
}

/* --- sim_buf --- */

void sim_buf_add(struct sim_buf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if ((b->max && b->len + n > b->max) || b->len + n + 1 < b->len) {
        b->failed = true;
        return;
    }
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        char *p;

        while (cap < b->len + n + 1)
            cap *= 2;
        p = realloc(b->data, cap);
        if (!p) {
            b->failed = true;
            return;
        }
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void sim_buf_str(struct sim_buf *b, const char *s)
{
    sim_buf_add(b, s, strlen(s));
}

void sim_buf_json(struct sim_buf *b, const char *s)
{
    cJSON *item = cJSON_CreateString(s);
    char *text = item ? cJSON_PrintUnformatted(item) : NULL;

    if (text)
        sim_buf_str(b, text);
    else
        b->failed = true;
    free(text);
    cJSON_Delete(item);
}

char *sim_buf_detach(struct sim_buf *b, size_t *len)
{
    char *out = b->failed ? NULL : b->data ? b->data : calloc(1, 1);

    if (b->failed)
        free(b->data);
    if (len)
        *len = out ? b->len : 0;
    memset(b, 0, sizeof(*b));
    return out;
}

void sim_buf_release(struct sim_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof(*b));
}

bool sim_batch_outage(struct sim_state *st, struct sim_batch *b, struct sim_reply *r)
{
    if (b->polls < 1 || b->outages >= (unsigned long)st->cfg->batch_outage)
        return false;
    b->outages++;
    sim_reply_error(r, b->proto, 503, "judge_sim: service unavailable (--batch-outage)");
    r->fault = "batch-outage";
    return true;
}

bool sim_results_outage(struct sim_state *st, unsigned long *count, enum sim_proto p,
                        struct sim_reply *r)
{
    if (*count >= (unsigned long)st->cfg->batch_outage)
        return false;
    (*count)++;
    sim_reply_error(r, p, 503, "judge_sim: service unavailable (--batch-outage)");
    r->fault = "batch-outage";
    return true;
}
