/*
 * judge_sim.c - command line of the test judge: parses the flags, starts the HTTP daemon on
 * 127.0.0.1, publishes the bound port in --port-file, and stops cleanly on SIGTERM or SIGINT.
 *
 * What a request gets is decided in handler.c; see README.md in this folder for the flags, the
 * protocols and the log format. Tests start this program themselves; it is not part of
 * libarbiter.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <microhttpd.h>
#include <stdio.h>

#include "judge_sim.h"

static const char usage[] =
    "usage: judge_sim [--port N] [--port-file FILE] [--latency-ms N] [--rate-429 P]\n"
    "                 [--retry-after S] [--rate-500 P] [--rate-malformed P] [--rate-invalid P]\n"
    "                 [--rate-hang P] [--hang-ms N] [--prefer-a P] [--log FILE] [--seed N]\n"
    "                 [--fail-first N] [--status-always CODE] [--echo-key on|escaped|off]\n"
    "                 [--reply-format schema|promptfoo-rubric] [--usage on|off]\n"
    "                 [--fixture FILE]   (replay a provider exchange: tests/providers)\n"
    "                 [--batch-polls N] [--batch-error-rate P] [--batch-expire P]\n"
    "                 [--batch-fail-validation on|off] [--batch-outage N]   (the batch routes)\n"
    "       judge_sim --stdio [--invalid] [--seed N]   (a command judge: request on stdin,\n"
    "                 answer on stdout)\n"
    "Rates P are probabilities in [0, 1]; --port 0 (the default) binds an ephemeral port.\n";

static int parse_long(const char *flag, const char *s, long lo, long hi, long *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "judge_sim: %s wants an integer in [%ld, %ld], not '%s'\n", flag, lo, hi,
                s);
        return 0;
    }
    *out = v;
    return 1;
}

static int parse_rate(const char *flag, const char *s, double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= 0 && v <= 1)) {
        fprintf(stderr, "judge_sim: %s wants a probability in [0, 1], not '%s'\n", flag, s);
        return 0;
    }
    *out = v;
    return 1;
}

/* What promptfoo's llm-rubric asks its grader for: a verdict that passes, with a reason. */
static const char promptfoo_rubric_schema[] =
    "{\"type\": \"object\", \"required\": [\"reason\", \"pass\", \"score\"],"
    " \"properties\": {\"reason\": {\"type\": \"string\", \"minLength\": 8},"
    " \"pass\": {\"const\": true}, \"score\": {\"const\": 1}}}";

