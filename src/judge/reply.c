/*
 * reply.c - what becomes of a judge's reply (judge.c sends and receives):
 * it is checked against its request's schema, then stored, the call with
 * its validity and the run's judgment in one transaction, then either
 * answers its slot, is asked again once with the validation error, or
 * closes the slot as failed.
 *
 * An invalid reply is kept for audit (judge_calls.valid 0) but never
 * answers a request again: the cache lookup in judge.c passes over it, so
 * a new run or `run --resume --retry-failed` sends the request afresh.  A
 * resumed run and a replay read it (arb_judge_reuse_invalid), to take again
 * the retry or the failure it led to.  A stored reply of unknown validity
 * (NULL: stored before migration 5) is validated again when read, and asked
 * afresh when it fails.
 *
 * What is stored of a reply that failed (no 2xx, over the size cap) or did
 * not validate is capped at JUDGE_STORED_MAX bytes, and the error says it
 * was cut: enough to see what went wrong, never megabytes per attempt.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/schema.h"
#include "engine.h"

static int slot_of(const struct arb_judge *j, const struct call *c)
{
    return c->swapped * j->cfg->samples + c->sample;
}

void judge_finish_slot(struct arb_judge *j, struct call *c, cJSON *answer)
{
    struct question *qn = c->qn;
    int k = slot_of(j, c);

    if (qn->slot_done[k]) {
        cJSON_Delete(answer);
        return;
    }
    qn->slot_done[k] = 1;
    qn->slots[k] = answer;
    qn->n_done++;
}

void judge_call_slot(const struct call *c, struct arb_judge_slot *slot)
{
    const struct arb_judge_question *q = &c->qn->q;

    slot->case_id = q->case_id;
    slot->system_a = q->system_a;
    slot->system_b = q->system_b ? q->system_b : ""; /* a single output has no B */
    slot->ord = c->swapped ? "BA" : "AB";
    slot->sample = c->sample;
    slot->attempt = c->attempt;
}

/*
 * The judgment names the reply it used by its key as stored (a recorded run's may be an
 * older Arbiter's) and by its hash; an answer from the cache sent nothing, so no fence.
 */
static enum arb_status put_judgment(struct arb_judge *j, const struct call *c, int valid,
                                    int cached, const char *answer, const char *error)
{
    struct arb_judgment_row row;
    struct arb_judge_slot slot;

    memset(&row, 0, sizeof(row));
    judge_call_slot(c, &slot);
    row.case_id = slot.case_id;
    row.system_a = slot.system_a;
    row.system_b = slot.system_b;
    row.ord = slot.ord;
    row.sample = slot.sample;
    row.attempt = slot.attempt;
    row.key = cached && c->used_key[0] ? c->used_key : c->key;
    row.valid = valid;
    row.cached = cached;
    row.answer_json = answer;
    row.error = error;
    row.fence = !cached && c->fence[0] ? c->fence : NULL;
    row.reply_sha256 = c->reply_sha256;
    return j->cache->put_judgment(j->cache->ctx, &row, j->err);
}

/* Record the call (when given) and the judgment: durable together (the cache's promise). */
static int record(struct arb_judge *j, const struct call *c, const struct arb_judge_call_row *call,
                  int valid, int cached, const char *answer, const char *error)
{
    enum arb_status st = ARB_OK;

    if (call)
        st = j->cache->put_call(j->cache->ctx, call, j->err);
    if (!st)
        st = put_judgment(j, c, valid, cached, answer, error);
    if (st)
        judge_fatal(j, st);
    return st == ARB_OK;
}

size_t judge_cut_len(const char *text, size_t len)
{
    size_t n = len;

    if (!text || len <= JUDGE_STORED_MAX)
        return len;
    n = JUDGE_STORED_MAX;
    /* Never in the middle of a UTF-8 sequence: back off its continuation bytes. */
    while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80)
        n--;
    return n;
}

/*
 * text capped for storage: *out is text itself when it fits, else a copy of its first bytes
 * (*copy, the caller frees), and a note on what was cut is appended to note.  0 when out of
 * memory.
 */
static int capped(const char *text, char **copy, const char **out, struct arb_buf *note)
{
    size_t len = text ? strlen(text) : 0, n = judge_cut_len(text, len);

    *copy = NULL;
    *out = text;
    if (n == len)
        return 1;
    *copy = malloc(n + 1);
    if (!*copy)
        return 0;
    memcpy(*copy, text, n);
    (*copy)[n] = '\0';
    *out = *copy;
    return arb_buf_printf(note, "%s(cut: the first %zu of %zu bytes stored)",
                          note->len ? "; " : "", n, len) != ARB_ENOMEM;
}

void judge_parse(const struct arb_judge_config *cfg, const char *reply, struct judge_parsed *p)
{
    memset(&p->err, 0, sizeof(p->err));
    p->st = judge_parse_reply(cfg, reply, &p->rp, &p->err);
}

