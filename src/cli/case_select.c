/*
 * case_select.c - `--limit N` and `--cases ID,ID|@FILE` (case_select.h).
 * The ids are only parsed here; whether each names a case is for the
 * command to say, against the suite or the run.
 */
#include <stdlib.h>
#include <string.h>

#include "arbiter/buf.h"
#include "arbiter/file.h"
#include "case_select.h"
#include "cli.h"

#define IDS_FILE_CAP (64u << 20)

static int add_id(struct cli_case_select *cs, const char *s, size_t n)
{
    char *id;

    if (cs->n_ids == cs->cap_ids) {
        size_t cap = cs->cap_ids ? cs->cap_ids * 2 : 16;
        char **v = realloc(cs->ids, cap * sizeof(*v));

        if (!v)
            return -1;
        cs->ids = v;
        cs->cap_ids = cap;
    }
    id = malloc(n + 1);
    if (!id)
        return -1;
    memcpy(id, s, n);
    id[n] = '\0';
    cs->ids[cs->n_ids++] = id;
    return 0;
}

/* Split text at sep; with lines, strip a '\r' before each '\n' and skip blank lines. */
static int add_ids(struct cli_case_select *cs, const char *cmd, const char *text, size_t len,
                   char sep, const char *where)
{
    size_t i = 0, start = 0, line = 1;

    for (i = 0; i <= len; i++) {
        size_t end = i;

        if (i < len && text[i] != sep)
            continue;
        if (sep == '\n' && end > start && text[end - 1] == '\r')
            end--;
        if (end == start && sep == ',') {
            cli_error(cmd, "--cases: an empty case id in '%s' (ids are separated by commas)",
                      where);
            return -1;
        }
        if (end > start && memchr(text + start, '\0', end - start)) {
            cli_error(cmd, "--cases %s:%zu: a case id holds a NUL byte", where, line);
            return -1;
        }
        if (end > start && add_id(cs, text + start, end - start)) {
            cli_error(cmd, "out of memory");
            return -1;
        }
        start = i + 1;
        line++;
    }
    return 0;
}

static int read_ids_file(struct cli_case_select *cs, const char *cmd, const char *path)
{
    struct arb_buf text;
    struct arb_err err = {{0}};
    int rc;

    arb_buf_init(&text, IDS_FILE_CAP);
    if (arb_file_read(path, &text, &err)) {
        cli_error(cmd, "--cases @%s: %s", path, err.msg);
        arb_buf_release(&text);
        return -1;
    }
    rc = add_ids(cs, cmd, text.ptr ? text.ptr : "", text.len, '\n', path);
    if (!rc && cs->n_ids == 0) {
        cli_error(cmd, "--cases @%s: the file names no case (one id a line)", path);
        rc = -1;
    }
    arb_buf_release(&text);
    return rc;
}

int cli_case_select_cases(const char *cmd, const struct cli_option *opt, const char *v)
{
    struct cli_case_select *cs = opt->value;

    if (cs->sel.ids) {
        cli_error(cmd, "--cases: give it once (ids separated by commas, or @FILE)");
        return -1;
    }
    if (v[0] == '@' ? read_ids_file(cs, cmd, v + 1) : add_ids(cs, cmd, v, strlen(v), ',', v))
        return -1;
    cs->file = v[0] == '@' ? v + 1 : NULL;
    cs->sel.ids = (const char *const *)cs->ids;
    cs->sel.n_ids = cs->n_ids;
    return 0;
}

void cli_case_select_release(struct cli_case_select *cs)
{
    size_t i;

    for (i = 0; i < cs->n_ids; i++)
        free(cs->ids[i]);
    free(cs->ids);
    memset(cs, 0, sizeof(*cs));
}