/* Fills cfg from argv; returns 0 after printing what is wrong. */
static int parse_args(int argc, char **argv, struct sim_config *cfg)
{
    long v;

    for (int i = 1; i < argc; i++) {
        const char *f = argv[i], *a = i + 1 < argc ? argv[i + 1] : NULL;
        int ok = 1;

        if (!strcmp(f, "-h") || !strcmp(f, "--help")) {
            fputs(usage, stdout);
            exit(0);
        }
        if (!a) {
            fprintf(stderr, "judge_sim: unknown flag or missing value '%s'\n%s", f, usage);
            return 0;
        }
        i++;
        if (!strcmp(f, "--port")) {
            ok = parse_long(f, a, 0, 65535, &v);
            cfg->port = (unsigned)v;
        } else if (!strcmp(f, "--port-file")) {
            cfg->port_file = a;
        } else if (!strcmp(f, "--latency-ms")) {
            ok = parse_long(f, a, 0, 3600000, &cfg->latency_ms);
        } else if (!strcmp(f, "--rate-429")) {
            ok = parse_rate(f, a, &cfg->rate_429);
        } else if (!strcmp(f, "--retry-after")) {
            ok = parse_long(f, a, 0, 86400, &cfg->retry_after);
        } else if (!strcmp(f, "--rate-500")) {
            ok = parse_rate(f, a, &cfg->rate_500);
        } else if (!strcmp(f, "--rate-malformed")) {
            ok = parse_rate(f, a, &cfg->rate_malformed);
        } else if (!strcmp(f, "--rate-invalid")) {
            ok = parse_rate(f, a, &cfg->rate_invalid);
        } else if (!strcmp(f, "--rate-hang")) {
            ok = parse_rate(f, a, &cfg->rate_hang);
        } else if (!strcmp(f, "--hang-ms")) {
            ok = parse_long(f, a, 0, 3600000, &cfg->hang_ms);
        } else if (!strcmp(f, "--prefer-a")) {
            ok = parse_rate(f, a, &cfg->prefer_a);
        } else if (!strcmp(f, "--log")) {
            cfg->log_path = a;
        } else if (!strcmp(f, "--seed")) {
            char *end;

            errno = 0;
            cfg->seed = strtoull(a, &end, 10);
            ok = !errno && end != a && !*end && a[0] != '-';
            if (!ok)
                fprintf(stderr, "judge_sim: --seed wants an unsigned integer, not '%s'\n", a);
        } else if (!strcmp(f, "--fail-first")) {
            ok = parse_long(f, a, 0, 1000000000L, &cfg->fail_first);
        } else if (!strcmp(f, "--echo-key")) {
            ok = !strcmp(a, "on") || !strcmp(a, "off") || !strcmp(a, "escaped");
            cfg->echo_key = !strcmp(a, "on") ? 1 : !strcmp(a, "escaped") ? 2 : 0;
            if (!ok)
                fprintf(stderr, "judge_sim: --echo-key wants 'on', 'escaped' or 'off', not '%s'\n",
                        a);
        } else if (!strcmp(f, "--usage")) {
            ok = !strcmp(a, "on") || !strcmp(a, "off");
            cfg->no_usage = !strcmp(a, "off");
            if (!ok)
                fprintf(stderr, "judge_sim: --usage wants 'on' or 'off', not '%s'\n", a);
        } else if (!strcmp(f, "--fixture")) {
            cfg->fixture_path = a;
        } else if (!strcmp(f, "--batch-polls")) {
            ok = parse_long(f, a, 0, 1000000, &cfg->batch_polls);
        } else if (!strcmp(f, "--batch-outage")) {
            ok = parse_long(f, a, 0, 1000000, &cfg->batch_outage);
        } else if (!strcmp(f, "--batch-error-rate")) {
            ok = parse_rate(f, a, &cfg->batch_error_rate);
        } else if (!strcmp(f, "--batch-expire")) {
            ok = parse_rate(f, a, &cfg->batch_expire);
        } else if (!strcmp(f, "--batch-fail-validation")) {
            ok = !strcmp(a, "on") || !strcmp(a, "off");
            cfg->batch_fail_validation = !strcmp(a, "on");
            if (!ok)
                fprintf(stderr,
                        "judge_sim: --batch-fail-validation wants 'on' or 'off', not '%s'\n", a);
        } else if (!strcmp(f, "--status-always")) {
            ok = parse_long(f, a, 100, 599, &v);
            cfg->status_always = (int)v;
        } else if (!strcmp(f, "--reply-format")) {
            cJSON_Delete(cfg->reply_schema);
            cfg->reply_schema = NULL;
            if (!strcmp(a, "promptfoo-rubric")) {
                cfg->reply_schema = cJSON_Parse(promptfoo_rubric_schema);
                if (!cfg->reply_schema) {
                    fprintf(stderr, "judge_sim: out of memory\n");
                    return 0;
                }
            } else if (strcmp(a, "schema") != 0) {
                fprintf(stderr,
                        "judge_sim: --reply-format wants 'schema' or 'promptfoo-rubric', not "
                        "'%s'\n",
                        a);
                return 0;
            }
        } else {
            fprintf(stderr, "judge_sim: unknown flag '%s'\n%s", f, usage);
            return 0;
        }
        if (!ok)
            return 0;
    }
    return 1;
}

/* Writes the port to path.tmp.PID and renames it over path, so a reader never sees half. */
static int write_port_file(const char *path, unsigned port)
{
    size_t n = strlen(path) + 32;
    char *tmp = malloc(n);
    FILE *f;
    int ok;

    if (!tmp) {
        fprintf(stderr, "judge_sim: out of memory\n");
        return 0;
    }
    snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
    f = fopen(tmp, "w");
    ok = f != NULL;
    if (ok) {
        ok = fprintf(f, "%u\n", port) > 0;
        ok = fclose(f) == 0 && ok;
    }
    ok = ok && rename(tmp, path) == 0;
    if (!ok) {
        fprintf(stderr, "judge_sim: cannot write port file '%s': %s\n", path, strerror(errno));
        remove(tmp);
    }
    free(tmp);
    return ok;
}

