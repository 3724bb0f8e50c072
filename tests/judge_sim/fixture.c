/*
 * fixture.c - judge_sim --fixture FILE: one provider exchange, replayed.  Instead of building
 * its replies, the server answers the N-th request with the fixture's N-th scripted reply (the
 * last one repeats), or with the reply of the first rule whose "when" the request matches, and
 * checks every request against the fixture's "request" expectations first.  The format is
 * tests/providers/README.md's.
 *
 * Placeholders in reply strings are filled from the request: the answer is drawn from the
 * request's reply schema by gen.c, seeded as the server's own replies are, so a fixture holds
 * the shape of a provider's reply and the server supplies a verdict that fits the question.
 * Routes, auth, the log and sending are handler.c's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "judge_sim.h"

struct sim_fixture {
    cJSON *doc;             /* the whole file */
    const char *provider;   /* "openai", "anthropic" or NULL (any); borrowed from doc */
    const cJSON *replies;   /* non-empty array */
    const cJSON *rules;     /* array or NULL */
    const cJSON *has;       /* object or NULL */
    const cJSON *lacks;     /* array or NULL */
    const cJSON *in_turn;   /* object or NULL */
    pthread_mutex_t lock;   /* guards the two counters */
    unsigned long turns;    /* requests that reached the fixture */
    unsigned long scripted; /* of them, answered from "replies" (not by a rule) */
};

/* What placeholders expand to for one request. */
struct fill {
    const char *answer; /* the answer's JSON text */
    size_t half;        /* where {{answer_half}} ends (a UTF-8 boundary) */
    const cJSON *value; /* the answer itself, for {{answer_object}} */
    const char *model;
    const char *tool;
};

/* A growable string; ok drops to 0 on ENOMEM and stays there. */
struct sbuf {
    char *s;
    size_t len, cap;
    int ok;
};

static void sb_add(struct sbuf *b, const char *p, size_t n)
{
    if (!b->ok)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        char *q;

        while (cap < b->len + n + 1)
            cap *= 2;
        q = realloc(b->s, cap);
        if (!q) {
            b->ok = 0;
            return;
        }
        b->s = q;
        b->cap = cap;
    }
    memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static const cJSON *member(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* Fills why (a message for the mismatch or the fixture error) and returns 0. */
static int fail(char *why, size_t why_len, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
    return 0;
}

/* ---- loading ---------------------------------------------------------------------------- */

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    struct sbuf b = {.ok = 1};
    char chunk[8192];
    size_t n;

    if (!f)
        return NULL;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        sb_add(&b, chunk, n);
    if (ferror(f) || !b.ok) {
        free(b.s);
        b.s = NULL;
    }
    fclose(f);
    *len = b.len;
    return b.s ? b.s : b.ok ? calloc(1, 1) : NULL;
}

/* A reply object: a status, at most one body member, headers of strings and numbers. */
static int check_reply(const cJSON *r, char *why, size_t why_len)
{
    const cJSON *st = member(r, "status"), *h = member(r, "headers"),
                *ct = member(r, "content_type");
    const cJSON *sse = member(r, "sse"), *x;
    int bodies = !!member(r, "json") + !!cJSON_IsString(member(r, "text")) + !!sse;

    if (!cJSON_IsObject(r))
        return fail(why, why_len, "is not an object");
    if (!cJSON_IsNumber(st) || st->valuedouble < 100 || st->valuedouble > 599 ||
        st->valuedouble != (int)st->valuedouble)
        return fail(why, why_len, "\"status\" is not an HTTP status");
    if (bodies > 1 || (member(r, "text") && !cJSON_IsString(member(r, "text"))))
        return fail(why, why_len, "wants at most one of \"json\", \"text\" (a string), \"sse\"");
    if (sse && (!cJSON_IsArray(sse) || cJSON_GetArraySize(sse) == 0))
        return fail(why, why_len, "\"sse\" is not a non-empty array");
    cJSON_ArrayForEach(x, sse)
    {
        if (!cJSON_IsObject(x) && !cJSON_IsString(x))
            return fail(why, why_len, "an \"sse\" chunk is neither an object nor a string");
    }
    if (ct && !cJSON_IsString(ct))
        return fail(why, why_len, "\"content_type\" is not a string");
    if (h && !cJSON_IsObject(h))
        return fail(why, why_len, "\"headers\" is not an object");
    cJSON_ArrayForEach(x, h)
    {
        if (!cJSON_IsString(x) && !cJSON_IsNumber(x))
            return fail(why, why_len, "header '%s' is neither a string nor a number", x->string);
    }
    return 1;
}

