/*
 * lines.c - a JSONL file read one line at a time with a cap per line.
 *
 * Lines end in LF, CRLF or a lone CR at the end of the file; a UTF-8 byte
 * order mark on line 1 is dropped; blank lines (only white space) are
 * skipped but counted, so line numbers match what an editor shows.  A line
 * over the cap is consumed and reported, and reading can go on after it.
 * The file must be a regular one (arb_file_open_regular): a FIFO or a device
 * named as a cases or outputs file is refused before a byte is read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/file.h"
#include "suite_int.h"

#define READ_BYTES ((size_t)64 << 10) /* read from the file at once */

enum arb_status line_reader_open(struct line_reader *lr, const char *path, const char *what,
                                 size_t cap, struct arb_err *err)
{
    enum arb_status st;

    memset(lr, 0, sizeof(*lr));
    lr->cap = cap;
    arb_buf_init(&lr->line, cap ? cap + 1 : 0);
    st = arb_file_open_regular(path, what, &lr->f, err);
    if (st) {
        line_reader_close(lr);
        return st;
    }
    lr->name = strdup(path);
    lr->in = malloc(READ_BYTES);
    if (!lr->name || !lr->in) {
        line_reader_close(lr);
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    return ARB_OK;
}

void line_reader_close(struct line_reader *lr)
{
    if (lr->f)
        fclose(lr->f);
    free(lr->name);
    free(lr->in);
    arb_buf_release(&lr->line);
    memset(lr, 0, sizeof(*lr));
}

static int blank(const char *s, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (!strchr(" \t\r", s[i]) || !s[i])
            return 0;
    return 1;
}

/* Read more of the file into lr->in: 0 at its end (or on an error, which ferror tells). */
static int refill(struct line_reader *lr)
{
    lr->at = 0;
    lr->got = fread(lr->in, 1, READ_BYTES, lr->f);
    return lr->got != 0;
}

/*
 * Read one physical line into lr->line (without LF).  1, 0 at EOF, or -status.  Lines are
 * found with memchr in a block read at once (a getc per byte was a tenth of loading a
 * million cases); a NUL byte is kept (and then refused by the parser).
 */
static int read_line(struct line_reader *lr, struct arb_err *err)
{
    int too_big = 0, any = 0, done = 0;

    arb_buf_reset(&lr->line);
    while (!done && (lr->at < lr->got || refill(lr))) {
        const char *p = lr->in + lr->at;
        const char *nl = memchr(p, '\n', lr->got - lr->at);
        size_t n = nl ? (size_t)(nl - p) : lr->got - lr->at;
        enum arb_status st;

        any = 1;
        done = nl != NULL;
        lr->at += n + (size_t)done;
        if (!too_big && n) {
            st = arb_buf_add(&lr->line, p, n);
            if (st == ARB_ETOOBIG)
                too_big = 1;
            else if (st)
                return -(int)arb_err_set(err, st, "out of memory");
        }
    }
    if (ferror(lr->f))
        return -(int)arb_err_set(err, ARB_EIO, "cannot read '%s': %s", lr->name, strerror(errno));
    if (!any)
        return 0;
    lr->lineno++;
    if (too_big)
        return -(int)arb_err_set(err, ARB_ETOOBIG,
                                 "%s:%zu: line is longer than the limit of %zu bytes", lr->name,
                                 lr->lineno, lr->cap);
    if (arb_buf_add(&lr->line, "", 0))
        return -(int)arb_err_set(err, ARB_ENOMEM, "out of memory");
    return 1;
}

int line_reader_next(struct line_reader *lr, const char **text, size_t *len, struct arb_err *err)
{
    for (;;) {
        int r = read_line(lr, err);
        const char *s;
        size_t n;

        if (r <= 0)
            return r;
        s = lr->line.ptr ? lr->line.ptr : "";
        n = lr->line.len;
        if (lr->lineno == 1 && n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) {
            s += 3;
            n -= 3;
        }
        if (n && s[n - 1] == '\r')
            n--;
        if (blank(s, n))
            continue;
        *text = s;
        *len = n;
        return 1;
    }
}