/*
 * judge_sim --stdio [--invalid] [--seed N]: a judge for Arbiter's `command` provider. Reads
 * one request (JSON with a "schema" member) on standard input and writes an answer built from
 * that schema on standard output, deterministically from the input (its fence code masked)
 * and the seed; --invalid breaks it.
 */
static int run_stdio(int argc, char **argv)
{
    char *in = NULL;
    size_t len = 0, cap = 0, n;
    cJSON *req, *value;
    struct sim_gen g = {0};
    unsigned char d[SIM_DIGEST_LEN];
    const void *parts[2];
    size_t lens[2];
    char *text, *hashed, seed_text[32] = "";
    int invalid = 0, i;

    for (i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--invalid") == 0) {
            invalid = 1;
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            /* Another seed, other answers (as the server's --seed): another judge. */
            snprintf(seed_text, sizeof(seed_text), "\n%.20s", argv[++i]);
        } else {
            fprintf(stderr, "judge_sim --stdio: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }

    for (;;) {
        if (len + 4096 + 1 > cap) {
            char *p = realloc(in, cap = cap ? cap * 2 : 65536);

            if (!p)
                return 1;
            in = p;
        }
        n = fread(in + len, 1, cap - len - 1, stdin);
        if (n == 0)
            break;
        len += n;
    }
    if (!in)
        return 1;
    in[len] = '\0';
    req = cJSON_Parse(in);
    hashed = sim_mask_fence(in, len);
    parts[0] = hashed ? hashed : in;
    lens[0] = len;
    parts[1] = seed_text;
    lens[1] = strlen(seed_text);
    if (!req || !sim_digest(d, 2, parts, lens)) {
        free(hashed);
        fprintf(stderr, "judge_sim --stdio: the request is not JSON\n");
        free(in);
        return 1;
    }
    free(hashed);
    sim_rng_seed(&g.rng, d);
    g.root = cJSON_GetObjectItemCaseSensitive(req, "schema");
    value = sim_gen_value(&g, g.root);
    if (value && invalid)
        value = sim_gen_break(&g, g.root, value);
    text = value ? cJSON_PrintUnformatted(value) : NULL;
    if (text)
        puts(text);
    cJSON_free(text);
    cJSON_Delete(value);
    cJSON_Delete(req);
    free(in);
    return text ? 0 : 1;
}

int main(int argc, char **argv)
{
    struct sim_config cfg = {.retry_after = 1, .hang_ms = 30000, .batch_polls = 2};
    struct sim_state st;
    struct MHD_Daemon *d;
    const union MHD_DaemonInfo *info;
    sigset_t sigs;
    unsigned port;
    int sig = 0, rc = 0;

    if (argc > 1 && strcmp(argv[1], "--stdio") == 0)
        return run_stdio(argc, argv);
    if (!parse_args(argc, argv, &cfg)) {
        cJSON_Delete(cfg.reply_schema);
        return 2;
    }
    /* Block the stop signals before any thread exists, so all threads inherit the mask and
     * only sigwait below sees them. */
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (!sim_state_init(&st, &cfg)) {
        cJSON_Delete(cfg.reply_schema);
        return 1;
    }
    /* A fixture that cannot be used is a bad flag value: exit 2, before listening. */
    if (cfg.fixture_path && !(st.fixture = sim_fixture_load(cfg.fixture_path))) {
        sim_state_release(&st);
        cJSON_Delete(cfg.reply_schema);
        return 2;
    }
    d = sim_server_start(&st, cfg.port);
    if (!d) {
        sim_fixture_free(st.fixture);
        sim_state_release(&st);
        cJSON_Delete(cfg.reply_schema);
        return 1;
    }
    info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    port = info ? info->port : cfg.port;
    if (cfg.port_file && !write_port_file(cfg.port_file, port)) {
        rc = 1;
    } else {
        printf("%u\n", port);
        fflush(stdout);
        fprintf(stderr, "judge_sim: listening on 127.0.0.1:%u\n", port);
        sigwait(&sigs, &sig);
    }
    /* Wake sleeping handlers first: MHD_stop_daemon joins every connection thread. */
    sim_state_stop(&st);
    MHD_stop_daemon(d);
    sim_fixture_free(st.fixture);
    sim_state_release(&st);
    if (cfg.port_file && !rc)
        remove(cfg.port_file);
    cJSON_Delete(cfg.reply_schema);
    return rc;
}
