/*
 * fields_int.h - what the fields operator's files share: the compiled
 * comparator map (built by fields_map.c, run by fields.c) and the cache of
 * values as text (fields_text.c).  Private to the library.
 */
#ifndef ARBITER_FIELDS_INT_H
#define ARBITER_FIELDS_INT_H

#include <stddef.h>

#include "../compare/ops.h"

/* Levels of map and data nesting followed before giving up on a value. */
#define MAX_DEPTH 200

enum node_kind {
    NODE_LEAF,     /* one check on the whole value */
    NODE_MAP,      /* field name -> node */
    NODE_UNORDERED /* an array matched by best total score; kids[0] compares the items */
};

struct node {
    enum node_kind kind;
    char *cfg_path;          /* JSON path of this node in the check, for messages */
    struct arb_check *check; /* NODE_LEAF */
    int cheap;               /* NODE_LEAF: fast enough to run on every pair of items */
    int plain_exact;         /* NODE_LEAF: exact with no expected, extract or not */
    char **names;            /* NODE_MAP: field names, n of them */
    struct node **kids;      /* NODE_MAP: n children; NODE_UNORDERED: one */
    size_t n;
};

/* JSON values as the text a leaf check sees, converted once per value (fields_text.c). */
struct text_slot {
    const cJSON *node;
    char *text;
    size_t len;
};

struct text_cache {
    struct text_slot *v; /* open addressing by node address; cap a power of two */
    size_t cap, n;
};

/*
 * The text of v: a string's content (borrowed from v), anything else its
 * RFC 8785 form, made once and kept until text_cache_release.  The cache
 * starts zeroed.
 */
enum arb_status text_cache_get(struct text_cache *tc, const cJSON *v, const char **s, size_t *n,
                               struct arb_err *err);
void text_cache_release(struct text_cache *tc);

struct fields_priv {
    struct node *root;
    int allow_extra;
};

#endif