/* A map of JSON pointers to values. */
static int check_pointers(const cJSON *m, char *why, size_t why_len)
{
    const cJSON *x;

    if (!cJSON_IsObject(m))
        return fail(why, why_len, "is not an object of JSON pointers");
    cJSON_ArrayForEach(x, m)
    {
        if (x->string[0] && x->string[0] != '/')
            return fail(why, why_len, "'%s' is not a JSON pointer", x->string);
    }
    return 1;
}

static int check_request(struct sim_fixture *fx, const cJSON *rq, char *why, size_t why_len)
{
    const cJSON *x;
    char sub[200];

    fx->has = member(rq, "has");
    fx->lacks = member(rq, "lacks");
    fx->in_turn = member(rq, "has_in_turn");
    if (!cJSON_IsObject(rq))
        return fail(why, why_len, "\"request\" is not an object");
    if (fx->has && !check_pointers(fx->has, sub, sizeof(sub)))
        return fail(why, why_len, "\"request.has\" %s", sub);
    if (fx->lacks && !cJSON_IsArray(fx->lacks))
        return fail(why, why_len, "\"request.lacks\" is not an array");
    cJSON_ArrayForEach(x, fx->lacks)
    {
        if (!cJSON_IsString(x) || (x->valuestring[0] && x->valuestring[0] != '/'))
            return fail(why, why_len, "\"request.lacks\" holds something not a JSON pointer");
    }
    if (fx->in_turn && !cJSON_IsObject(fx->in_turn))
        return fail(why, why_len, "\"request.has_in_turn\" is not an object");
    cJSON_ArrayForEach(x, fx->in_turn)
    {
        char *end;
        long n = strtol(x->string, &end, 10);

        if (*end || end == x->string || n < 1)
            return fail(why, why_len, "\"request.has_in_turn\": '%s' is not a turn (1, 2, ...)",
                        x->string);
        if (!check_pointers(x, sub, sizeof(sub)))
            return fail(why, why_len, "\"request.has_in_turn\".%s %s", x->string, sub);
    }
    return 1;
}

static int check_doc(struct sim_fixture *fx, char *why, size_t why_len)
{
    const cJSON *doc = fx->doc, *p = member(doc, "provider"), *x;
    char sub[200];
    int i = 0;

    if (!cJSON_IsObject(doc))
        return fail(why, why_len, "not a JSON object");
    if (p && (!cJSON_IsString(p) ||
              (strcmp(p->valuestring, "openai") != 0 && strcmp(p->valuestring, "anthropic") != 0)))
        return fail(why, why_len, "\"provider\" is neither \"openai\" nor \"anthropic\"");
    fx->provider = p ? p->valuestring : NULL;
    fx->replies = member(doc, "replies");
    if (!cJSON_IsArray(fx->replies) || cJSON_GetArraySize(fx->replies) == 0)
        return fail(why, why_len, "\"replies\" is not a non-empty array");
    cJSON_ArrayForEach(x, fx->replies)
    {
        if (!check_reply(x, sub, sizeof(sub)))
            return fail(why, why_len, "replies[%d] %s", i, sub);
        i++;
    }
    fx->rules = member(doc, "rules");
    if (fx->rules && !cJSON_IsArray(fx->rules))
        return fail(why, why_len, "\"rules\" is not an array");
    i = 0;
    cJSON_ArrayForEach(x, fx->rules)
    {
        if (!check_pointers(member(x, "when"), sub, sizeof(sub)))
            return fail(why, why_len, "rules[%d].when %s", i, sub);
        if (!check_reply(member(x, "reply"), sub, sizeof(sub)))
            return fail(why, why_len, "rules[%d].reply %s", i, sub);
        i++;
    }
    return !member(doc, "request") || check_request(fx, member(doc, "request"), why, why_len);
}

