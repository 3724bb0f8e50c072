/*
 * cmd_check.c - `arbiter check`: one comparator on one observed value, or a
 * batch of them as JSONL, printing one result record (JSON) per check.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arbiter/compare.h"
#include "arbiter/file.h"
#include "arbiter/json.h"
#include "arbiter/suite.h"
#include "cli.h"
#include "parse_options.h"

#define OBSERVED_CAP ((size_t)256 << 20) /* 256 MiB */
#define CHECK_CAP    ((size_t)64 << 20)
#define CACHE_SLOTS  16

static const char usage_text[] =
    "usage: arbiter check CHECK [--observed TEXT | --observed-file PATH]\n"
    "       arbiter check --batch FILE|-\n"
    "       arbiter check --operators\n"
    "\n"
    "Run one named comparator on one observed value and print its result record as\n"
    "one JSON line: operator, expected, observed, normalization, compared (the values\n"
    "actually compared, when the operator converted them), notes, score, threshold,\n"
    "fail_below, verdict.\n"
    "\n"
    "  CHECK                 the check as a JSON object, or @FILE to read it from a file\n"
    "                        (expected_file is then relative to that file's folder)\n"
    "  --observed TEXT       the observed output (default: read standard input)\n"
    "  --observed-file PATH  read the observed output from a file; for a directory,\n"
    "                        the check's \"file\" names the file inside it\n"
    "  --batch FILE          read JSONL lines {\"check\": {...}, \"observed\": ...,\n"
    "                        \"expected\": ...} (- for standard input) and write one\n"
    "                        record per line, in order; a bad line yields\n"
    "                        {\"line\": N, \"error\": \"...\"} and the batch goes on.\n"
    "                        \"expected\" is optional: used when the check has none.\n"
    "                        A non-string \"observed\" is compared as its JSON text.\n"
    "  --operators           list the operators\n"
    "\n"
    "example:\n"
    "  arbiter check '{\"op\": \"normalized_exact\", \"expected\": \"The answer is 42.\"}' \\\n"
    "      --observed 'the answer is  42.'\n"
    "\n"
    "exit: 0 pass, 1 fail, 3 unresolved (score in the grey band), 2 usage or input\n"
    "error; with --batch, 0 when every line was read (bad lines are reported inline).\n";

/* err = "PREFIX/expected: invalid_regex_pattern: ...", for a check with a problem. */
static enum arb_status problem_error(const struct arb_check *c, const char *prefix,
                                     struct arb_err *err)
{
    struct arb_buf path;
    enum arb_status st;

    arb_buf_init(&path, 0);
    st = arb_buf_adds(&path, prefix);
    if (!st)
        st = arb_check_problem_path(c, &path);
    if (st)
        arb_err_set(err, st, "out of memory");
    else
        arb_err_set(err, ARB_ESCHEMA, "%s: %s", path.ptr, arb_check_problem(c));
    arb_buf_release(&path);
    return st ? st : ARB_ESCHEMA;
}

/* Parse CHECK (inline JSON or @file) and compile it. */
static int load_check(const char *arg, struct arb_check **out)
{
    struct arb_buf text;
    struct arb_err err = {{0}};
    cJSON *cfg = NULL;
    char dir[4096] = ".";
    const char *src = "CHECK";
    struct arb_check_opts opts = {0};
    enum arb_status st;

    arb_buf_init(&text, CHECK_CAP);
    if (arg[0] == '@') {
        const char *slash = strrchr(arg + 1, '/');

        src = arg + 1;
        if (slash && (size_t)(slash - (arg + 1)) < sizeof(dir)) {
            memcpy(dir, arg + 1, (size_t)(slash - (arg + 1)));
            dir[slash - (arg + 1)] = '\0';
            if (!dir[0])
                strncpy(dir, "/", sizeof(dir));
        }
        st = arb_file_read(arg + 1, &text, &err);
    } else {
        st = arb_buf_adds(&text, arg);
    }
    if (!st)
        st = arb_json_parse(text.ptr, text.len, ARB_JSON_ALLOW_BOM | ARB_JSON_NO_DUPLICATES, &cfg,
                            &err);
    if (st) {
        arb_buf_release(&text);
        if (st == ARB_EPARSE) {
            arb_err_locate_parse(&err, src);
            cli_error("check", "%s", err.msg);
        } else {
            cli_error("check", "%s: %s", src, err.msg);
        }
        return cli_exit_for(st);
    }
    opts.base_dir = dir;
    st = arb_check_compile(cfg, &opts, out, &err);
    cJSON_Delete(cfg);
    if (!st && arb_check_problem(*out)) {
        /* A pattern that cannot compile fails every run: refused, as a suite refuses it. */
        st = problem_error(*out, "", &err);
        arb_check_free(*out);
        *out = NULL;
    }
    if (st) {
        /* "/checks/1/op: unknown operator" becomes FILE:LINE:COL: /checks/1/op: ... */
        arb_err_locate(&err, src, text.ptr, text.len, NULL);
        cli_error("check", "%s", err.msg);
    }
    arb_buf_release(&text);
    return st ? cli_exit_for(st) : EXIT_PASS;
}

