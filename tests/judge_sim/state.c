/*
 * state.c - what the test judge's connection threads share: the table that counts how often each
 * request body arrived (so faults can hit one attempt and spare the retry), the JSON-lines
 * request log, sleeps that SIGTERM can cut short, and the batch store's lifetime.
 *
 * Deciding what to do with a request is handler.c's job; this file only keeps the books.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch.h"

int sim_state_init(struct sim_state *st, const struct sim_config *cfg)
{
    pthread_condattr_t ca;

    memset(st, 0, sizeof(*st));
    st->cfg = cfg;
    st->attempts_cap = 256;
    st->attempts = calloc(st->attempts_cap, sizeof(*st->attempts));
    st->batches = sim_batch_store_new();
    if (!st->attempts || !st->batches) {
        fprintf(stderr, "judge_sim: out of memory\n");
        free(st->attempts);
        sim_batch_store_free(st->batches);
        return 0;
    }
    if (cfg->log_path) {
        st->log = fopen(cfg->log_path, "a");
        if (!st->log) {
            fprintf(stderr, "judge_sim: cannot open log '%s': %s\n", cfg->log_path,
                    strerror(errno));
            free(st->attempts);
            sim_batch_store_free(st->batches);
            return 0;
        }
    }
    pthread_mutex_init(&st->attempts_lock, NULL);
    pthread_mutex_init(&st->log_lock, NULL);
    pthread_mutex_init(&st->batch_lock, NULL);
    pthread_mutex_init(&st->stop_lock, NULL);
    /* A monotonic clock, so a change of wall time cannot stretch or skip a latency. */
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&st->stop_cond, &ca);
    pthread_condattr_destroy(&ca);
    return 1;
}

void sim_state_release(struct sim_state *st)
{
    if (st->log)
        fclose(st->log);
    st->log = NULL;
    free(st->attempts);
    st->attempts = NULL;
    sim_batch_store_free(st->batches);
    st->batches = NULL;
    pthread_mutex_destroy(&st->attempts_lock);
    pthread_mutex_destroy(&st->log_lock);
    pthread_mutex_destroy(&st->batch_lock);
    pthread_mutex_destroy(&st->stop_lock);
    pthread_cond_destroy(&st->stop_cond);
}

static size_t slot_of(const unsigned char *key, size_t cap)
{
    uint64_t h = 0;

    for (int i = 0; i < 8; i++)
        h = (h << 8) | key[i];
    return (size_t)(h & (cap - 1));
}

/* Finds the slot holding key, or the empty slot where it belongs. */
static struct sim_attempt *probe(struct sim_attempt *tab, size_t cap, const unsigned char *key)
{
    size_t i = slot_of(key, cap);

    while (tab[i].used && memcmp(tab[i].key, key, SIM_DIGEST_LEN) != 0)
        i = (i + 1) & (cap - 1);
    return &tab[i];
}

static int grow(struct sim_state *st)
{
    size_t cap = st->attempts_cap * 2;
    struct sim_attempt *tab = calloc(cap, sizeof(*tab));

    if (!tab)
        return 0;
    for (size_t i = 0; i < st->attempts_cap; i++) {
        if (st->attempts[i].used)
            *probe(tab, cap, st->attempts[i].key) = st->attempts[i];
    }
    free(st->attempts);
    st->attempts = tab;
    st->attempts_cap = cap;
    return 1;
}

unsigned long sim_attempt_next(struct sim_state *st, const unsigned char *digest,
                               unsigned long long *arrival)
{
    struct sim_attempt *a;
    unsigned long n = 0;

    pthread_mutex_lock(&st->attempts_lock);
    *arrival = ++st->received;
    /* Keep the load under a half so probe chains stay short. */
    if ((st->attempts_len + 1) * 2 > st->attempts_cap && !grow(st))
        goto out;
    a = probe(st->attempts, st->attempts_cap, digest);
    if (!a->used) {
        a->used = true;
        memcpy(a->key, digest, SIM_DIGEST_LEN);
        a->count = 0;
        st->attempts_len++;
    }
    n = ++a->count;
out:
    pthread_mutex_unlock(&st->attempts_lock);
    return n;
}

static long long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void sim_log_request(struct sim_state *st, const char *path, unsigned long attempt, int status,
                     const char *body, bool auth, const char *fault, const char *detail)
{
    cJSON *line;
    char *text;
    int ok;

    if (!st->log)
        return;
    line = cJSON_CreateObject();
    ok = line && cJSON_AddNumberToObject(line, "t", (double)now_ms()) &&
         cJSON_AddStringToObject(line, "path", path) &&
         cJSON_AddNumberToObject(line, "attempt", (double)attempt) &&
         cJSON_AddNumberToObject(line, "status", status) &&
         cJSON_AddBoolToObject(line, "auth", auth) &&
         (fault ? cJSON_AddStringToObject(line, "fault", fault) != NULL
                : cJSON_AddNullToObject(line, "fault") != NULL) &&
         (!detail || cJSON_AddStringToObject(line, "detail", detail)) &&
         cJSON_AddStringToObject(line, "body", body ? body : "");
    text = ok ? cJSON_PrintUnformatted(line) : NULL;
    cJSON_Delete(line);
    if (!text) {
        fprintf(stderr, "judge_sim: out of memory writing the log\n");
        return;
    }
    pthread_mutex_lock(&st->log_lock);
    /* One line per request, flushed at once: tests read the log while the server runs. */
    if (fprintf(st->log, "%s\n", text) < 0 || fflush(st->log) != 0)
        fprintf(stderr, "judge_sim: cannot write log: %s\n", strerror(errno));
    pthread_mutex_unlock(&st->log_lock);
    free(text);
}

bool sim_sleep_ms(struct sim_state *st, long ms)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return sim_sleep_from(st, &now, ms);
}

bool sim_sleep_from(struct sim_state *st, const struct timespec *from, long ms)
{
    struct timespec until = *from;
    bool stopped;

    if (ms <= 0)
        return true;
    until.tv_sec += ms / 1000;
    until.tv_nsec += (ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&st->stop_lock);
    while (!st->stopping) {
        if (pthread_cond_timedwait(&st->stop_cond, &st->stop_lock, &until) == ETIMEDOUT)
            break;
    }
    stopped = st->stopping;
    pthread_mutex_unlock(&st->stop_lock);
    return !stopped;
}

void sim_state_stop(struct sim_state *st)
{
    pthread_mutex_lock(&st->stop_lock);
    st->stopping = true;
    pthread_cond_broadcast(&st->stop_cond);
    pthread_mutex_unlock(&st->stop_lock);
}
