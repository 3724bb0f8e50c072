/*
 * batch.h - what the test judge's batch routes share: the request as handler.c read it, the
 * store of uploaded files and batches (batch_store.c), and the protocol halves that speak
 * OpenAI's Files and Batch API (batch_openai.c) and Anthropic's Message Batches
 * (batch_anthropic.c).
 *
 * A batch holds its requests as the compact JSON text of each one's body (OpenAI) or params
 * (Anthropic): that text is what a request is answered from, exactly as the synchronous route
 * answers a body it receives (reply.c). Nothing advances on a clock: a batch moves on when it
 * is read (--batch-polls), so tests do not depend on timing.
 *
 * Ownership: the store owns every file and batch; all of it is read and written with
 * st->batch_lock held. Structures handed out by the lookups are borrowed under that lock.
 */
#ifndef JUDGE_SIM_BATCH_H
#define JUDGE_SIM_BATCH_H

#include "judge_sim.h"

/* OpenAI: 50,000 requests and 200 MB per batch file; Anthropic: 100,000 requests and 256 MB
 * per batch. */
#define SIM_OPENAI_MAX_REQUESTS    50000
#define SIM_OPENAI_MAX_FILE        (200u * 1000u * 1000u)
#define SIM_ANTHROPIC_MAX_REQUESTS 100000
#define SIM_ANTHROPIC_MAX_BODY     (256u * 1024u * 1024u)
/* An upload's multipart framing on top of its file. */
#define SIM_UPLOAD_SLACK (1u << 20)

/* One HTTP request to a batch route, as handler.c read it; every member borrowed. */
struct sim_http {
    const char *method;
    const char *url;  /* the path, without the query */
    const char *body; /* NUL-terminated, len bytes; "" without a body */
    size_t len;
    const char *content_type; /* the header, or NULL */
    const char *host;         /* the Host header, or NULL */
    /* Query arguments, NULL when absent. */
    const char *limit, *after, *after_id, *before_id;
};

/* A growable text with a cap: a failed append (memory, or past cap) sets failed and later
 * appends do nothing, so a builder checks once at the end. */
struct sim_buf {
    char *data;
    size_t len, cap, max;
    bool failed;
};

void sim_buf_add(struct sim_buf *b, const char *s, size_t n);
void sim_buf_str(struct sim_buf *b, const char *s);
/* Appends s as a JSON string, quoted and escaped. */
void sim_buf_json(struct sim_buf *b, const char *s);
/* The text (NUL-terminated, owned by the caller) and its length, or NULL if an append failed;
 * the buffer is released either way. */
char *sim_buf_detach(struct sim_buf *b, size_t *len);
void sim_buf_release(struct sim_buf *b);

enum sim_outcome {
    SIM_OUT_PENDING, /* not processed yet */
    SIM_OUT_OK,      /* reply holds the 200 body */
    SIM_OUT_ERRORED, /* reply holds the error body (or NULL: out of memory), status its code */
    SIM_OUT_EXPIRED, /* left unprocessed when the batch expired */
    SIM_OUT_CANCELED /* left unprocessed when the batch was cancelled */
};

struct sim_batch_req {
    char *custom_id; /* owned */
    char *body;      /* owned: the compact JSON the request is answered from */
    size_t len;
    enum sim_outcome out;
    int status;
    char *reply; /* owned, or NULL */
};

/* The states of both protocols; Anthropic shows validating, in_progress and finalizing as
 * "in_progress", cancelling as "canceling", and every end as "ended". */
enum sim_batch_status {
    SIM_B_VALIDATING,
    SIM_B_FAILED,
    SIM_B_IN_PROGRESS,
    SIM_B_FINALIZING,
    SIM_B_COMPLETED,
    SIM_B_EXPIRED,
    SIM_B_CANCELLING,
    SIM_B_CANCELLED
};

struct sim_file {
    char id[48];
    char *filename;      /* owned */
    const char *purpose; /* static: "batch" or "batch_output" */
    char *data;          /* owned, NUL-terminated */
    size_t len;
    long long created_us;
    unsigned long outages; /* content downloads answered 503 by --batch-outage so far */
};

/* Times are Unix microseconds, 0 while the event has not happened. */
struct sim_batch {
    char id[48];
    enum sim_proto proto;
    enum sim_batch_status status;
    unsigned long polls;        /* status reads so far */
    unsigned long polls_cancel; /* the reads before the cancel, when cancelled */
    unsigned long outages;      /* status reads answered 503 by --batch-outage so far */
    unsigned long res_outages;  /* results downloads answered 503 by --batch-outage so far */
    long long created_us, in_progress_us, finalizing_us, ended_us, cancelling_us;
    struct sim_batch_req *reqs; /* owned, n of them */
    size_t n;
    size_t n_ok, n_errored, n_expired, n_canceled;
    /* OpenAI */
    char input_file_id[48], output_file_id[48], error_file_id[48]; /* "" for none */
    char *model;     /* owned: the model of the requests, or NULL */
    cJSON *errors;   /* owned: validation errors (an array of BatchError), or NULL */
    cJSON *metadata; /* owned, or NULL */
    /* Anthropic: the results (JSONL, owned) once ended. */
    char *results;
    size_t results_len;
};