static int read_observed(const struct arb_check *c, const char *text, const char *path,
                         struct arb_buf *out)
{
    struct arb_err err = {{0}};
    enum arb_status st;
    char full[4096];

    if (text)
        return arb_buf_adds(out, text) ? EXIT_ENV : EXIT_PASS;
    if (path && arb_is_dir(path)) {
        if (!arb_check_file(c)) {
            cli_error("check",
                      "'%s' is a directory: name the file to compare with \"file\" in the check",
                      path);
            return EXIT_USAGE;
        }
        snprintf(full, sizeof(full), "%s/%s", path, arb_check_file(c));
        path = full;
    }
    if (path)
        st = arb_file_read(path, out, &err);
    else
        st = arb_stream_read(stdin, "standard input", out, &err);
    if (st) {
        cli_error("check", "%s", err.msg);
        return cli_exit_for(st);
    }
    return EXIT_PASS;
}

static int print_record(const struct arb_result *r, struct arb_buf *line)
{
    arb_buf_reset(line);
    if (arb_result_write_json(r, line) || arb_buf_addc(line, '\n'))
        return -1;
    return fwrite(line->ptr, 1, line->len, stdout) == line->len ? 0 : -1;
}

/* One CHECK on one observed value (--observed TEXT, --observed-file PATH, or standard input). */
static int run_single(const char *check_arg, const char *obs_text, const char *obs_path)
{
    struct arb_check *c = NULL;
    struct arb_result r;
    struct arb_buf obs, line;
    struct arb_err err = {{0}};
    int rc;

    rc = load_check(check_arg, &c);
    if (rc)
        return rc;
    arb_buf_init(&obs, OBSERVED_CAP);
    arb_buf_init(&line, 0);
    arb_result_init(&r);
    rc = read_observed(c, obs_text, obs_path, &obs);
    if (!rc) {
        enum arb_status st = arb_check_run(c, obs.ptr ? obs.ptr : "", obs.len, NULL, &r, &err);

        if (st) {
            cli_error("check", "%s", err.msg);
            rc = cli_exit_for(st);
        } else if (print_record(&r, &line) || fflush(stdout)) {
            cli_error("check", "cannot write the record: %s", strerror(errno));
            rc = EXIT_ENV;
        } else {
            rc = r.verdict == ARB_PASS   ? EXIT_PASS
                 : r.verdict == ARB_FAIL ? EXIT_NEGATIVE
                                         : EXIT_UNRESOLVED;
        }
    }
    arb_result_release(&r);
    arb_buf_release(&obs);
    arb_buf_release(&line);
    arb_check_free(c);
    return rc;
}

/* ---- batch --------------------------------------------------------------------------- */

/* Compiled checks of recent lines, keyed by the check's canonical text. */
struct cache {
    char *key[CACHE_SLOTS];
    struct arb_check *check[CACHE_SLOTS];
    size_t next;
};

static void cache_release(struct cache *k)
{
    size_t i;

    for (i = 0; i < CACHE_SLOTS; i++) {
        free(k->key[i]);
        arb_check_free(k->check[i]);
    }
}

static enum arb_status cache_get(struct cache *k, const cJSON *cfg, struct arb_check **out,
                                 struct arb_err *err)
{
    char *key = NULL;
    size_t i;
    struct arb_check_opts opts = {0};
    enum arb_status st = arb_jcs_string(cfg, &key, NULL, err);

