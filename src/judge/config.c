/*
 * config.c - the judge configuration: reading it, its canonical hash (the
 * identity calibration is stored under), and its JSON without secrets.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "arbiter/json.h"
#include "judge_int.h"

static const char *const keys[] = {
    "provider",   "base_url", "model",       "api_key_env", "swap",        "samples", "temperature",
    "max_tokens", "seed",     "concurrency", "timeout_s",   "max_retries", "command", "price",
    "cwd",        "response_format", "max_tokens_field", "max_tokens_cap", "extra_body",
    "headers",    "feedback", "mode", "batch_poll_s", "batch_max_requests", "batch_retry", NULL};

static const char *const rf_names[] = {"json_schema", "json_schema_loose", "json_object",
                                       "prompt"};

const char *arb_judge_response_format_name(enum arb_judge_response_format rf)
{
    return (size_t)rf < sizeof(rf_names) / sizeof(rf_names[0]) ? rf_names[rf] : "json_schema";
}

static const char *provider_name(enum arb_judge_provider p)
{
    switch (p) {
    case ARB_JUDGE_OPENAI:
        return "openai";
    case ARB_JUDGE_ANTHROPIC:
        return "anthropic";
    case ARB_JUDGE_COMMAND:
        return "command";
    }
    return "openai";
}

void arb_judge_config_release(struct arb_judge_config *cfg)
{
    size_t i;

    for (i = 0; cfg->command && cfg->command[i]; i++)
        free(cfg->command[i]);
    free(cfg->command);
    free(cfg->cwd);
    free(cfg->base_url);
    free(cfg->model);
    free(cfg->api_key_env);
    cJSON_Delete(cfg->extra_body);
    for (i = 0; i < cfg->n_headers; i++) {
        free(cfg->headers[i].name);
        free(cfg->headers[i].value);
        free(cfg->headers[i].value_env);
    }
    free(cfg->headers);
    memset(cfg, 0, sizeof(*cfg));
}

static enum arb_status get_string(const cJSON *obj, const char *k, char **out, struct arb_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, k);

    if (!v)
        return ARB_OK;
    if (!cJSON_IsString(v) || !v->valuestring[0])
        return arb_err_set(err, ARB_ESCHEMA, "/judge/%s: expected a non-empty string", k);
    free(*out);
    *out = strdup(v->valuestring);
    return *out ? ARB_OK : ARB_ENOMEM;
}

static enum arb_status get_number(const cJSON *obj, const char *k, double lo, double hi, int whole,
                                  double *out, int *present, struct arb_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, k);

    if (present)
        *present = v != NULL;
    if (!v)
        return ARB_OK;
    if (!cJSON_IsNumber(v) || v->valuedouble < lo || v->valuedouble > hi ||
        (whole && v->valuedouble != (double)(long long)v->valuedouble))
        return arb_err_set(err, ARB_ESCHEMA, "/judge/%s: expected a%s number from %g to %g", k,
                           whole ? " whole" : "", lo, hi);
    *out = v->valuedouble;
    return ARB_OK;
}

double arb_judge_cost(const struct arb_judge_price *price, long long prompt, long long cached,
                      long long completion)
{
    if (!price || !price->set)
        return 0.0;
    if (cached > prompt)
        cached = prompt;
    return ((double)(prompt - cached) * price->input + (double)cached * price->cached_input +
            (double)completion * price->output) /
           1e6;
}

/* "price": {"input": USD, "output": USD, "cached_input": USD} per million tokens. */
static enum arb_status get_price(const cJSON *obj, struct arb_judge_config *cfg,
                                 struct arb_err *err)
{
    static const char *const names[] = {"input", "output", "cached_input"};
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(obj, "price"), *k;
    double *fields[] = {&cfg->price.input, &cfg->price.output, &cfg->price.cached_input};
    int seen[3] = {0, 0, 0};
    size_t i;

