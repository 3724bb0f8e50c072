/*
 * config_provider.c - the judge config's options for real providers (config.c reads the
 * rest): "response_format", "max_tokens_field", "max_tokens_cap", "extra_body" and
 * "headers"; how they are stored with a run and what of them is the judge's identity.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "judge_int.h"

/* Header names whose value is a credential: it must come from the environment. */
int arb_judge_credential_name(const char *name)
{
    static const char *const words[] = {"auth", "key", "token", "secret", "cookie", "password"};

    return judge_mentions(name, words, sizeof(words) / sizeof(words[0]));
}

/* max_tokens_cap when the config gives none: four times max_tokens, at most a million. */
static long default_cap(const struct arb_judge_config *cfg)
{
    return cfg->max_tokens <= 250000 ? 4 * cfg->max_tokens : 1000000;
}

/* An HTTP field name (RFC 9110 token): letters, digits and !#$%&'*+-.^_`|~ only. */
static int token_name(const char *name)
{
    const char *p;

    if (!*name)
        return 0;
    for (p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("!#$%&'*+-.^_`|~", *p))
            return 0;
    return 1;
}

/* Names Arbiter sends itself: a gateway header may not replace them. */
static int reserved_name(const char *name)
{
    static const char *const own[] = {"authorization", "x-api-key", "content-type",
                                      "anthropic-version", "accept", "expect",
                                      "content-length", "host"};
    size_t i;

    for (i = 0; i < sizeof(own) / sizeof(own[0]); i++)
        if (strcasecmp(name, own[i]) == 0)
            return 1;
    return 0;
}

static enum arb_status get_headers(const cJSON *v, struct arb_judge_config *cfg,
                                   struct arb_err *err)
{
    const cJSON *h;
    size_t n = 0;

    if (!cJSON_IsObject(v))
        return arb_err_set(err, ARB_ESCHEMA,
                           "/judge/headers: expected an object of header names and values: "
                           "{\"HTTP-Referer\": \"https://example.org\", \"X-Gateway-Key\": "
                           "{\"env\": \"GATEWAY_KEY\"}}");
    cfg->headers = calloc((size_t)cJSON_GetArraySize(v) + 1, sizeof(*cfg->headers));
    if (!cfg->headers)
        return ARB_ENOMEM;
    cJSON_ArrayForEach(h, v)
    {
        struct arb_judge_header *out = &cfg->headers[n];
        const cJSON *env = cJSON_GetObjectItemCaseSensitive(h, "env");

        if (!token_name(h->string))
            return arb_err_set(err, ARB_ESCHEMA,
                               "/judge/headers/%s: not a valid header name (letters, digits and "
                               "-_.!#$%%&'*+^`|~ only)",
                               h->string);
        if (reserved_name(h->string))
            return arb_err_set(err, ARB_ESCHEMA,
                               "/judge/headers/%s: Arbiter sends this header itself (the key "
                               "comes from api_key_env)",
                               h->string);
        if (cJSON_IsString(h)) {
            if (arb_judge_credential_name(h->string))
                return arb_err_set(err, ARB_ESCHEMA,
                                   "/judge/headers/%s: a credential is never written in the "
                                   "config (it would be stored with every run): name the "
                                   "variable that holds it, {\"env\": \"NAME\"}",
                                   h->string);
            if (strpbrk(h->valuestring, "\r\n"))
                return arb_err_set(err, ARB_ESCHEMA,
                                   "/judge/headers/%s: a header value cannot hold a line break",
                                   h->string);
            out->value = strdup(h->valuestring);
        } else if (cJSON_IsObject(h) && cJSON_GetArraySize(h) == 1 && cJSON_IsString(env) &&
                   env->valuestring[0]) {
            out->value_env = strdup(env->valuestring);
        } else {
            return arb_err_set(err, ARB_ESCHEMA,
                               "/judge/headers/%s: expected a string, or {\"env\": \"NAME\"} "
                               "for a value held in an environment variable",
                               h->string);
        }
        out->name = strdup(h->string);
        cfg->n_headers = ++n;
        if (!out->name || (!out->value && !out->value_env))
            return ARB_ENOMEM;
    }
    return ARB_OK;
}

/* Members of the body Arbiter cannot let extra_body replace: they are the question itself. */
static const char *const own_members[] = {"model", "messages", "system", "tools", "tool_choice"};

static enum arb_status get_extra_body(const cJSON *v, struct arb_judge_config *cfg,
                                      struct arb_err *err)
{
    size_t i;

    if (!cJSON_IsObject(v))
        return arb_err_set(err, ARB_ESCHEMA,
                           "/judge/extra_body: expected an object of members to add to every "
                           "request body, e.g. {\"reasoning_effort\": \"low\"}");
    for (i = 0; i < sizeof(own_members) / sizeof(own_members[0]); i++)
        if (cJSON_GetObjectItemCaseSensitive(v, own_members[i]))
            return arb_err_set(err, ARB_ESCHEMA,
                               "/judge/extra_body/%s: Arbiter sets this member itself",
                               own_members[i]);
    cfg->extra_body = cJSON_Duplicate(v, 1);
    return cfg->extra_body ? ARB_OK : ARB_ENOMEM;
}

enum arb_status judge_config_provider_options(const cJSON *obj, struct arb_judge_config *cfg,
                                              struct arb_err *err)
{
    const cJSON *v;
    int http = cfg->provider != ARB_JUDGE_COMMAND;
    size_t i;
    enum arb_status st = ARB_OK;

