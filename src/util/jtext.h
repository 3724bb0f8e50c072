/*
 * jtext.h - JSON text written as cJSON_PrintUnformatted writes it, without a tree: the run's
 * comparison.json (src/run/decide.c) and arb_json_print's walk of a tree (jprint.c).
 */
#ifndef ARBITER_UTIL_JTEXT_H
#define ARBITER_UTIL_JTEXT_H

#include <stddef.h>

#include "arbiter/buf.h"
#include "arbiter/status.h"

/*
 * JSON text as cJSON_PrintUnformatted prints the same tree (jtext.c): comparison.json is
 * written without one.  Errors are sticky in st.
 */
#define JTEXT_DEPTH      16
#define JTEXT_NUMBER_MAX 32

/* Numbers jtext_num printed with printf (pass rates: 2/3), kept by value to be printed again. */
#define JTEXT_NUMS 16
struct jtext_nums {
    double key[JTEXT_NUMS];
    unsigned char len[JTEXT_NUMS]; /* 0: empty slot */
    char text[JTEXT_NUMS][JTEXT_NUMBER_MAX];
};

struct jtext {
    struct jtext_nums *nums; /* NULL: none kept (jtext_init) */
    struct arb_buf *out;     /* appended to (borrowed) */
    enum arb_status st;      /* the first failure */
    int depth;
    int keyed;                        /* jtext_key wrote the next member's name */
    unsigned char first[JTEXT_DEPTH]; /* per level: nothing written in it yet */
};

void jtext_init(struct jtext *j, struct arb_buf *out);
/*
 * The calls below take key NULL inside an array, else a member name that needs no escaping
 * (the callers' literals); a name from elsewhere goes first through jtext_key, and the call
 * writing its value then takes key NULL.  bracket '{' or '[' (and '}' or ']' to close).
 */
void jtext_key(struct jtext *j, const char *name);
/* jtext_key for a name already written as JSON, with its colon ("name":). */
void jtext_key_json(struct jtext *j, const char *text);
/* text[0..n) appended as it is: no separator, no key. */
void jtext_append(struct jtext *j, const char *text, size_t n);
void jtext_open(struct jtext *j, const char *key, char bracket);
void jtext_close(struct jtext *j, char bracket);
void jtext_str(struct jtext *j, const char *key, const char *s); /* NULL s: ARB_ENOMEM */
void jtext_num(struct jtext *j, const char *key, double d);      /* NaN, infinities: null */
void jtext_null(struct jtext *j, const char *key);
void jtext_bool(struct jtext *j, const char *key, int v);
/* A member whose value is JSON text already written (text[0..n)). */
void jtext_raw(struct jtext *j, const char *key, const char *text, size_t n);
/* A string value s[0..n) escaped as cJSON escapes it, with no separator or key. */
void jtext_string(struct jtext *j, const char *s, size_t n);
/* d as cJSON prints a number, NUL-terminated into out (JTEXT_NUMBER_MAX); the length. */
size_t jtext_number(double d, char *out);

#endif