struct sim_fixture *sim_fixture_load(const char *path)
{
    struct sim_fixture *fx = calloc(1, sizeof(*fx));
    size_t len = 0;
    char *text = fx ? read_file(path, &len) : NULL, why[256];
    const char *end = NULL;

    if (!fx || !text) {
        fprintf(stderr, "judge_sim: cannot read fixture '%s': %s\n", path,
                fx ? strerror(errno) : "out of memory");
        free(fx);
        return NULL;
    }
    fx->doc = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!fx->doc) {
        fprintf(stderr, "judge_sim: fixture '%s' is not JSON (at byte %ld)\n", path,
                end ? (long)(end - text) : 0L);
        free(text);
        free(fx);
        return NULL;
    }
    free(text);
    if (!check_doc(fx, why, sizeof(why))) {
        fprintf(stderr, "judge_sim: fixture '%s': %s\n", path, why);
        cJSON_Delete(fx->doc);
        free(fx);
        return NULL;
    }
    pthread_mutex_init(&fx->lock, NULL);
    return fx;
}

void sim_fixture_free(struct sim_fixture *fx)
{
    if (!fx)
        return;
    pthread_mutex_destroy(&fx->lock);
    cJSON_Delete(fx->doc);
    free(fx);
}

/* ---- request checks --------------------------------------------------------------------- */

/* RFC 6901: the value at ptr in root, or NULL. */
static const cJSON *at_pointer(const cJSON *root, const char *ptr)
{
    const cJSON *cur = root;
    char tok[256];

    while (cur && *ptr == '/') {
        size_t n = 0;

        for (ptr++; *ptr && *ptr != '/'; ptr++) {
            char c = *ptr;

            if (c == '~' && (ptr[1] == '0' || ptr[1] == '1'))
                c = *++ptr == '0' ? '~' : '/';
            if (n + 1 >= sizeof(tok))
                return NULL;
            tok[n++] = c;
        }
        tok[n] = '\0';
        if (cJSON_IsArray(cur)) {
            char *end;
            long i = strtol(tok, &end, 10);

            if (!n || *end || (tok[0] == '0' && n > 1) || i < 0)
                return NULL;
            cur = cJSON_GetArrayItem(cur, (int)i);
        } else {
            cur = cJSON_IsObject(cur) ? member(cur, tok) : NULL;
        }
    }
    return *ptr ? NULL : cur;
}

/* A short JSON text of v for a message (into out). */
static void show(char *out, size_t cap, const cJSON *v)
{
    char *t = v ? cJSON_PrintUnformatted(v) : NULL;

    snprintf(out, cap, "%.60s%s", t ? t : "?", t && strlen(t) > 60 ? "..." : "");
    cJSON_free(t);
}

/* Every pointer of want must hold its value in req; 0 with why filled at the first that does
 * not. turn > 0 names the turn in the message. */
static int has_all(const cJSON *req, const cJSON *want, unsigned long turn, char *why,
                   size_t why_len)
{
    const cJSON *w;
    char got[80], exp[80], tn[32] = "";

    if (turn)
        snprintf(tn, sizeof(tn), "request %lu: ", turn);
    cJSON_ArrayForEach(w, want)
    {
        const cJSON *v = at_pointer(req, w->string);

        show(exp, sizeof(exp), w);
        if (!v)
            return fail(why, why_len, "%s%s is missing, want %s", tn, w->string, exp);
        if (!cJSON_Compare(v, w, 1)) {
            show(got, sizeof(got), v);
            return fail(why, why_len, "%s%s is %s, want %s", tn, w->string, got, exp);
        }
    }
    return 1;
}