    if (st)
        return st;
    for (i = 0; i < CACHE_SLOTS; i++) {
        if (k->key[i] && strcmp(k->key[i], key) == 0) {
            free(key);
            *out = k->check[i];
            return ARB_OK;
        }
    }
    opts.base_dir = ".";
    st = arb_check_compile(cfg, &opts, out, err);
    if (!st && arb_check_problem(*out)) {
        st = problem_error(*out, "", err);
        arb_check_free(*out);
        *out = NULL;
    }
    if (st) {
        free(key);
        return st;
    }
    i = k->next++ % CACHE_SLOTS;
    free(k->key[i]);
    arb_check_free(k->check[i]);
    k->key[i] = key;
    k->check[i] = *out;
    return ARB_OK;
}

/* The batch's report of a bad line: {"line": N, "error": "..."}. */
static enum arb_status error_line(struct arb_buf *line, size_t n, const char *msg)
{
    cJSON *o = cJSON_CreateObject();
    char *s = NULL;
    enum arb_status st = ARB_ENOMEM;

    if (o && cJSON_AddNumberToObject(o, "line", (double)n) &&
        cJSON_AddStringToObject(o, "error", msg))
        s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    arb_buf_reset(line);
    if (s)
        st = arb_buf_adds(line, s);
    if (!st)
        st = arb_buf_addc(line, '\n');
    cJSON_free(s);
    return st;
}

/* Process one input line into out (a record or an error object). */
static enum arb_status batch_line(struct cache *k, const char *text, size_t len, size_t n,
                                  struct arb_result *r, struct arb_buf *out)
{
    struct arb_err err = {{0}};
    cJSON *doc = NULL;
    const cJSON *cfg, *obs, *exp, *key;
    struct arb_check *c = NULL;
    char *obs_text = NULL;
    const char *o;
    size_t olen;
    enum arb_status st;

    st = arb_json_parse(text, len, ARB_JSON_NO_DUPLICATES | (n == 1 ? ARB_JSON_ALLOW_BOM : 0), &doc,
                        &err);
    if (st)
        return st == ARB_ENOMEM ? st : error_line(out, n, err.msg);
    if (!cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        return error_line(out, n, "expected an object {\"check\": {...}, \"observed\": ...}");
    }
    cJSON_ArrayForEach(key, doc)
    {
        if (strcmp(key->string, "check") && strcmp(key->string, "observed") &&
            strcmp(key->string, "expected") && strcmp(key->string, "id")) {
            snprintf(err.msg, sizeof(err.msg),
                     "/%s: unknown key (valid: check, observed, expected, id)", key->string);
            cJSON_Delete(doc);
            return error_line(out, n, err.msg);
        }
    }
    cfg = cJSON_GetObjectItemCaseSensitive(doc, "check");
    obs = cJSON_GetObjectItemCaseSensitive(doc, "observed");
    exp = cJSON_GetObjectItemCaseSensitive(doc, "expected");
    if (!cfg || !obs) {
        cJSON_Delete(doc);
        return error_line(out, n, cfg ? "/observed: missing" : "/check: missing");
    }
    st = cache_get(k, cfg, &c, &err);
    if (st) {
        cJSON_Delete(doc);
        if (st == ARB_ENOMEM)
            return st;
        if (strncmp(err.msg, "/", 1) == 0 || !err.msg[0]) {
            char msg[sizeof(err.msg) + 8];

            snprintf(msg, sizeof(msg), "/check%s", err.msg);
            return error_line(out, n, msg);
        }
        return error_line(out, n, err.msg);
    }
    if (cJSON_IsString(obs)) {
        o = obs->valuestring;
        olen = strlen(o);
    } else {
        st = arb_jcs_string(obs, &obs_text, &olen, &err);
        if (st) {
            cJSON_Delete(doc);
            return st == ARB_ENOMEM ? st : error_line(out, n, err.msg);
        }
        o = obs_text;
    }
    st = arb_check_run(c, o, olen, exp, r, &err);
    arb_buf_reset(out);
    if (st == ARB_OK)
        st = arb_result_write_json(r, out);
    if (st == ARB_OK)
        st = arb_buf_addc(out, '\n');
    else if (st != ARB_ENOMEM)
        st = error_line(out, n, err.msg);
    arb_result_release(r);
    free(obs_text);
    cJSON_Delete(doc);
    return st;
}

