/*
 * endpoint.c - which judge answers: the part of a cache key that names the
 * judge rather than the question.
 *
 * Two judges with the same provider and model name are not the same judge
 * when they are reached at different places: two OpenAI-compatible servers
 * serving "llama-3" answer differently, and so do two `command` judges
 * running different programs.  So the key covers the provider and where
 * requests go: an HTTP judge's base_url, normalised (scheme and host in
 * lower case, no user-info, no trailing slash), and a command judge's argv
 * with the directory it runs in.  Credentials in a URL identify nobody's
 * judge and are secrets: they are never hashed (and so never need storing).
 * Model and parameters travel in the request body, which the key covers
 * whole (request.c).  And the URL the requests go to (judge_request_url).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/buf.h"
#include "judge_int.h"

int judge_url_userinfo(const char *url, const char **from, size_t *len)
{
    const char *auth = url ? strstr(url, "://") : NULL, *end, *at = NULL, *p;

    if (!auth)
        return 0;
    auth += 3;
    end = auth + strcspn(auth, "/?#");
    for (p = auth; p < end; p++)
        if (*p == '@')
            at = p; /* the last '@' ends the user-info: a password may hold a raw one */
    if (!at)
        return 0;
    *from = auth;
    *len = (size_t)(at - auth);
    return 1;
}

size_t judge_percent_decode(const char *s, size_t n, char *out)
{
    size_t i, k = 0;

    for (i = 0; i < n; i++) {
        int hi = -1, lo = -1;

        if (s[i] == '%' && i + 2 < n) {
            hi = arb_hex_value(s[i + 1]);
            lo = arb_hex_value(s[i + 2]);
        }
        if (hi < 0 || lo < 0) { /* not an escape: kept as written, as libcurl does */
            out[k++] = s[i];
            continue;
        }
        if (hi == 0 && lo == 0)
            return 0; /* a NUL: libcurl refuses such credentials */
        out[k++] = (char)(hi * 16 + lo);
        i += 2;
    }
    return k;
}

char *judge_base_url_normal(const char *url)
{
    const char *scheme_end, *auth, *host_end, *ui;
    size_t n, i, len, ui_len;
    char *out;

    if (!url)
        return NULL;
    len = strlen(url);
    out = malloc(len + 1);
    if (!out)
        return NULL;
    scheme_end = strstr(url, "://");
    if (!scheme_end) {
        memcpy(out, url, len + 1);
    } else {
        auth = scheme_end + 3;
        host_end = auth + strcspn(auth, "/?#");
        if (judge_url_userinfo(url, &ui, &ui_len))
            auth = ui + ui_len + 1;
        n = 0;
        for (const char *p = url; p < scheme_end + 3; p++)
            out[n++] = (char)tolower((unsigned char)*p);
        for (const char *p = auth; p < host_end; p++)
            out[n++] = (char)tolower((unsigned char)*p);
        i = strlen(host_end);
        memcpy(out + n, host_end, i + 1);
    }
    n = strlen(out);
    while (n > 0 && out[n - 1] == '/')
        out[--n] = '\0';
    return out;
}

cJSON *judge_identity(const struct arb_judge_config *cfg)
{
    cJSON *o = cJSON_CreateObject(), *argv = NULL;
    char *url = NULL;
    int ok = o != NULL;

    switch (cfg->provider) {
    case ARB_JUDGE_OPENAI:
    case ARB_JUDGE_ANTHROPIC:
        ok = ok &&
             cJSON_AddStringToObject(o, "provider",
                                     cfg->provider == ARB_JUDGE_OPENAI ? "openai" : "anthropic");
        url = judge_base_url_normal(cfg->base_url ? cfg->base_url : "");
        ok = ok && url && cJSON_AddStringToObject(o, "base_url", url);
        break;
    case ARB_JUDGE_COMMAND:
        ok = ok && cJSON_AddStringToObject(o, "provider", "command") &&
             (argv = cJSON_AddArrayToObject(o, "command")) != NULL;
        for (size_t i = 0; ok && cfg->command && cfg->command[i]; i++) {
            cJSON *a = cJSON_CreateString(cfg->command[i]);

            ok = a && cJSON_AddItemToArray(argv, a);
            if (!ok)
                cJSON_Delete(a);
        }
        ok = ok && (cfg->cwd ? cJSON_AddStringToObject(o, "cwd", cfg->cwd)
                             : cJSON_AddNullToObject(o, "cwd")) != NULL;
        break;
    }
    free(url);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* The URL requests go to: base_url without trailing slashes, and the provider's path. */
void judge_request_url(const struct arb_judge_config *cfg, char *url, size_t n)
{
    const char *base = cfg->base_url ? cfg->base_url : "";
    size_t len = strlen(base);

    while (len > 0 && base[len - 1] == '/')
        len--;
    snprintf(url, n, "%.*s%s", (int)len, base,
             cfg->provider == ARB_JUDGE_ANTHROPIC ? "/v1/messages" : "/chat/completions");
}