/* batch_store.c */
struct sim_batch_store *sim_batch_store_new(void);
void sim_batch_store_free(struct sim_batch_store *s);
/* With the lock held: a fresh id, prefix then 24 hex digits drawn from the seed and a serial
 * number, so a server started with the same seed hands out the same ids in the same order. */
void sim_store_id(struct sim_state *st, const char *prefix, char *out, size_t cap);
/* Adds (taking ownership; freed on failure) and returns 1, or 0 when out of memory. */
int sim_store_add_file(struct sim_state *st, struct sim_file *f);
int sim_store_add_batch(struct sim_state *st, struct sim_batch *b);
struct sim_file *sim_store_file(struct sim_state *st, const char *id);
struct sim_batch *sim_store_batch(struct sim_state *st, enum sim_proto p, const char *id);
/* Removes and frees the file or batch with this id; 0 when there is none. */
int sim_store_drop_file(struct sim_state *st, const char *id);
int sim_store_drop_batch(struct sim_state *st, enum sim_proto p, const char *id);
void sim_file_free(struct sim_file *f);
void sim_batch_free(struct sim_batch *b);

/* A page of protocol p's batches, newest first: those older than after (an id) or, with
 * before, newer than it, at most limit. Fills out (capacity limit) and returns how many;
 * *more says whether the page stopped short of the end. */
size_t sim_store_page(struct sim_state *st, enum sim_proto p, const char *after, const char *before,
                      size_t limit, struct sim_batch **out, bool *more);

/* Marks dup[i] for every ids[i] equal to an earlier ids[j]; returns how many, or -1 when out of
 * memory. */
long sim_find_duplicates(char *const *ids, size_t n, bool *dup);

/* Processes the batch's requests: the first done of them in the order its results are listed
 * (sim_batch_order) are answered or fail or expire, as drawn; the rest are cancelled. Each
 * processed request counts as an arrival of its body (the attempt table) and is logged as
 * "batch:<path>". Returns 0 when out of memory. */
int sim_batch_run(struct sim_state *st, struct sim_batch *b, size_t done);

/* --batch-outage: true (r filled with a 503, the read not counted) when this status read of a
 * running batch falls in the outage after its first read. */
bool sim_batch_outage(struct sim_state *st, struct sim_batch *b, struct sim_reply *r);

/* --batch-outage: true (r filled with a 503) for the first N downloads of an ended batch's
 * results (Anthropic: *count is the batch's; OpenAI: the output or error file's). */
bool sim_results_outage(struct sim_state *st, unsigned long *count, enum sim_proto p,
                        struct sim_reply *r);
/* The order results are listed in: a permutation of 0..n-1 drawn from the batch id and the
 * seed (malloc'd), or NULL when out of memory. */
size_t *sim_batch_order(const struct sim_state *st, const struct sim_batch *b);
/* A per-request id: prefix then hex drawn from the batch id and the custom_id. */
void sim_batch_req_id(const struct sim_batch *b, const struct sim_batch_req *q, const char *prefix,
                      const char *label, char *out, size_t cap);
/* How many of a cancelled batch's requests had been done: cancelled after k of its
 * --batch-polls N status reads, the share k/N of them (rounded down). */
size_t sim_batch_done_at_cancel(const struct sim_config *cfg, const struct sim_batch *b);

long long sim_now_us(void);
/* A page size from a query argument: def when absent, 0 when not a whole number in [1, max]. */
size_t sim_query_limit(const char *s, size_t def, size_t max);

/* multipart.c: the fields of an upload (borrowed from the body), the ones not sent NULL. */
struct sim_form {
    const char *purpose;
    size_t purpose_len;
    const char *file;
    size_t file_len;
    bool has_file;
    char filename[256];
};

/* Reads the fields of h's multipart/form-data body into f; 0, with why (static text), when
 * the body is not one. */
int sim_form_parse(const struct sim_http *h, struct sim_form *f, const char **why);

/* batch_openai.c and batch_anthropic.c: answer one request to their routes (auth is checked
 * already); 404 for a path they do not serve. *log_body, when set, is logged instead of the
 * body (malloc'd: an upload's file text). */
void sim_openai_batch(struct sim_state *st, const struct sim_http *h, struct sim_reply *r,
                      char **log_body);
void sim_anthropic_batch(struct sim_state *st, const struct sim_http *h, struct sim_reply *r);

#endif