    v = cJSON_GetObjectItemCaseSensitive(obj, "response_format");
    if (v) {
        for (i = 0; i < 4 && !(cJSON_IsString(v) &&
                               strcmp(v->valuestring, arb_judge_response_format_name(
                                                          (enum arb_judge_response_format)i)) == 0);
             i++)
            ;
        if (i == 4)
            return arb_err_set(err, ARB_ESCHEMA,
                               "/judge/response_format: expected \"json_schema\", "
                               "\"json_schema_loose\", \"json_object\" or \"prompt\"");
        if (!http)
            return arb_err_set(err, ARB_ESCHEMA,
                               "/judge/response_format: only for the openai and anthropic "
                               "providers (a command reads the schema from its input)");
        cfg->response_format = (enum arb_judge_response_format)i;
    }
    v = cJSON_GetObjectItemCaseSensitive(obj, "max_tokens_field");
    if (v) {
        if (!cJSON_IsString(v) || (strcmp(v->valuestring, "max_tokens") != 0 &&
                                   strcmp(v->valuestring, "max_completion_tokens") != 0))
            return arb_err_set(err, ARB_ESCHEMA,
                               "/judge/max_tokens_field: expected \"max_tokens\" or "
                               "\"max_completion_tokens\"");
        if (cfg->provider != ARB_JUDGE_OPENAI)
            return arb_err_set(err, ARB_ESCHEMA,
                               "/judge/max_tokens_field: only for the openai provider");
        cfg->max_completion_tokens = strcmp(v->valuestring, "max_completion_tokens") == 0;
    }
    cfg->max_tokens_cap = default_cap(cfg);
    v = cJSON_GetObjectItemCaseSensitive(obj, "max_tokens_cap");
    if (v) {
        if (!cJSON_IsNumber(v) || v->valuedouble < (double)cfg->max_tokens ||
            v->valuedouble > 1e6 || v->valuedouble != (double)(long)v->valuedouble)
            return arb_err_set(err, ARB_ESCHEMA,
                               "/judge/max_tokens_cap: expected a whole number from max_tokens "
                               "(%ld) to 1000000",
                               cfg->max_tokens);
        cfg->max_tokens_cap = (long)v->valuedouble;
    }
    v = cJSON_GetObjectItemCaseSensitive(obj, "extra_body");
    if (v && !http)
        return arb_err_set(err, ARB_ESCHEMA,
                           "/judge/extra_body: only for the openai and anthropic providers");
    if (v)
        st = get_extra_body(v, cfg, err);
    v = cJSON_GetObjectItemCaseSensitive(obj, "headers");
    if (!st && v && !http)
        return arb_err_set(err, ARB_ESCHEMA,
                           "/judge/headers: only for the openai and anthropic providers");
    if (!st && v)
        st = get_headers(v, cfg, err);
    return st;
}

int judge_config_provider_json(const struct arb_judge_config *cfg, cJSON *o)
{
    cJSON *h;
    size_t i;
    int ok = 1;

    if (cfg->provider != ARB_JUDGE_COMMAND)
        ok = cJSON_AddStringToObject(o, "response_format",
                                     arb_judge_response_format_name(cfg->response_format)) !=
             NULL;
    if (ok && cfg->max_completion_tokens)
        ok = cJSON_AddStringToObject(o, "max_tokens_field", "max_completion_tokens") != NULL;
    ok = ok && cJSON_AddNumberToObject(o, "max_tokens_cap", (double)cfg->max_tokens_cap);
    if (ok && cfg->extra_body)
        ok = cJSON_AddItemToObject(o, "extra_body", cJSON_Duplicate(cfg->extra_body, 1));
    if (ok && cfg->n_headers) {
        /* A value from the environment is stored as its variable's name, never its value. */
        ok = (h = cJSON_AddObjectToObject(o, "headers")) != NULL;
        for (i = 0; ok && i < cfg->n_headers; i++) {
            const struct arb_judge_header *x = &cfg->headers[i];
            cJSON *env;

            if (x->value)
                ok = cJSON_AddStringToObject(h, x->name, x->value) != NULL;
            else
                ok = (env = cJSON_AddObjectToObject(h, x->name)) &&
                     cJSON_AddStringToObject(env, "env", x->value_env);
        }
    }
    return ok;
}

int judge_config_provider_hash(const struct arb_judge_config *cfg, cJSON *o)
{
    /* Only what differs from the defaults, so the hash of every config written before these
     * options existed (and the calibrations stored under it) stays what it was. */
    if (cfg->response_format != ARB_RF_JSON_SCHEMA &&
        !cJSON_AddStringToObject(o, "response_format",
                                 arb_judge_response_format_name(cfg->response_format)))
        return 0;
    if (cfg->max_completion_tokens &&
        !cJSON_AddStringToObject(o, "max_tokens_field", "max_completion_tokens"))
        return 0;
    if (cfg->max_tokens_cap != default_cap(cfg) &&
        !cJSON_AddNumberToObject(o, "max_tokens_cap", (double)cfg->max_tokens_cap))
        return 0;
    if (cfg->extra_body &&
        !cJSON_AddItemToObject(o, "extra_body", cJSON_Duplicate(cfg->extra_body, 1)))
        return 0;
    return 1;
}