static int run_batch(const char *path)
{
    FILE *in = stdin;
    char *text = NULL;
    size_t cap = 0, n = 0;
    ssize_t got;
    struct cache k = {{0}, {0}, 0};
    struct arb_result r;
    struct arb_buf out;
    struct stat sb;
    int flush_each, rc = EXIT_PASS;

    if (strcmp(path, "-") != 0) {
        if (arb_is_dir(path)) {
            cli_error("check", "cannot read '%s': is a directory", path);
            return EXIT_USAGE;
        }
        in = fopen(path, "rb");
        if (!in) {
            cli_error("check", "cannot open '%s': %s", path, strerror(errno));
            return EXIT_USAGE;
        }
    }
    /* Stream: when the input is a pipe or terminal, every record goes out at once. */
    flush_each = fstat(fileno(in), &sb) != 0 || !S_ISREG(sb.st_mode);
    arb_buf_init(&out, 0);
    arb_result_init(&r);
    while ((got = getline(&text, &cap, in)) >= 0) {
        size_t len = (size_t)got;
        enum arb_status st;

        n++;
        if (len && text[len - 1] == '\n')
            len--;
        if (len && text[len - 1] == '\r')
            len--;
        if (len > OBSERVED_CAP)
            st = error_line(&out, n, "line longer than 256 MiB");
        else
            st = batch_line(&k, text, len, n, &r, &out);
        if (st) {
            cli_error("check", "line %zu: %s", n, arb_strerror(st));
            rc = EXIT_ENV;
            break;
        }
        if (fwrite(out.ptr, 1, out.len, stdout) != out.len || (flush_each && fflush(stdout))) {
            cli_error("check", "cannot write records: %s", strerror(errno));
            rc = EXIT_ENV;
            break;
        }
    }
    if (rc == EXIT_PASS && ferror(in)) {
        cli_error("check", "cannot read '%s': %s", path, strerror(errno));
        rc = EXIT_USAGE;
    }
    if (fflush(stdout) && rc == EXIT_PASS) {
        cli_error("check", "cannot write records: %s", strerror(errno));
        rc = EXIT_ENV;
    }
    free(text);
    arb_result_release(&r);
    arb_buf_release(&out);
    cache_release(&k);
    if (in != stdin)
        fclose(in);
    return rc;
}

static int list_operators(void)
{
    const char *name;
    size_t k;

    for (k = 0; (name = arb_operator_name(k)) != NULL; k++)
        puts(name);
    return EXIT_PASS;
}

static int run_check(int argc, char **argv)
{
    const char *obs_text = NULL, *obs_path = NULL, *batch = NULL;
    int operators = 0, n_pos, code;
    const struct cli_option options[] = {
        CLI_OPT_STRING("--observed", &obs_text),
        CLI_OPT_STRING("--observed-file", &obs_path),
        CLI_OPT_STRING("--batch", &batch),
        CLI_OPT_BOOL("--operators", &operators),
        CLI_OPT_END(),
    };

    code = cli_parse_options("check", usage_text, options, argc, argv, &n_pos);
    if (code != CLI_PARSED)
        return code;
    if (operators)
        return list_operators();
    if (batch) {
        if (n_pos || obs_text || obs_path) {
            cli_error("check", "--batch takes one FILE (or -) and nothing else");
            return EXIT_USAGE;
        }
        return run_batch(batch);
    }
    if (n_pos > 1) {
        cli_error("check", "unexpected argument '%s': give one CHECK", argv[1]);
        return EXIT_USAGE;
    }
    if (!n_pos) {
        cli_error("check", "missing CHECK (see 'arbiter check --help')");
        return EXIT_USAGE;
    }
    if (obs_text && obs_path) {
        cli_error("check", "give either --observed or --observed-file, not both");
        return EXIT_USAGE;
    }
    return run_single(argv[0], obs_text, obs_path);
}

const struct arb_cmd arb_cmd_check = {
    .name = "check",
    .summary = "run one comparator on one observed value (or a JSONL batch)",
    .usage = usage_text,
    .run = run_check,
};