static int check(const struct sim_fixture *fx, bool anthropic, const cJSON *req, unsigned long turn,
                 char *why, size_t why_len)
{
    const cJSON *x;
    char name[16];

    if (fx->provider && strcmp(fx->provider, anthropic ? "anthropic" : "openai") != 0)
        return fail(why, why_len, "an %s request to a fixture of %s",
                    anthropic ? "anthropic" : "openai", fx->provider);
    if (fx->has && !has_all(req, fx->has, 0, why, why_len))
        return 0;
    cJSON_ArrayForEach(x, fx->lacks)
    {
        if (at_pointer(req, x->valuestring))
            return fail(why, why_len, "the request carries %s", x->valuestring);
    }
    snprintf(name, sizeof(name), "%lu", turn);
    x = member(fx->in_turn, name);
    return !x || has_all(req, x, turn, why, why_len);
}

/* ---- the answer ------------------------------------------------------------------------- */

/* The text of a message's content: a string, or the first text part of an array. */
static const char *content_text(const cJSON *content)
{
    const cJSON *part;

    if (cJSON_IsString(content))
        return content->valuestring;
    cJSON_ArrayForEach(part, content)
    {
        const cJSON *t = member(part, "text");

        if (cJSON_IsString(t) && strstr(t->valuestring, "follows this JSON Schema:"))
            return t->valuestring;
    }
    return NULL;
}

/* The schema the prompt spells out (json_object and prompt modes): the JSON value after the
 * line that ends with the marker, in the last user message.  The caller frees it. */
static cJSON *prompt_schema(const cJSON *req)
{
    static const char marker[] = "follows this JSON Schema:";
    const cJSON *m, *last = NULL;
    const char *text, *at;

    cJSON_ArrayForEach(m, member(req, "messages"))
    {
        const cJSON *role = member(m, "role");

        if (cJSON_IsString(role) && !strcmp(role->valuestring, "user"))
            last = m;
    }
    text = content_text(member(last, "content"));
    at = text ? strstr(text, marker) : NULL;
    if (!at)
        return NULL;
    at += sizeof(marker) - 1;
    if (strchr(at, '\n'))
        at = strchr(at, '\n') + 1;
    return cJSON_ParseWithOpts(at, NULL, 0);
}

/* The reply schema the request carries (borrowed) or spells out in its prompt (*owned). */
static const cJSON *reply_schema(const cJSON *req, bool anthropic, cJSON **owned)
{
    const cJSON *s;

    *owned = NULL;
    if (anthropic) {
        s = member(cJSON_GetArrayItem(member(req, "tools"), 0), "input_schema");
        if (!s)
            s = member(member(req, "output_format"), "schema");
    } else {
        s = member(member(member(req, "response_format"), "json_schema"), "schema");
    }
    if (cJSON_IsObject(s))
        return s;
    *owned = prompt_schema(req);
    if (!cJSON_IsObject(*owned)) {
        cJSON_Delete(*owned);
        *owned = NULL;
    }
    return *owned;
}

static const char *tool_name(const cJSON *req)
{
    const cJSON *n = member(member(req, "tool_choice"), "name");

    if (!cJSON_IsString(n))
        n = member(cJSON_GetArrayItem(member(req, "tools"), 0), "name");
    return cJSON_IsString(n) ? n->valuestring : "tool";
}

/* "{{time+Nms}}": now plus N ms as an RFC 3339 UTC time with milliseconds. */
static void time_after(struct sbuf *b, long ms)
{
    struct timespec ts;
    struct tm tm;
    long long t;
    char out[64];
    time_t sec;

    clock_gettime(CLOCK_REALTIME, &ts);
    t = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + ms;
    sec = (time_t)(t / 1000);
    gmtime_r(&sec, &tm);
    strftime(out, sizeof(out), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + strlen(out), sizeof(out) - strlen(out), ".%03dZ", (int)(t % 1000));
    sb_add(b, out, strlen(out));
}

