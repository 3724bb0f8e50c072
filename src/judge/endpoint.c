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
 * whole (request.c).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "judge_int.h"

char *judge_base_url_normal(const char *url)
{
    const char *scheme_end, *auth, *host_end, *at;
    size_t n, i, len;
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
        at = NULL;
        for (const char *p = auth; p < host_end; p++)
            if (*p == '@')
                at = p; /* the last '@' ends the user-info: a password may hold one */
        n = 0;
        for (const char *p = url; p < scheme_end + 3; p++)
            out[n++] = (char)tolower((unsigned char)*p);
        for (const char *p = at ? at + 1 : auth; p < host_end; p++)
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
