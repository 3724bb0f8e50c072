/*
 * test_view_filter.c - the case table's query in a URL (src/view/page.c): what
 * view_filter_query writes, read back by view_filter_read the way the server decodes a query
 * string, is the same filter, for random filters whose texts hold the URL's and HTML's own
 * characters; the query is safe inside a quoted attribute; bad values are refused by name.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/report/html_int.h"
#include "../../src/view/view_int.h"

/* xorshift64 with a fixed seed, so no test touches the global rand() state. */
static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static const char *const texts[] = {"",      "decided",     "a b",   "x&y=z", "50%", "+plus",
                                    "\"q'<", "caf\xc3\xa9", "#frag", "?q",    "TIE", "none"};
#define N_TEXTS (sizeof(texts) / sizeof(texts[0]))

struct parsed {
    char buf[4096];
    struct view_arg args[64];
    struct view_req req;
};

/* The query an attribute holds ("?a=1&amp;b=2"), split and decoded as the server does. */
static void parse(const char *attr, struct parsed *p)
{
    size_t o = 0;
    char *s;

    for (const char *c = attr; *c; c++) {
        cr_assert(*c != '"' && *c != '<' && *c != '>' && *c != '\'', "'%s' is unsafe", attr);
        cr_assert_lt(o, sizeof(p->buf) - 1);
        p->buf[o++] = *c;
        if (*c == '&') {
            cr_assert_eq(strncmp(c, "&amp;", 5), 0, "a bare & in '%s'", attr);
            c += 4;
        }
    }
    p->buf[o] = '\0';
    memset(&p->req, 0, sizeof(p->req));
    p->req.args = p->args;
    s = p->buf[0] == '?' ? p->buf + 1 : p->buf;
    cr_assert(p->buf[0] == '?' || p->buf[0] == '\0', "'%s'", attr);
    while (*s) {
        char *amp = strchr(s, '&'), *eq;

        if (amp)
            *amp = '\0';
        eq = strchr(s, '=');
        cr_assert(eq, "an argument without a value in '%s'", attr);
        *eq = '\0';
        view_url_decode(s, 1);
        view_url_decode(eq + 1, 1);
        cr_assert_lt(p->req.n_args, 64);
        p->args[p->req.n_args].name = s;
        p->args[p->req.n_args].value = eq + 1;
        p->req.n_args++;
        s = amp ? amp + 1 : s + strlen(s);
    }
}

static int same_text(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

Test(view_filter, should_read_back_what_it_writes)
{
    uint64_t seed = 0x243f6a8885a308d3u;

    for (int round = 0; round < 5000; round++) {
        struct view_filter f, g;
        struct arb_buf b;
        struct html h = {&b, ARB_OK};
        struct parsed p;
        int64_t page = (int64_t)(next_rand(&seed) % 4);
        char bad[200];

        memset(&f, 0, sizeof(f));
        f.q.run = 3;
        f.q.status = texts[next_rand(&seed) % N_TEXTS];
        f.q.winner = texts[next_rand(&seed) % N_TEXTS];
        f.q.search = texts[next_rand(&seed) % N_TEXTS];
        f.q.flags = (unsigned)(next_rand(&seed) % 32);
        f.q.sort = (enum arb_case_sort)(next_rand(&seed) % 5);
        f.q.descending = (int)(next_rand(&seed) % 2);
        f.q.limit = next_rand(&seed) % 3 == 0 ? 50 : (int64_t)(1 + next_rand(&seed) % 1000);
        arb_buf_init(&b, 0);
        cr_assert_eq(arb_buf_adds(&b, ""), ARB_OK);
        view_filter_query(&h, &f, page);
        cr_assert_eq(h.st, ARB_OK);
        parse(b.ptr, &p);
        cr_assert(view_filter_read(&p.req, 3, &g, bad, sizeof(bad)), "%s: %s", b.ptr, bad);
        cr_assert(same_text(g.q.status, f.q.status), "%s: status '%s' '%s'", b.ptr,
                  g.q.status ? g.q.status : "(null)", f.q.status);
        cr_assert(same_text(g.q.winner, f.q.winner), "%s: winner", b.ptr);
        cr_assert(same_text(g.q.search, f.q.search), "%s: q", b.ptr);
        cr_assert_eq(g.q.flags, f.q.flags, "%s: flags", b.ptr);
        cr_assert_eq(g.q.sort, f.q.sort, "%s: sort", b.ptr);
        cr_assert_eq(g.q.descending, f.q.descending, "%s: dir", b.ptr);
        cr_assert_eq(g.q.limit, f.q.limit, "%s: per", b.ptr);
        cr_assert_eq(g.page, page > 1 ? page : 1, "%s: page", b.ptr);
        cr_assert_eq(g.q.offset, (g.page - 1) * g.q.limit, "%s: offset", b.ptr);
        cr_assert_eq(g.q.run, 3);
        arb_buf_release(&b);
    }
}

static int refused(const char *name, const char *value, const char *why)
{
    struct view_arg a = {name, value};
    struct view_req r = {0, "/runs/1/cases", &a, 1};
    struct view_filter f;
    char bad[200] = "";
    int ok = view_filter_read(&r, 1, &f, bad, sizeof(bad));

    cr_assert(ok || strstr(bad, why), "%s=%s: '%s' lacks '%s'", name, value, bad, why);
    return !ok;
}

Test(view_filter, should_refuse_bad_values_by_name)
{
    cr_assert(refused("flag", "nope", "flag: expected"));
    cr_assert(refused("sort", "size", "sort: expected"));
    cr_assert(refused("dir", "up", "dir: expected"));
    cr_assert(refused("page", "0", "page: expected"));
    cr_assert(refused("page", "-1", "page: expected"));
    cr_assert(refused("page", "1000000000000", "page: expected"));
    cr_assert(refused("per", "1001", "per: expected"));
    cr_assert(refused("per", "", "per: expected"));
    cr_assert(!refused("per", "1000", ""));
    cr_assert(!refused("token", "anything", ""));
}