    if (!p)
        return ARB_OK;
    if (cfg->provider == ARB_JUDGE_COMMAND)
        return arb_err_set(err, ARB_ESCHEMA,
                           "/judge/price: a command judge reports no tokens, so it has no price");
    if (!cJSON_IsObject(p))
        return arb_err_set(err, ARB_ESCHEMA,
                           "/judge/price: expected an object of US dollars per million tokens: "
                           "{\"input\": 0.15, \"output\": 0.6, \"cached_input\": 0.075}");
    cJSON_ArrayForEach(k, p)
    {
        for (i = 0; i < 3 && strcmp(names[i], k->string) != 0; i++)
            ;
        if (i == 3)
            return arb_err_set(err, ARB_ESCHEMA,
                               "/judge/price/%s: unknown key (valid: input, output, cached_input)",
                               k->string);
        if (!cJSON_IsNumber(k) || !(k->valuedouble >= 0 && k->valuedouble <= 1e6))
            return arb_err_set(err, ARB_ESCHEMA,
                               "/judge/price/%s: expected US dollars per million tokens, a "
                               "number from 0 to 1000000",
                               k->string);
        *fields[i] = k->valuedouble;
        seen[i] = 1;
    }
    if (!seen[0] || !seen[1])
        return arb_err_set(err, ARB_ESCHEMA, "/judge/price: missing required key '%s'",
                           seen[0] ? "output" : "input");
    if (!seen[2])
        cfg->price.cached_input = cfg->price.input;
    cfg->price.set = 1;
    return ARB_OK;
}

/*
 * A command judge's directory: the config's "cwd" made absolute, or the working directory.
 * Part of the judge's identity (endpoint.c): the same argv in another directory may run
 * another program, and relative paths in it mean other files.
 */
static enum arb_status get_cwd(const cJSON *obj, struct arb_judge_config *cfg, struct arb_err *err)
{
    char *given = NULL, *here = NULL;
    size_t cap = 256;
    enum arb_status st = get_string(obj, "cwd", &given, err);

    if (st)
        return st;
    if (given && given[0] == '/') {
        cfg->cwd = given;
        return ARB_OK;
    }
    for (;;) {
        char *p = realloc(here, cap);

        if (!p) {
            st = ARB_ENOMEM;
            break;
        }
        here = p;
        if (getcwd(here, cap))
            break;
        if (errno != ERANGE || cap > (1u << 20)) {
            st = arb_err_set(err, ARB_EIO, "/judge/cwd: cannot read the working directory: %s",
                             strerror(errno));
            break;
        }
        cap *= 2;
    }
    if (!st && given) {
        size_t n = strlen(here) + strlen(given) + 2;

        cfg->cwd = malloc(n);
        if (cfg->cwd)
            snprintf(cfg->cwd, n, "%s/%s", here, given);
        st = cfg->cwd ? ARB_OK : ARB_ENOMEM;
    } else if (!st) {
        cfg->cwd = here;
        here = NULL;
    }
    free(here);
    free(given);
    return st;
}

enum arb_status arb_judge_config_parse(const cJSON *obj, struct arb_judge_config *cfg,
                                       struct arb_err *err)
{
    const cJSON *k, *v;
    double d;
    int present;
    size_t i;
    enum arb_status st = ARB_OK;