/* Validate a parsed reply: 1 valid (rp->answer), else 0 with why; -1 out of memory. */
static int check(struct arb_judge *j, const struct call *c, const struct judge_parsed *p,
                 struct arb_buf *why)
{
    const struct judge_reply *rp = &p->rp;
    const struct arb_err *perr = &p->err;
    struct arb_schema_errors errs;
    enum arb_status st = p->st;
    int valid;

    if (st == ARB_ENOMEM)
        return -1;
    if (st && rp->truncated && !rp->refused)
        arb_buf_printf(why, "cut at %s=%ld: %s",
                       judge_limit_field(j->cfg),
                       judge_limit(j->cfg, c->max_tokens), perr->msg);
    else if (st)
        arb_buf_adds(why, perr->msg);
    if (st)
        return 0;
    arb_schema_errors_init(&errs);
    valid = arb_schema_validate(c->qn->compiled, rp->answer, &errs) == 1;
    if (!valid && rp->truncated)
        arb_buf_printf(why, "cut at %s=%ld: ",
                       judge_limit_field(j->cfg),
                       judge_limit(j->cfg, c->max_tokens));
    if (!valid)
        arb_schema_errors_write(&errs, why);
    return valid;
}

/*
 * Attempt 0 did not validate: ask once more, with the reply and why it was refused (rejected
 * non-NULL), or, for a reply cut at the output limit, the same question with the larger limit
 * max_tokens.
 */
static void retry(struct arb_judge *j, struct call *c, const char *rejected, const char *why,
                  long max_tokens)
{
    struct call *r = judge_new_call(j, c->qn, c->swapped, c->sample, 1);
    struct judge_request rq;
    char *cut = NULL;
    size_t len = rejected ? strlen(rejected) : 0, n = judge_cut_len(rejected, len);

    if (!r) {
        judge_fatal(j, ARB_ENOMEM);
        return;
    }
    /* A huge rejected reply goes back only as far as it is stored. */
    if (n < len && !(cut = malloc(n + 1))) {
        judge_fatal(j, ARB_ENOMEM);
        return;
    }
    if (cut) {
        memcpy(cut, rejected, n);
        cut[n] = '\0';
    }
    memcpy(r->fence, c->fence, sizeof(r->fence));
    r->mode = c->mode;
    r->max_tokens = max_tokens;
    judge_call_request(c, &rq, max_tokens ? NULL : cut ? cut : rejected, max_tokens ? NULL : why);
    rq.max_tokens = max_tokens;
    if (judge_build(j->cfg, &rq, &r->body, r->key, j->err) != ARB_OK)
        judge_fatal(j, ARB_ENOMEM);
    else
        judge_dispatch(j, r);
    free(cut);
}

void judge_handle_reply(struct arb_judge *j, struct call *c, const char *reply, int cached,
                        struct arb_judge_call_row *call)
{
    struct judge_parsed p;

    judge_parse(j->cfg, reply, &p);
    judge_handle_parsed(j, c, reply, &p, cached, call);
}

void judge_handle_parsed(struct arb_judge *j, struct call *c, const char *reply,
                         struct judge_parsed *p, int cached, struct arb_judge_call_row *call)
{
    struct judge_reply rp;
    cJSON *answer = NULL;
    char *text = NULL, *reply_cut = NULL, *text_cut = NULL;
    const char *stored_text;
    struct arb_buf why, note;
    long limit = judge_limit(j->cfg, c->max_tokens), larger;
    int valid;

