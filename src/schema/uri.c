/*
 * uri.c - the RFC 3986 pieces that $id and $ref need: reference resolution
 * (section 5.2, with remove_dot_segments), splitting off the fragment and
 * percent-decoding it.  No normalisation beyond that (case, ports, IRIs):
 * identifiers are compared as the resolved strings.  A base without a scheme
 * (an anonymous root schema) resolves as a plain path.
 */
#include <string.h>

#include "arbiter/buf.h"
#include "schema_int.h"

struct uri_parts {
    const char *scheme, *auth, *path, *query, *frag;
    size_t scheme_len, auth_len, path_len, query_len, frag_len;
    int has_scheme, has_auth, has_query, has_frag;
};

/* The regular expression of RFC 3986 appendix B, by hand. */
static void uri_split(const char *s, struct uri_parts *u)
{
    const char *p = s;

    memset(u, 0, sizeof(*u));
    while (*p && !strchr(":/?#", *p))
        p++;
    if (*p == ':' && p > s) {
        u->has_scheme = 1;
        u->scheme = s;
        u->scheme_len = (size_t)(p - s);
        s = p + 1;
    }
    if (s[0] == '/' && s[1] == '/') {
        u->has_auth = 1;
        u->auth = s + 2;
        p = u->auth;
        while (*p && !strchr("/?#", *p))
            p++;
        u->auth_len = (size_t)(p - u->auth);
        s = p;
    }
    u->path = s;
    p = s;
    while (*p && *p != '?' && *p != '#')
        p++;
    u->path_len = (size_t)(p - s);
    if (*p == '?') {
        u->has_query = 1;
        u->query = ++p;
        while (*p && *p != '#')
            p++;
        u->query_len = (size_t)(p - u->query);
    }
    if (*p == '#') {
        u->has_frag = 1;
        u->frag = p + 1;
        u->frag_len = strlen(u->frag);
    }
}

/* Drop the last segment (and its '/') from out[0..*o). */
static void drop_segment(const char *out, size_t *o)
{
    while (*o > 0 && out[*o - 1] != '/')
        (*o)--;
    if (*o > 0)
        (*o)--;
}

/* RFC 3986 5.2.4 on the writable buf[0..n); writes at most n bytes to out. */
static size_t remove_dots(char *buf, size_t n, char *out)
{
    size_t p = 0, o = 0;

    while (p < n) {
        size_t left = n - p;
        char *in = buf + p;

        if (left >= 3 && !strncmp(in, "../", 3)) {
            p += 3;
        } else if (left >= 2 && !strncmp(in, "./", 2)) {
            p += 2;
        } else if (left >= 3 && !strncmp(in, "/./", 3)) {
            p += 2;
        } else if (left == 2 && !strncmp(in, "/.", 2)) {
            p += 1;
            buf[p] = '/';
        } else if (left >= 4 && !strncmp(in, "/../", 4)) {
            p += 3;
            drop_segment(out, &o);
        } else if (left == 3 && !strncmp(in, "/..", 3)) {
            p += 2;
            buf[p] = '/';
            drop_segment(out, &o);
        } else if ((left == 1 && in[0] == '.') || (left == 2 && !strncmp(in, "..", 2))) {
            p = n;
        } else {
            if (buf[p] == '/')
                out[o++] = buf[p++];
            while (p < n && buf[p] != '/')
                out[o++] = buf[p++];
        }
    }
    return o;
}

static void put(char *out, size_t *o, const char *s, size_t n)
{
    memcpy(out + *o, s, n);
    *o += n;
}

/* Append path (of n bytes) with dot segments removed, using scratch. */
static void put_path(char *out, size_t *o, const char *path, size_t n, char *scratch)
{
    memcpy(scratch, path, n);
    *o += remove_dots(scratch, n, out + *o);
}

/*
 * Resolve ref against base (RFC 3986 5.2.2) into a new arena string, or
 * NULL when out of memory.
 */
char *uri_resolve(struct arena *a, const char *base, const char *ref)
{
    struct uri_parts b, r;
    size_t cap = strlen(base) + strlen(ref) + 8, o = 0;
    char *out = arena_alloc(a, cap), *scratch = arena_alloc(a, cap);
    const struct uri_parts *auth, *query;

    if (!out || !scratch)
        return NULL;
    uri_split(base, &b);
    uri_split(ref, &r);
    if (r.has_scheme) {
        put(out, &o, r.scheme, r.scheme_len);
        out[o++] = ':';
        auth = &r;
        query = &r;
    } else {
        if (b.has_scheme) {
            put(out, &o, b.scheme, b.scheme_len);
            out[o++] = ':';
        }
        auth = r.has_auth ? &r : &b;
        query = (r.has_auth || r.path_len || r.has_query) ? &r : &b;
    }
    if (auth->has_auth) {
        put(out, &o, "//", 2);
        put(out, &o, auth->auth, auth->auth_len);
    }
    if (r.has_scheme || r.has_auth || (r.path_len && r.path[0] == '/')) {
        put_path(out, &o, r.path, r.path_len, scratch);
    } else if (!r.path_len) {
        put(out, &o, b.path, b.path_len);
    } else {
        /* Merge (5.2.3): the base path up to its last '/', then the reference. */
        size_t keep = b.path_len, m = 0;

        while (keep > 0 && b.path[keep - 1] != '/')
            keep--;
        if (b.has_auth && b.path_len == 0)
            scratch[m++] = '/';
        memcpy(scratch + m, b.path, keep);
        memcpy(scratch + m + keep, r.path, r.path_len);
        o += remove_dots(scratch, m + keep + r.path_len, out + o);
    }
    if (query->has_query) {
        out[o++] = '?';
        put(out, &o, query->query, query->query_len);
    }
    if (r.has_frag) {
        out[o++] = '#';
        put(out, &o, r.frag, r.frag_len);
    }
    out[o] = '\0';
    return out;
}

/*
 * Copy uri without its fragment into the arena; *fragment (when given)
 * points into uri just past the '#', or is NULL when there is none.
 */
char *uri_strip_fragment(struct arena *a, const char *uri, const char **fragment)
{
    const char *hash = strchr(uri, '#');

    if (fragment)
        *fragment = hash ? hash + 1 : NULL;
    return arena_strndup(a, uri, hash ? (size_t)(hash - uri) : strlen(uri));
}

/* Percent-decode a fragment into a new arena string (a bad escape stays as is). */
char *uri_fragment_decode(struct arena *a, const char *fragment)
{
    size_t n = strlen(fragment), i, o = 0;
    char *out = arena_alloc(a, n + 1);

    if (!out)
        return NULL;
    for (i = 0; i < n; i++) {
        int hi = -1, lo = -1;

        if (fragment[i] == '%' && i + 2 < n) {
            hi = arb_hex_value(fragment[i + 1]);
            lo = arb_hex_value(fragment[i + 2]);
        }
        if (hi >= 0 && lo >= 0) {
            out[o++] = (char)(hi * 16 + lo);
            i += 2;
        } else {
            out[o++] = fragment[i];
        }
    }
    out[o] = '\0';
    return out;
}
