/*
 * form.c - the arguments of a request as the pages see them: a form body
 * (application/x-www-form-urlencoded) split and decoded here, query arguments
 * decoded by libmicrohttpd (server.c); either way an argument is kept only when
 * its name and value are UTF-8 without NUL, and at most VIEW_MAX_ARGS of them,
 * so a page never sees a cut or mangled value (the server answers 400 instead).
 */
#include <string.h>

#include "arbiter/unicode.h"
#include "view_int.h"

int view_arg_acceptable(const char *s, size_t len)
{
    return strlen(s) == len && arb_utf8_valid(s, len, NULL);
}

void view_form_parse(char *body, struct view_args *l)
{
    char *p = body;

    while (p && *p) {
        char *amp = strchr(p, '&'), *eq;
        size_t kn, vn;

        if (amp)
            *amp = '\0';
        eq = strchr(p, '=');
        if (eq)
            *eq = '\0';
        kn = view_url_decode(p, 1);
        vn = eq ? view_url_decode(eq + 1, 1) : 0;
        if (!view_arg_acceptable(p, kn) || (eq && !view_arg_acceptable(eq + 1, vn))) {
            l->bad = 1;
        } else if (l->n == VIEW_MAX_ARGS) {
            l->too_many = 1;
        } else {
            l->a[l->n].name = p;
            l->a[l->n].value = eq ? eq + 1 : "";
            l->n++;
        }
        p = amp ? amp + 1 : NULL;
    }
}
