/*
 * judge_opts.c - the judge options shared by `run` and `compare`: which
 * config (the suite's, a --judge file, or the one stored with a resumed
 * run), the overrides, and the API key from the environment.  The key is
 * read here, handed to the library, and wiped when the command ends.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/file.h"
#include "arbiter/json.h"
#include "arbiter/suite.h"
#include "cli.h"
#include "judge_opts.h"

static int replace(char **field, const char *value)
{
    char *copy = strdup(value);

    if (!copy)
        return -1;
    free(*field);
    *field = copy;
    return 0;
}

int cli_judge_setup(struct cli_judge *j, const char *cmd, const cJSON *suite_judge,
                    const char *stored_json)
{
    struct arb_err err = {{0}};
    struct arb_buf text;
    cJSON *doc = NULL;
    const cJSON *obj = suite_judge;
    const char *key;
    enum arb_status st = ARB_OK;

    if (j->no_judge)
        return EXIT_PASS;
    arb_buf_init(&text, 1 << 20);
    if (j->file) {
        st = arb_file_read(j->file, &text, &err);
        if (!st)
            st = arb_json_parse(text.ptr, text.len, ARB_JSON_ALLOW_BOM | ARB_JSON_NO_DUPLICATES,
                                &doc, &err);
        if (st) {
            cli_error(cmd, "--judge %s: %s", j->file, err.msg);
            arb_buf_release(&text);
            return cli_exit_for(st);
        }
        obj = doc;
    } else if (stored_json) {
        doc = cJSON_Parse(stored_json);
        cJSON_DeleteItemFromObjectCaseSensitive(doc, "hash");
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "base_url_credentials"))) {
            cli_error(cmd, "the judge's base_url carried credentials, which are never stored: "
                           "give the judge config again with --judge FILE");
            cJSON_Delete(doc);
            arb_buf_release(&text);
            return EXIT_USAGE;
        }
        obj = doc;
    }
    if (!obj) {
        arb_buf_release(&text);
        cJSON_Delete(doc);
        return EXIT_PASS; /* no judge configured: unresolved items stay pending */
    }
    st = arb_judge_config_parse(obj, &j->cfg, &err);
    cJSON_Delete(doc);
    if (st && j->file) {
        /* The parser names members as in a suite ("/judge/timeout"); the file is the object. */
        arb_err_locate(&err, j->file, text.ptr, text.len, "/judge");
        cli_error(cmd, "%s", err.msg);
    } else if (st) {
        cli_error(cmd, "suite: %s", err.msg);
    }
    arb_buf_release(&text);
    if (st)
        return cli_exit_for(st);
    j->have = 1;
    /* Said, not ignored: the override would change nothing the program is asked. */
    if (j->cfg.provider == ARB_JUDGE_COMMAND && (j->model || j->url)) {
        cli_error(cmd, "%s: a command judge has no %s to override (it runs '%s')",
                  j->model ? "--judge-model" : "--judge-url", j->model ? "model" : "URL",
                  j->cfg.command && j->cfg.command[0] ? j->cfg.command[0] : "");
        return EXIT_USAGE;
    }
    if ((j->url && replace(&j->cfg.base_url, j->url)) ||
        (j->model && replace(&j->cfg.model, j->model)))
        return EXIT_ENV;
    if (j->concurrency)
        j->cfg.concurrency = j->concurrency;
    if (arb_judge_config_rehash(&j->cfg, &err)) {
        cli_error(cmd, "%s", err.msg);
        return EXIT_ENV;
    }
    if (!j->cfg.api_key_env)
        return EXIT_PASS; /* a command judge needs no key */
    key = getenv(j->cfg.api_key_env);
    if (!key || !key[0]) {
        cli_error(cmd,
                  "the judge's API key variable $%s is not set (set it, or run without the "
                  "judge: --no-judge)",
                  j->cfg.api_key_env);
        return EXIT_ENV;
    }
    j->key = strdup(key);
    return j->key ? EXIT_PASS : EXIT_ENV;
}

void cli_judge_release(struct cli_judge *j)
{
    if (j->key) {
        volatile char *p = j->key;

        while (*p)
            *p++ = 0;
        free(j->key);
    }
    if (j->have)
        arb_judge_config_release(&j->cfg);
    memset(j, 0, sizeof(*j));
}