/* s with every placeholder filled in; NULL on ENOMEM. */
static char *expand(const char *s, const struct fill *f)
{
    struct sbuf b = {.ok = 1};
    const char *p = s;

    sb_add(&b, "", 0);
    while (*p) {
        const char *open = strstr(p, "{{"), *close;
        char *end;
        long ms;

        if (!open) {
            sb_add(&b, p, strlen(p));
            break;
        }
        sb_add(&b, p, (size_t)(open - p));
        close = strstr(open, "}}");
        p = close ? close + 2 : open + 2;
        if (close && !strncmp(open, "{{answer}}", 10))
            sb_add(&b, f->answer, strlen(f->answer));
        else if (close && !strncmp(open, "{{answer_half}}", 15))
            sb_add(&b, f->answer, f->half);
        else if (close && !strncmp(open, "{{answer_rest}}", 15))
            sb_add(&b, f->answer + f->half, strlen(f->answer + f->half));
        else if (close && !strncmp(open, "{{model}}", 9))
            sb_add(&b, f->model, strlen(f->model));
        else if (close && !strncmp(open, "{{tool_name}}", 13))
            sb_add(&b, f->tool, strlen(f->tool));
        else if (close && !strncmp(open, "{{time+", 7) && (ms = strtol(open + 7, &end, 10)) >= 0 &&
                 !strncmp(end, "ms}}", 4) && end + 2 == close)
            time_after(&b, ms);
        else /* not a placeholder: kept as it is */
            sb_add(&b, open, (size_t)(p - open));
    }
    if (!b.ok) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

/* A deep copy of v with the placeholders of its strings filled in; NULL on ENOMEM. */
static cJSON *expand_value(const cJSON *v, const struct fill *f)
{
    const cJSON *c;
    cJSON *out;

    if (cJSON_IsString(v)) {
        char *t;

        if (!strcmp(v->valuestring, "{{answer_object}}"))
            return cJSON_Duplicate(f->value, 1);
        t = expand(v->valuestring, f);
        out = t ? cJSON_CreateString(t) : NULL;
        free(t);
        return out;
    }
    if (!cJSON_IsArray(v) && !cJSON_IsObject(v))
        return cJSON_Duplicate(v, 1);
    out = cJSON_IsArray(v) ? cJSON_CreateArray() : cJSON_CreateObject();
    cJSON_ArrayForEach(c, v)
    {
        cJSON *e = expand_value(c, f);
        bool ok = e && (cJSON_IsArray(v) ? cJSON_AddItemToArray(out, e)
                                         : cJSON_AddItemToObject(out, c->string, e));

        if (!ok) {
            cJSON_Delete(e);
            cJSON_Delete(out);
            return NULL;
        }
    }
    return out;
}

/* The event stream of the chunks: "data: <json>\n\n" each, an Anthropic event named by its
 * "type" on an "event:" line first, as Anthropic streams. */
static char *sse_body(const cJSON *chunks, bool anthropic, const struct fill *f)
{
    struct sbuf b = {.ok = 1};
    const cJSON *c;

    cJSON_ArrayForEach(c, chunks)
    {
        char *t = NULL;
        const cJSON *type = member(c, "type");

        if (cJSON_IsString(c)) {
            t = expand(c->valuestring, f);
        } else {
            cJSON *v = expand_value(c, f);

            t = v ? cJSON_PrintUnformatted(v) : NULL;
            cJSON_Delete(v);
        }
        if (!t) {
            free(b.s);
            return NULL;
        }
        if (anthropic && cJSON_IsString(type)) {
            sb_add(&b, "event: ", 7);
            sb_add(&b, type->valuestring, strlen(type->valuestring));
            sb_add(&b, "\n", 1);
        }
        sb_add(&b, "data: ", 6);
        sb_add(&b, t, strlen(t));
        sb_add(&b, "\n\n", 2);
        free(t);
    }
    if (!b.ok) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

/* The body of one scripted reply, and its content type; 0 on ENOMEM. */
static int build(const cJSON *rep, bool anthropic, const struct fill *f, struct sim_reply *r)
{
    const cJSON *json = member(rep, "json"), *text = member(rep, "text"), *sse = member(rep, "sse");
    const cJSON *ct = member(rep, "content_type");
    cJSON *v;

    r->status = (int)member(rep, "status")->valuedouble;
    r->content_type = cJSON_IsString(ct) ? ct->valuestring : sse ? "text/event-stream" : NULL;
    if (json) {
        v = expand_value(json, f);
        r->text = v ? cJSON_PrintUnformatted(v) : NULL;
        cJSON_Delete(v);
    } else if (cJSON_IsString(text)) {
        r->text = expand(text->valuestring, f);
    } else if (sse) {
        r->text = sse_body(sse, anthropic, f);
    } else {
        r->text = calloc(1, 1);
    }
    if (!r->text)
        return 0;
    r->len = strlen(r->text);
    if (member(rep, "headers")) {
        r->headers = expand_value(member(rep, "headers"), f);
        if (!r->headers)
            return 0;
    }
    return 1;
}

/* The first rule whose "when" the request matches, or NULL. */
static const cJSON *rule_for(const struct sim_fixture *fx, const cJSON *req)
{
    const cJSON *rule;
    char why[8];

    cJSON_ArrayForEach(rule, fx->rules)
    {
        if (has_all(req, member(rule, "when"), 0, why, sizeof(why)))
            return member(rule, "reply");
    }
    return NULL;
}

enum sim_fixture_result sim_fixture_answer(struct sim_fixture *fx, bool anthropic, const cJSON *req,
                                           const unsigned char seed[SIM_DIGEST_LEN],
                                           struct sim_reply *r, char *why, size_t why_len)
{
    const cJSON *rep = rule_for(fx, req), *schema, *m = member(req, "model");
    unsigned long turn, n;
    struct sim_gen g = {0};
    struct fill f = {0};
    cJSON *owned, *value;
    char *answer;
    int ok;

    /* A request the checks refuse still takes its turn, so turns stay the arrival order. */
    pthread_mutex_lock(&fx->lock);
    turn = ++fx->turns;
    n = rep ? 0 : ++fx->scripted;
    pthread_mutex_unlock(&fx->lock);
    if (!check(fx, anthropic, req, turn, why, why_len))
        return SIM_FIXTURE_MISMATCH;
    if (!rep) {
        int last = cJSON_GetArraySize(fx->replies) - 1;

        rep = cJSON_GetArrayItem(fx->replies, n - 1 < (unsigned long)last ? (int)(n - 1) : last);
    }
    schema = reply_schema(req, anthropic, &owned);
    sim_rng_seed(&g.rng, seed);
    g.root = schema;
    value = sim_gen_value(&g, schema);
    answer = value ? cJSON_PrintUnformatted(value) : NULL;
    cJSON_Delete(owned);
    if (!answer) {
        cJSON_Delete(value);
        return SIM_FIXTURE_ENOMEM;
    }
    /* Half of the text, backed off to the start of a UTF-8 sequence. */
    f.half = strlen(answer) / 2;
    while (f.half > 0 && ((unsigned char)answer[f.half] & 0xC0) == 0x80)
        f.half--;
    f.answer = answer;
    f.value = value;
    f.model = cJSON_IsString(m) ? m->valuestring : "judge-sim";
    f.tool = tool_name(req);
    r->scripted = true;
    ok = build(rep, anthropic, &f, r);
    cJSON_free(answer);
    cJSON_Delete(value);
    return ok ? SIM_FIXTURE_REPLY : SIM_FIXTURE_ENOMEM;
}