    memset(cfg, 0, sizeof(*cfg));
    cfg->swap = 1;
    cfg->samples = 1;
    cfg->max_tokens = 1024;
    cfg->concurrency = 8;
    cfg->timeout_s = 60;
    cfg->max_retries = 4;
    if (!cJSON_IsObject(obj))
        return arb_err_set(err, ARB_ESCHEMA, "/judge: expected an object");
    cJSON_ArrayForEach(k, obj)
    {
        for (i = 0; keys[i] && strcmp(keys[i], k->string) != 0; i++)
            ;
        if (!keys[i])
            return arb_err_set(err, ARB_ESCHEMA,
                               "/judge/%s: unknown key (valid: provider, base_url, model, "
                               "api_key_env, swap, samples, temperature, max_tokens, seed, "
                               "concurrency, timeout_s, max_retries, command, cwd, price, "
                               "response_format, max_tokens_field, max_tokens_cap, extra_body, "
                               "headers, feedback, mode, batch_poll_s, batch_max_requests, "
                               "batch_retry)",
                               k->string);
    }
    v = cJSON_GetObjectItemCaseSensitive(obj, "provider");
    if (v && !(cJSON_IsString(v) &&
               (strcmp(v->valuestring, "openai") == 0 || strcmp(v->valuestring, "anthropic") == 0 ||
                strcmp(v->valuestring, "command") == 0)))
        return arb_err_set(err, ARB_ESCHEMA,
                           "/judge/provider: expected \"openai\", \"anthropic\" or \"command\"");
    cfg->provider = !v                                         ? ARB_JUDGE_OPENAI
                    : strcmp(v->valuestring, "anthropic") == 0 ? ARB_JUDGE_ANTHROPIC
                    : strcmp(v->valuestring, "command") == 0   ? ARB_JUDGE_COMMAND
                                                               : ARB_JUDGE_OPENAI;
    st = get_string(obj, "base_url", &cfg->base_url, err);
    if (!st)
        st = get_string(obj, "model", &cfg->model, err);
    if (!st)
        st = get_string(obj, "api_key_env", &cfg->api_key_env, err);
    v = cJSON_GetObjectItemCaseSensitive(obj, "command");
    if (!st && cfg->provider == ARB_JUDGE_COMMAND) {
        const cJSON *a;
        size_t n = 0;

        if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) < 1)
            return arb_err_set(err, ARB_ESCHEMA,
                               "/judge/command: expected the program and its arguments as an "
                               "array of strings");
        cfg->command = calloc((size_t)cJSON_GetArraySize(v) + 1, sizeof(char *));
        if (!cfg->command)
            return ARB_ENOMEM;
        cJSON_ArrayForEach(a, v)
        {
            if (!cJSON_IsString(a) || !a->valuestring[0]) {
                arb_judge_config_release(cfg);
                return arb_err_set(err, ARB_ESCHEMA, "/judge/command/%zu: expected a string", n);
            }
            cfg->command[n] = strdup(a->valuestring);
            if (!cfg->command[n++]) {
                arb_judge_config_release(cfg);
                return ARB_ENOMEM;
            }
        }
        if (!cfg->model && !(cfg->model = strdup("command")))
            st = ARB_ENOMEM;
        if (!st)
            st = get_cwd(obj, cfg, err);
    } else if (!st && v) {
        st = arb_err_set(err, ARB_ESCHEMA, "/judge/command: only for the \"command\" provider");
    }
    if (!st && cfg->provider != ARB_JUDGE_COMMAND && cJSON_GetObjectItemCaseSensitive(obj, "cwd"))
        st = arb_err_set(err, ARB_ESCHEMA, "/judge/cwd: only for the \"command\" provider");
    if (!st && !cfg->base_url && cfg->provider != ARB_JUDGE_COMMAND) {
        cfg->base_url = strdup(cfg->provider == ARB_JUDGE_OPENAI ? "https://api.openai.com/v1"
                                                                 : "https://api.anthropic.com");
        st = cfg->base_url ? ARB_OK : ARB_ENOMEM;
    }
    if (!st && !cfg->model)
        st = arb_err_set(err, ARB_ESCHEMA, "/judge: missing required key 'model'");
    if (!st && !cfg->api_key_env && cfg->provider != ARB_JUDGE_COMMAND)
        st = arb_err_set(err, ARB_ESCHEMA,
                         "/judge: missing required key 'api_key_env' (the NAME of the "
                         "environment variable holding the key)");
    v = cJSON_GetObjectItemCaseSensitive(obj, "swap");
    if (!st && v) {
        if (!cJSON_IsBool(v))
            st = arb_err_set(err, ARB_ESCHEMA, "/judge/swap: expected true or false");
        cfg->swap = cJSON_IsTrue(v);
    }
    v = cJSON_GetObjectItemCaseSensitive(obj, "feedback");
    if (!st && v) {
        if (!cJSON_IsBool(v))
            st = arb_err_set(err, ARB_ESCHEMA, "/judge/feedback: expected true or false");
        cfg->feedback = cJSON_IsTrue(v);
        cfg->feedback_set = 1;
    }
    if (!st && !(st = get_number(obj, "samples", 1, 99, 1, &d, &present, err)) && present)
        cfg->samples = (int)d;
    v = cJSON_GetObjectItemCaseSensitive(obj, "temperature");
    if (!st && cJSON_IsNull(v))
        cfg->no_temperature = 1; /* o-series models refuse any temperature */
    else if (!st && !(st = get_number(obj, "temperature", 0, 2, 0, &d, &present, err)) && present)
        cfg->temperature = d;
    if (!st && cfg->provider == ARB_JUDGE_ANTHROPIC && cfg->temperature > 1)
        st = arb_err_set(err, ARB_ESCHEMA,
                         "/judge/temperature: Anthropic accepts a temperature from 0 to 1");
    if (!st && !(st = get_number(obj, "max_tokens", 1, 1e6, 1, &d, &present, err)) && present)
        cfg->max_tokens = (long)d;
    if (!st && !(st = get_number(obj, "seed", -9e15, 9e15, 1, &d, &present, err)) && present) {
        cfg->has_seed = 1;
        cfg->seed = (long long)d;
    }
    if (!st && !(st = get_number(obj, "concurrency", 1, 1024, 1, &d, &present, err)) && present)
        cfg->concurrency = (size_t)d;
    if (!st && !(st = get_number(obj, "timeout_s", 0.1, 3600, 0, &d, &present, err)) && present)
        cfg->timeout_s = d;
    if (!st && !(st = get_number(obj, "max_retries", 0, 20, 1, &d, &present, err)) && present)
        cfg->max_retries = (int)d;
    if (!st)
        st = get_price(obj, cfg, err);
    if (!st)
        st = judge_config_provider_options(obj, cfg, err);
    if (!st)
        st = judge_config_batch(obj, cfg, err);
    if (!st)
        st = arb_judge_config_rehash(cfg, err);
    if (st)
        arb_judge_config_release(cfg);
    return st;
}

