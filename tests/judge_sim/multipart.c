/*
 * multipart.c - the fields of a multipart/form-data body (RFC 7578), as OpenAI's file upload
 * sends them: "purpose" and "file" (with its filename). Only what the test judge's upload
 * route needs: no nested multiparts, no transfer encodings; a part's body is the bytes between
 * its blank line and the next delimiter, whatever they are.
 */
#include <string.h>
#include <strings.h>

#include "batch.h"

static const char *find(const char *hay, size_t len, const char *needle, size_t n)
{
    for (size_t i = 0; n <= len && i <= len - n; i++)
        if (hay[i] == needle[0] && memcmp(hay + i, needle, n) == 0)
            return hay + i;
    return NULL;
}

/* The value of a Content-Disposition parameter (name="..."), copied into out; "" if absent. */
static void disposition(const char *head, size_t len, const char *key, char *out, size_t cap)
{
    size_t k = strlen(key);

    out[0] = '\0';
    for (size_t i = 1; i + k + 2 <= len; i++) {
        const char *v, *end;

        /* ' name="' or ';name="', not the tail of 'filename="'. */
        if ((head[i - 1] != ' ' && head[i - 1] != ';') || strncasecmp(head + i, key, k) != 0 ||
            head[i + k] != '=' || head[i + k + 1] != '"')
            continue;
        v = head + i + k + 2;
        end = memchr(v, '"', len - (size_t)(v - head));
        if (end && (size_t)(end - v) < cap) {
            memcpy(out, v, (size_t)(end - v));
            out[end - v] = '\0';
        }
        return;
    }
}

int sim_form_parse(const struct sim_http *h, struct sim_form *f, const char **why)
{
    const char *ct = h->content_type, *b, *p, *end = h->body + h->len;
    char delim[200];
    size_t dn;

    memset(f, 0, sizeof(*f));
    *why = "the upload must be multipart/form-data with a boundary";
    if (!ct || strncasecmp(ct, "multipart/form-data", 19) != 0)
        return 0;
    b = strstr(ct, "boundary=");
    if (!b)
        return 0;
    b += 9;
    b += *b == '"'; /* boundary="..." */
    dn = (size_t)snprintf(delim, sizeof(delim), "\r\n--%.*s", (int)strcspn(b, "\"; "), b);
    if (dn >= sizeof(delim) || dn <= 4)
        return 0;
    /* The first delimiter has no CRLF before it. */
    p = find(h->body, h->len, delim + 2, dn - 2);
    if (!p)
        return 0;
    p += dn - 2;
    for (;;) {
        const char *head, *body, *next;
        char name[64];

        if (end - p >= 2 && p[0] == '-' && p[1] == '-')
            return 1; /* the closing delimiter */
        if (end - p < 2 || p[0] != '\r' || p[1] != '\n')
            return 0;
        head = p + 2;
        body = find(head, (size_t)(end - head), "\r\n\r\n", 4);
        if (!body)
            return 0;
        next = find(body + 4, (size_t)(end - body - 4), delim, dn);
        if (!next)
            return 0;
        disposition(head, (size_t)(body - head), "name", name, sizeof(name));
        if (!strcmp(name, "purpose")) {
            f->purpose = body + 4;
            f->purpose_len = (size_t)(next - body - 4);
        } else if (!strcmp(name, "file")) {
            f->file = body + 4;
            f->file_len = (size_t)(next - body - 4);
            f->has_file = true;
            disposition(head, (size_t)(body - head), "filename", f->filename, sizeof(f->filename));
        }
        p = next + dn;
    }
}
