/*
 * tty.c - standard output on a terminal shows control bytes, never obeys them.
 *
 * Outputs, case ids, system names, notes and the judge's words are data from
 * outside: printed raw, "\033]0;title\a" would retitle the window, "\033[2J"
 * clear it, a CR or backspace overwrite what was shown.  When standard output
 * is a terminal, every command prints through a stream that writes C0
 * controls other than LF and TAB, DEL, the C1 controls (U+0080 to U+009F,
 * which some terminals obey too) and bytes that are not UTF-8 as visible
 * escapes: "\x1b", "\r", "\x08", "\u009b", "\xff".  Nothing Arbiter means to
 * print is a control byte (the progress line, the one that is, goes to
 * standard error), and a pipe or file gets the bytes unchanged.
 *
 * The stream is glibc's fopencookie over file descriptor 1; it becomes stdout
 * for the rest of the process.  A UTF-8 sequence cut between two writes is
 * held until the next one (or the close, where what is left is escaped).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "arbiter/unicode.h"
#include "cli.h"

struct tty_out {
    FILE *file;            /* where escaped bytes go; NULL: file descriptor 1 */
    unsigned char held[4]; /* the start of a UTF-8 sequence the last write cut */
    size_t n_held;
    char buf[4096]; /* escaped bytes on their way to the terminal */
    size_t n;
};

static int drain(struct tty_out *t)
{
    size_t off = 0;

    if (t->file) {
        off = t->n;
        t->n = 0;
        return fwrite(t->buf, 1, off, t->file) == off ? 0 : -1;
    }
    while (off < t->n) {
        ssize_t w = write(STDOUT_FILENO, t->buf + off, t->n - off);

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        off += (size_t)w;
    }
    t->n = 0;
    return 0;
}

static int put(struct tty_out *t, const char *s, size_t len)
{
    if (t->n + len > sizeof(t->buf) && drain(t))
        return -1;
    memcpy(t->buf + t->n, s, len);
    t->n += len;
    return 0;
}

static int put_escaped_byte(struct tty_out *t, unsigned char b)
{
    char e[8];
    const char *named = b == '\r' ? "\\r" : b == '\b' ? "\\b" : NULL;

    if (named)
        return put(t, named, 2);
    snprintf(e, sizeof(e), "\\x%02x", b);
    return put(t, e, 4);
}

/* Length of a UTF-8 sequence by its lead byte (0 for a byte that cannot lead one). */
static size_t lead_len(unsigned char b)
{
    return b < 0x80 ? 1 : b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3
                      : b >= 0xF0 && b <= 0xF4 ? 4 : 0;
}

/*
 * Escape s[0..len) into t; a sequence cut at the end is held (when more may
 * come) or escaped byte by byte (at the close).  Returns the bytes consumed,
 * or -1 on a write error.
 */
static ssize_t filter(struct tty_out *t, const unsigned char *s, size_t len, int final)
{
    size_t i = 0;

    while (i < len) {
        unsigned char b = s[i];
        size_t need = lead_len(b), ok;

        if (need == 1) {
            int control = (b < 0x20 && b != '\n' && b != '\t') || b == 0x7f;

            if (control ? put_escaped_byte(t, b) : put(t, (const char *)&b, 1))
                return -1;
            i++;
            continue;
        }
        if (need && len - i < need && !final) {
            ok = 1;
            for (size_t k = i + 1; k < len; k++)
                ok &= (s[k] & 0xC0) == 0x80;
            if (ok)
                return (ssize_t)i; /* cut: the rest comes with the next write */
        }
        ok = need ? arb_utf8_seq((const char *)s + i, len - i) : 0;
        if (ok != need || !need) {
            if (put_escaped_byte(t, b))
                return -1;
            i++;
            continue;
        }
        if (need == 2 && b == 0xC2 && s[i + 1] < 0xA0) {
            char e[8];

            snprintf(e, sizeof(e), "\\u%04x", (unsigned)s[i + 1]);
            if (put(t, e, 6))
                return -1;
        } else if (put(t, (const char *)s + i, need)) {
            return -1;
        }
        i += need;
    }
    return (ssize_t)i;
}

static ssize_t tty_write(void *cookie, const char *s, size_t len)
{
    struct tty_out *t = cookie;
    unsigned char joined[8];
    size_t take = 0;
    ssize_t used;

    /* Complete a held sequence with the first bytes of this write. */
    while (t->n_held && take < len) {
        memcpy(joined, t->held, t->n_held);
        joined[t->n_held] = (unsigned char)s[take++];
        used = filter(t, joined, t->n_held + 1, 0);
        if (used < 0)
            return -1;
        t->n_held = t->n_held + 1 - (size_t)used;
        memmove(t->held, joined + used, t->n_held);
    }
    if (t->n_held)
        return drain(t) ? -1 : (ssize_t)len; /* still cut: every byte is held */
    used = filter(t, (const unsigned char *)s + take, len - take, 0);
    if (used < 0)
        return -1;
    t->n_held = len - take - (size_t)used;
    memcpy(t->held, s + take + used, t->n_held);
    return drain(t) ? -1 : (ssize_t)len;
}

static int tty_close(void *cookie)
{
    struct tty_out *t = cookie;
    int rc = filter(t, t->held, t->n_held, 1) < 0 || drain(t) ? -1 : 0;

    free(t);
    return rc;
}

void cli_fputs_shown(const char *s, FILE *f)
{
    struct tty_out t;

    t.file = f;
    t.n_held = t.n = 0;
    if (filter(&t, (const unsigned char *)s, strlen(s), 1) >= 0)
        (void)drain(&t);
}

int cli_tty_guard_stdout(void)
{
    cookie_io_functions_t io = {NULL, tty_write, NULL, tty_close};
    struct tty_out *t;
    FILE *f;

    if (!isatty(STDOUT_FILENO))
        return 0;
    t = calloc(1, sizeof(*t));
    f = t ? fopencookie(t, "w", io) : NULL;
    if (!f) {
        free(t);
        return -1;
    }
    /* Line by line, as a terminal's stdout is, so it interleaves with standard error. */
    if (setvbuf(f, NULL, _IOLBF, BUFSIZ) != 0) {
        fclose(f);
        return -1;
    }
    fflush(stdout);
    stdout = f;
    return 1;
}
