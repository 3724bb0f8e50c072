/*
 * failure.c - a judge request that got no usable reply, explained: the provider's own error
 * (type, code, message) is read from the body, stored with the call and told to the user
 * once per distinct failure; a server that refuses the response format makes the judge go on
 * in the next mode (json_schema -> json_schema_loose -> json_object -> prompt); a failure no
 * retry can fix (a 4xx other than 408, 409 and 429) stops the run after JUDGE_STOP_AFTER in a
 * row, and a billing stop (insufficient_quota) at once, saying what to change.  What the
 * user should see as it happens goes out through the judge's notice callback (judge_notice).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "arbiter/http.h"
#include "engine.h"

int judge_mentions(const char *s, const char *const *words, size_t n)
{
    size_t i, k, len = strlen(s);

    for (i = 0; i < n; i++)
        for (k = 0; k + strlen(words[i]) <= len; k++)
            if (strncasecmp(s + k, words[i], strlen(words[i])) == 0)
                return 1;
    return 0;
}

/* A refusal of how the request asked for JSON: its response_format or its schema. */
static int format_refused(long status, const struct judge_provider_error *pe)
{
    static const char *const words[] = {"response_format", "json_schema", "json_object",
                                        "schema",          "structured output", "grammar",
                                        "guided_json",     "strict"};
    size_t n = sizeof(words) / sizeof(words[0]);

    if (status != 400 && status != 422 && status != 500 && status != 501)
        return 0;
    return judge_mentions(pe->message, words, n) || judge_mentions(pe->type, words, n) ||
           judge_mentions(pe->code, words, n);
}

/* A 429 that is a billing stop, not a rate limit: OpenAI's insufficient_quota. */
static int billing_stop(const struct judge_provider_error *pe)
{
    static const char *const words[] = {"insufficient_quota", "billing",
                                        "exceeded your current quota", "credit balance"};
    size_t n = sizeof(words) / sizeof(words[0]);

    return judge_mentions(pe->code, words, n) || judge_mentions(pe->type, words, n) ||
           judge_mentions(pe->message, words, n);
}

enum arb_http_verdict judge_classify(void *ctx, long status, const char *content_type,
                                     const char *body, size_t len)
{
    struct judge_provider_error pe;
    struct arb_judge *j = ctx;

    (void)len;
    if (status >= 200 && status < 300) {
        cJSON *doc;
        int err_only;

        /* A stream nobody asked for is still a reply: parse.c assembles it. */
        if (strncasecmp(content_type, "text/event-stream", 17) == 0)
            return ARB_HTTP_ACCEPT;
        doc = judge_sse_assemble(j->cfg, body);
        if (doc) {
            cJSON_Delete(doc);
            return ARB_HTTP_ACCEPT;
        }
        /* {"error": ...} with a 200: a gateway relaying an upstream failure; ask again. */
        doc = cJSON_Parse(body);
        err_only = cJSON_IsObject(doc) && judge_error_from_doc(doc, &pe) &&
                   !cJSON_GetObjectItemCaseSensitive(doc, "choices") &&
                   !cJSON_GetObjectItemCaseSensitive(doc, "content");
        cJSON_Delete(doc);
        return err_only ? ARB_HTTP_RETRY : ARB_HTTP_AS_USUAL;
    }
    if (status == 429 && judge_provider_error(body, &pe) && billing_stop(&pe))
        return ARB_HTTP_FINAL; /* out of credit: waiting does not bring it back */
    return ARB_HTTP_AS_USUAL;
}

/* What to change, for a failure no retry can fix. */
static const char *advice(const struct arb_judge *j, long status)
{
    switch (status) {
    case 404:
        return "check the judge's \"model\" and \"base_url\" (the server has no such model or "
               "path)";
    case 413:
        return "the prompt is too large for the server: shorten the outputs or use a model "
               "with a larger context";
    case 400:
    case 422:
        return j->cfg->provider == ARB_JUDGE_ANTHROPIC
                   ? "change the judge config to what the model accepts (model, max_tokens, "
                     "temperature 0-1, extra_body)"
                   : "change the judge config to what the model accepts: \"max_tokens_field\": "
                     "\"max_completion_tokens\" and \"temperature\": null for OpenAI's "
                     "reasoning models, \"response_format\", \"extra_body\"";
    default:
        return "check the judge config and the server";
    }
}