    arb_buf_init(&why, 4096);
    arb_buf_init(&note, 4096);
    valid = check(j, c, p, &why);
    rp = p->rp; /* taken over */
    memset(&p->rp, 0, sizeof(p->rp));
    answer = rp.answer;
    text = rp.text;
    rp.answer = NULL;
    rp.text = NULL;
    if (call) {
        call->stop_reason = rp.stop_reason[0] ? rp.stop_reason : NULL;
        call->normalization = rp.normalization[0] ? rp.normalization : NULL;
        call->error_type = rp.error.type[0] ? rp.error.type : NULL;
        call->error_code = rp.error.code[0] ? rp.error.code : NULL;
        call->error_message = rp.error.message[0] ? rp.error.message : NULL;
    }
    if (valid < 0) {
        judge_fatal(j, ARB_ENOMEM);
        goto out;
    }
    if (cached && !valid && !j->reuse_invalid) {
        /* Stored without a known validity and invalid today: it answers nothing, ask. */
        c->qn->n_cached--;
        j->prog.cached--;
        c->used_key[0] = c->reply_sha256[0] = '\0';
        judge_send(j, c);
        goto out;
    }
    stored_text = text;
    if (!valid && ((call && !capped(reply, &reply_cut, &call->reply_json, &note)) ||
                   !capped(text, &text_cut, &stored_text, &note))) {
        judge_fatal(j, ARB_ENOMEM);
        goto out;
    }
    if (!valid && arb_buf_adds(&why, note.len ? "; " : "") == ARB_ENOMEM) {
        judge_fatal(j, ARB_ENOMEM);
        goto out;
    }
    if (!valid && note.len)
        arb_buf_add(&why, note.ptr, note.len);
    if (call) {
        call->valid = valid;
        call->error = valid ? NULL : why.ptr;
    }
    /* The judgment names the reply as stored (capped when invalid), to be found again. */
    if (call && call->reply_json && judge_sha256_hex(call->reply_json, c->reply_sha256)) {
        judge_fatal(j, ARB_EINTERNAL);
        goto out;
    }
    if (!record(j, c, call, valid, cached, stored_text, valid ? NULL : why.ptr))
        goto out;
    larger = limit <= j->cfg->max_tokens_cap / 2 ? 2 * limit : j->cfg->max_tokens_cap;
    if (valid) {
        judge_finish_slot(j, c, answer);
        answer = NULL;
    } else if (rp.refused) {
        /* Not asked again: the same question gets the same refusal. */
        c->qn->refused = 1;
        snprintf(c->qn->error, sizeof(c->qn->error), "%s", why.ptr ? why.ptr : "refused");
        judge_notice(j, "case '%s': %s", c->qn->q.case_id, c->qn->error);
        judge_finish_slot(j, c, NULL);
    } else if (rp.truncated && c->attempt == 0 && larger > limit) {
        retry(j, c, NULL, NULL, larger);
    } else if (rp.truncated) {
        snprintf(c->qn->error, sizeof(c->qn->error),
                 "the judge's reply was cut at %s=%ld%s: %.200s",
                 judge_limit_field(j->cfg), limit,
                 larger > limit ? "" : " (the max_tokens_cap: raise it)",
                 why.ptr ? why.ptr : "");
        judge_finish_slot(j, c, NULL);
    } else if (c->attempt == 0 && !rp.error_body) {
        retry(j, c, text ? text : reply, why.ptr ? why.ptr : "invalid reply", 0);
    } else if (rp.error_body) {
        snprintf(c->qn->error, sizeof(c->qn->error), "the judge answered with an error: %.400s",
                 why.ptr ? why.ptr : "");
        judge_finish_slot(j, c, NULL);
    } else {
        snprintf(c->qn->error, sizeof(c->qn->error),
                 "the judge's reply did not follow the schema twice: %.180s",
                 why.ptr ? why.ptr : "");
        judge_finish_slot(j, c, NULL);
    }
out:
    judge_reply_release(&rp);
    cJSON_Delete(answer);
    free(text);
    free(reply_cut);
    free(text_cut);
    arb_buf_release(&why);
    arb_buf_release(&note);
}

void judge_handle_failure(struct arb_judge *j, struct call *c, struct arb_judge_call_row *call)
{
    struct arb_buf note;
    char *cut = NULL;
    char error[1024];

    arb_buf_init(&note, 1024);
    if (call->reply_json && !capped(call->reply_json, &cut, &call->reply_json, &note)) {
        judge_fatal(j, ARB_ENOMEM);
        arb_buf_release(&note);
        return;
    }
    snprintf(error, sizeof(error), "%s%s%s", call->error ? call->error : "failed",
             note.len ? "; reply " : "", note.len ? note.ptr : "");
    call->error = error;
    snprintf(c->qn->error, sizeof(c->qn->error), "no reply from the judge: %.440s", error);
    if (record(j, c, call, 0, 0, NULL, c->qn->error))
        judge_finish_slot(j, c, NULL);
    free(cut);
    arb_buf_release(&note);
}

void judge_fail_unfenced(struct arb_judge *j, struct call *c)
{
    if (record(j, c, NULL, 0, 0, NULL, c->qn->error))
        judge_finish_slot(j, c, NULL);
}

void judge_fail_recorded(struct arb_judge *j, struct call *c, const char *error)
{
    snprintf(c->qn->error, sizeof(c->qn->error), "%s", error ? error : "no reply from the judge");
    if (record(j, c, NULL, 0, 1, NULL, c->qn->error))
        judge_finish_slot(j, c, NULL);
}

int judge_read_cached(void *ctx, const struct arb_judge_call_row *row)
{
    struct judge_cached *cc = ctx;

    cc->ok = row->status && strcmp(row->status, "ok") == 0 && row->reply_json;
    cc->valid = row->valid;
    snprintf(cc->key, sizeof(cc->key), "%s", row->key ? row->key : "");
    if (cc->ok)
        cc->reply = strdup(row->reply_json);
    else if (row->error)
        cc->error = strdup(row->error);
    return 0;
}
