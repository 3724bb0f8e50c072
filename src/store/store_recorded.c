/*
 * store_recorded.c - the reply a run's judgment of one question slot was
 * made from, for a replay or a resume of that run (the judge asks through
 * the cache's get with a slot: judge.h).  The judgment names its call by
 * key and by the SHA-256 of the reply it read (judgments.reply_sha256), so
 * the reply is found whatever key this Arbiter would compute for the
 * request today (an older one keyed requests otherwise), and even after a
 * later request replaced it under the same key (an invalid reply is moved
 * to judge_calls_rejected when its request gets a new one).  Reading only:
 * the caller decides what a reply found here may answer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "arbiter/buf.h"
#include "store_int.h"

/* 1 when text hashes to the hex digest want (SHA-256). */
static int reply_is(const char *text, const char *want)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    char hex[2 * EVP_MAX_MD_SIZE + 1];

    if (!text || !EVP_Digest(text, strlen(text), md, &n, EVP_sha256(), NULL))
        return 0;
    arb_hex(md, n, hex);
    return strcmp(hex, want) == 0;
}

struct recorded {
    char key[65];
    char *sha256; /* NULL: stored before the column; "": the judgment had no reply */
    char *error;
    int found;
};

static void recorded_release(struct recorded *r)
{
    free(r->sha256);
    free(r->error);
}

static char *dup_or_null(const char *s, int *oom)
{
    char *d = s ? strdup(s) : NULL;

    if (s && !d)
        *oom = 1;
    return d;
}

/* run's judgment of slot: its key, reply hash and error. */
static enum arb_status judgment_of(struct arb_store *st, int64_t run,
                                   const struct arb_judge_slot *slot, struct recorded *r,
                                   struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    enum arb_status ret = store_acquire(st, Q_RECORDED_JUDGMENT, &s, err);
    int rc, oom = 0;

    memset(r, 0, sizeof(*r));
    if (ret != ARB_OK)
        return ret;
    rc = store_bind_int(SQLITE_OK, s, 1, run);
    rc = store_bind_text(rc, s, 2, slot->case_id);
    rc = store_bind_text(rc, s, 3, slot->system_a);
    rc = store_bind_text(rc, s, 4, slot->system_b);
    rc = store_bind_text(rc, s, 5, slot->ord);
    rc = store_bind_int(rc, s, 6, slot->sample);
    rc = store_bind_int(rc, s, 7, slot->attempt);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        const char *key = store_col_text(s, 0);

        snprintf(r->key, sizeof(r->key), "%s", key ? key : "");
        r->sha256 = dup_or_null(store_col_text(s, 1), &oom);
        r->error = dup_or_null(store_col_text(s, 2), &oom);
        r->found = 1;
        rc = SQLITE_DONE;
    }
    if (oom)
        ret = ARB_ENOMEM;
    else if (rc != SQLITE_DONE)
        ret = store_fail(st, rc, err, "read a judgment");
    store_release(st, Q_RECORDED_JUDGMENT, s);
    return ret;
}

/* What the call under key holds, for the choice below. */
struct live {
    const struct recorded *want;
    int (*fn)(void *ctx, const struct arb_judge_call_row *c);
    void *ctx;
    int failed; /* it is a failed call (or holds no reply) */
    int used;   /* it is the reply the judgment used: handed to fn */
};

static int on_live(void *ctx, const struct arb_judge_call_row *c)
{
    struct live *l = ctx;

    l->failed = !c->status || strcmp(c->status, "ok") != 0 || !c->reply_json;
    if (l->failed)
        return 0;
    if (!l->want->sha256 || reply_is(c->reply_json, l->want->sha256)) {
        l->used = 1;
        l->fn(l->ctx, c);
    }
    return 0;
}

/* The reply the judgment used, among those replaced under its key. */
static enum arb_status from_rejected(struct arb_store *st, const struct recorded *r,
                                     int (*fn)(void *ctx, const struct arb_judge_call_row *c),
                                     void *ctx, int *found, struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    enum arb_status ret = store_acquire(st, Q_REJECTED_CALLS, &s, err);
    int rc;

    if (ret != ARB_OK)
        return ret;
    rc = store_bind_text(SQLITE_OK, s, 1, r->key);
    while (rc == SQLITE_OK || rc == SQLITE_ROW) {
        struct arb_judge_call_row c;

        rc = sqlite3_step(s);
        if (rc != SQLITE_ROW)
            break;
        if (!reply_is(store_col_text(s, 4), r->sha256))
            continue;
        store_call_row(s, &c);
        *found = 1;
        fn(ctx, &c);
        rc = SQLITE_DONE;
        break;
    }
    if (rc != SQLITE_DONE)
        ret = store_fail(st, rc, err, "read a replaced judge reply");
    store_release(st, Q_REJECTED_CALLS, s);
    return ret;
}

/* The judgment had no reply: a failed call with its key and error. */
static void failure(const struct recorded *r,
                    int (*fn)(void *ctx, const struct arb_judge_call_row *c), void *ctx)
{
    struct arb_judge_call_row c;

    memset(&c, 0, sizeof(c));
    c.key = r->key;
    c.status = "failed";
    c.error = r->error;
    c.valid = -1;
    fn(ctx, &c);
}

enum arb_status
arb_store_get_recorded_call(struct arb_store *st, int64_t run, const struct arb_judge_slot *slot,
                            int (*fn)(void *ctx, const struct arb_judge_call_row *c), void *ctx,
                            int *found, struct arb_err *err)
{
    struct recorded r;
    struct live l;
    int live_found = 0;
    enum arb_status ret = judgment_of(st, run, slot, &r, err);

    *found = 0;
    if (ret != ARB_OK || !r.found)
        goto out;
    if (r.sha256 && !r.sha256[0]) {
        *found = 1;
        failure(&r, fn, ctx);
        goto out;
    }
    memset(&l, 0, sizeof(l));
    l.want = &r;
    l.fn = fn;
    l.ctx = ctx;
    ret = arb_store_get_judge_call(st, r.key, on_live, &l, &live_found, err);
    if (ret != ARB_OK || l.used) {
        *found = l.used;
        goto out;
    }
    if (!r.sha256) {
        /* Stored before the hash was: a failed call under its key is its failure. */
        if (live_found && l.failed) {
            *found = 1;
            failure(&r, fn, ctx);
        }
        goto out;
    }
    ret = from_rejected(st, &r, fn, ctx, found, err);
out:
    recorded_release(&r);
    return ret;
}