/* Where base_url's user-info (user:password@) starts and ends, when it has one. */
static int userinfo(const char *url, const char **from, const char **to)
{
    size_t n;

    if (!judge_url_userinfo(url, from, &n))
        return 0;
    *to = *from + n + 1;
    return 1;
}

char *arb_judge_url_without_credentials(const char *url, int *oom)
{
    const char *from, *to;
    size_t n;
    char *bare;

    *oom = 0;
    if (!userinfo(url, &from, &to))
        return NULL;
    n = strlen(url);
    bare = malloc(n + 1);
    if (!bare) {
        *oom = 1;
        return NULL;
    }
    memcpy(bare, url, (size_t)(from - url));
    memcpy(bare + (from - url), to, n - (size_t)(to - url) + 1);
    return bare;
}

cJSON *arb_judge_config_json(const struct arb_judge_config *cfg)
{
    cJSON *o = cJSON_CreateObject();
    int ok = o != NULL, oom = 0;
    char *bare = cfg->base_url ? arb_judge_url_without_credentials(cfg->base_url, &oom) : NULL;

    ok = ok && !oom && cJSON_AddStringToObject(o, "provider", provider_name(cfg->provider));
    if (ok && bare) {
        /* Credentials in the URL are secrets: stored without them, and said so. */
        ok = cJSON_AddStringToObject(o, "base_url", bare) &&
             cJSON_AddTrueToObject(o, "base_url_credentials");
    } else if (ok && cfg->base_url) {
        ok = cJSON_AddStringToObject(o, "base_url", cfg->base_url) != NULL;
    }
    ok = ok && cJSON_AddStringToObject(o, "model", cfg->model);
    if (ok && cfg->api_key_env)
        ok = cJSON_AddStringToObject(o, "api_key_env", cfg->api_key_env) != NULL;
    if (ok && cfg->command) {
        cJSON *argv = cJSON_AddArrayToObject(o, "command");
        size_t i;

        for (i = 0; ok && argv && cfg->command[i]; i++)
            ok = cJSON_AddItemToArray(argv, cJSON_CreateString(cfg->command[i]));
        ok = ok && argv;
    }
    if (ok && cfg->cwd)
        ok = cJSON_AddStringToObject(o, "cwd", cfg->cwd) != NULL;
    ok = ok && cJSON_AddBoolToObject(o, "swap", cfg->swap);
    ok = ok && cJSON_AddNumberToObject(o, "samples", cfg->samples);
    if (ok && cfg->feedback_set)
        ok = cJSON_AddBoolToObject(o, "feedback", cfg->feedback) != NULL;
    if (cfg->no_temperature)
        ok = ok && cJSON_AddNullToObject(o, "temperature");
    else
        ok = ok && cJSON_AddNumberToObject(o, "temperature", cfg->temperature);
    ok = ok && cJSON_AddNumberToObject(o, "max_tokens", (double)cfg->max_tokens);
    if (ok && cfg->has_seed)
        ok = cJSON_AddNumberToObject(o, "seed", (double)cfg->seed) != NULL;
    ok = ok && judge_config_provider_json(cfg, o);
    ok = ok && judge_config_batch_json(cfg, o);
    ok = ok && cJSON_AddNumberToObject(o, "concurrency", (double)cfg->concurrency);
    ok = ok && cJSON_AddNumberToObject(o, "timeout_s", cfg->timeout_s);
    ok = ok && cJSON_AddNumberToObject(o, "max_retries", cfg->max_retries);
    if (ok && cfg->price.set) {
        cJSON *p = cJSON_AddObjectToObject(o, "price");

        ok = p && cJSON_AddNumberToObject(p, "input", cfg->price.input) &&
             cJSON_AddNumberToObject(p, "output", cfg->price.output) &&
             cJSON_AddNumberToObject(p, "cached_input", cfg->price.cached_input);
    }
    free(bare);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

enum arb_status arb_judge_config_rehash(struct arb_judge_config *cfg, struct arb_err *err)
{
    /* The identity: what changes judgments (not transport settings), plus the prompt. */
    cJSON *o = cJSON_CreateObject();
    char *canon = NULL, *tmpl = judge_template();
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    enum arb_status st = ARB_ENOMEM;

    if (o && tmpl && cJSON_AddStringToObject(o, "provider", provider_name(cfg->provider)) &&
        cJSON_AddStringToObject(o, "model", cfg->model) &&
        cJSON_AddBoolToObject(o, "swap", cfg->swap) &&
        cJSON_AddNumberToObject(o, "samples", cfg->samples) &&
        (cfg->no_temperature ? cJSON_AddNullToObject(o, "temperature") != NULL
                             : cJSON_AddNumberToObject(o, "temperature", cfg->temperature) != NULL) &&
        cJSON_AddNumberToObject(o, "max_tokens", (double)cfg->max_tokens) &&
        (!cfg->has_seed || cJSON_AddNumberToObject(o, "seed", (double)cfg->seed)) &&
        cJSON_AddStringToObject(o, "prompt", tmpl) && judge_config_provider_hash(cfg, o) &&
        /* Only when on: every config without it keeps the hash it always had. */
        (!cfg->feedback || cJSON_AddTrueToObject(o, "feedback"))) {
        size_t a;
        cJSON *argv = cfg->command ? cJSON_AddArrayToObject(o, "command") : NULL;

        for (a = 0; argv && cfg->command[a]; a++)
            cJSON_AddItemToArray(argv, cJSON_CreateString(cfg->command[a]));
        st = arb_jcs_string(o, &canon, NULL, err);
    }
    if (!st && !EVP_Digest(canon, strlen(canon), md, &n, EVP_sha256(), NULL))
        st = arb_err_set(err, ARB_EINTERNAL, "cannot hash the judge config");
    if (!st)
        arb_hex(md, n, cfg->hash);
    free(canon);
    free(tmpl);
    cJSON_Delete(o);
    return st;
}