/* "HTTP 400: message (type, code)" into out: how the failure reads everywhere. */
static void describe(const struct arb_http_result *r, const struct judge_provider_error *pe,
                     char *out, size_t n)
{
    char detail[200] = "";

    if (pe->type[0] && pe->code[0])
        snprintf(detail, sizeof(detail), " (%s, code %s)", pe->type, pe->code);
    else if (pe->type[0] || pe->code[0])
        snprintf(detail, sizeof(detail), " (%s)", pe->type[0] ? pe->type : pe->code);
    if (r->server_wait_s > 0) {
        size_t k = strlen(detail);

        snprintf(detail + k, sizeof(detail) - k, " (the server asked to wait %.3g s)",
                 r->server_wait_s);
    }
    if (pe->message[0])
        snprintf(out, n, "%s: %s%s", r->error, pe->message, detail);
    else
        snprintf(out, n, "%s%s", r->error, detail);
}

/* Tell a failure once: the first time each distinct one happens (up to five kinds). */
static void tell_once(struct arb_judge *j, const char *msg)
{
    int i;

    for (i = 0; i < j->n_told; i++)
        if (strncmp(j->told[i], msg, sizeof(j->told[i]) - 1) == 0)
            return;
    if (j->n_told < 5)
        snprintf(j->told[j->n_told++], sizeof(j->told[0]), "%s", msg);
    else
        return;
    judge_notice(j, "judge request failed: %s", msg);
}

static void stop(struct arb_judge *j, const char *what, const char *todo)
{
    j->stopped = 1;
    snprintf(j->stop_msg, sizeof(j->stop_msg),
             ARB_JUDGE_STOPPED ": %s; no retry can fix this, so no more requests were sent: %s",
             what, todo);
    arb_transport_abort(j->t);
}

int judge_on_failure(struct arb_judge *j, struct call *c, const struct arb_http_result *r,
                     struct arb_judge_call_row *row, struct judge_provider_error *pe,
                     char *msg, size_t msglen)
{
    long st = r->status;

    judge_provider_error(r->body_len ? r->body : NULL, pe);
    describe(r, pe, msg, msglen);
    row->error = msg;
    row->error_type = pe->type[0] ? pe->type : NULL;
    row->error_code = pe->code[0] ? pe->code : NULL;
    row->error_message = pe->message[0] ? pe->message : NULL;
    if (strcmp(r->error, "aborted") == 0 || j->stopped)
        return 0;
    if (j->cfg->provider != ARB_JUDGE_COMMAND && c->mode < ARB_RF_PROMPT &&
        format_refused(st, pe)) {
        enum arb_status rs;

        if (c->mode == j->mode) {
            j->mode = (enum arb_judge_response_format)(c->mode + 1);
            /* Anthropic's loose mode sends the same forced tool: go on to the prompt. */
            if (j->cfg->provider == ARB_JUDGE_ANTHROPIC && j->mode == ARB_RF_JSON_SCHEMA_LOOSE)
                j->mode = ARB_RF_JSON_OBJECT;
            judge_notice(j,
                         "the judge's server refused response_format \"%s\" (%s); switching to "
                         "\"%s\" for the rest of the run (set \"response_format\" in the judge "
                         "config to start there)",
                         arb_judge_response_format_name(c->mode), msg,
                         arb_judge_response_format_name(j->mode));
        }
        /* The refused call is kept for the record, without a judgment: its slot is asked
         * again in the new mode. */
        row->valid = -1;
        rs = j->cache->put_call(j->cache->ctx, row, j->err);
        if (rs) {
            judge_fatal(j, rs);
            return 1;
        }
        if (judge_rebuild(j, c))
            judge_dispatch(j, c);
        return 1;
    }
    tell_once(j, msg);
    if (st == 429 && billing_stop(pe)) {
        stop(j, msg, "the account has no credit or quota left: add credit or use another key");
        return 0;
    }
    if (st >= 400 && st < 500 && st != 408 && st != 409 && st != 429 && st != 401 &&
        st != 403) {
        if (strcmp(j->last_failure, msg) == 0) {
            j->same_failures++;
        } else {
            snprintf(j->last_failure, sizeof(j->last_failure), "%s", msg);
            j->same_failures = 1;
        }
        if (j->same_failures >= JUDGE_STOP_AFTER)
            stop(j, msg, advice(j, st));
    } else {
        j->last_failure[0] = '\0';
        j->same_failures = 0;
    }
    return 0;
}

void arb_judge_set_notice(struct arb_judge *j, void (*fn)(void *ctx, const char *msg), void *ctx)
{
    j->notice = fn;
    j->notice_ctx = ctx;
}

void judge_notice(struct arb_judge *j, const char *fmt, ...)
{
    char msg[1200];
    va_list ap;

    if (!j->notice)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    j->notice(j->notice_ctx, msg);
}
