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

/* Item pairs of one unordered array beyond which it is not matched. */
#define MAX_CELLS ((size_t)4 * 1000 * 1000)

/*
 * How a leaf's operator meets the JSON types of the values it compares
 * (fields_types.c).  A leaf compares JSON values with their types: only an
 * operator that normalizes may read one type as another, and then the leaf's
 * entry says what it converted.
 */
enum leaf_typing {
    TYPING_STRICT,  /* same JSON type, else score 0 with a type mismatch note (exact, ...) */
    TYPING_NUMBER,  /* numeric, within: a string side is read as a number (string_to_number) */
    TYPING_TEXT,    /* normalizing text operators: a non-string side is read as its JSON text */
    TYPING_PATTERN, /* expected is a pattern or a list: a non-string observed is read as text */
    TYPING_NONE     /* the operator reads structure itself (json_schema, aggregates, ...) */
};

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
    enum leaf_typing typing; /* NODE_LEAF */
    const cJSON *own;        /* NODE_LEAF: the check's own expected (borrowed), or NULL */
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

/* What the type rule makes of one leaf's pair of values (fields_types.c). */
struct leaf_types {
    int mismatch;          /* the operator does not read one type as the other: score 0 */
    const char *steps[2];  /* conversions applied (static names), in order */
    unsigned char side[2]; /* per step: 1 expected, 2 observed, 3 both */
    size_t n_steps;
};

/* The typing of a compiled leaf check (set once, by fields_map.c). */
enum leaf_typing leaf_typing_of(const struct arb_check *c);

/*
 * Apply the type rule of leaf nd to expected e (the data's; the check's own
 * expected when it has one is used instead) and observed o.  Cheap: no
 * allocation, called for every leaf run.
 */
void leaf_types_decide(const struct node *nd, const cJSON *e, const cJSON *o,
                       struct leaf_types *lt);

/*
 * 1 when the type rule has nothing to decide for this pair: the common case
 * (one type, not converted), kept to a few loads because the pair matrix of
 * an unordered array asks it for every leaf of every pair.
 */
static inline int leaf_types_trivial(const struct node *nd, const cJSON *e, const cJSON *o)
{
    int et = (nd->own ? nd->own : e)->type & 0xFF, ot = o->type & 0xFF;

    switch (nd->typing) {
    case TYPING_STRICT:
        return et == ot;
    case TYPING_NUMBER:
        return et == cJSON_Number && ot == cJSON_Number;
    case TYPING_TEXT:
        return et == cJSON_String && ot == cJSON_String;
    case TYPING_PATTERN:
        return ot == cJSON_String;
    case TYPING_NONE:
        break;
    }
    return 1;
}

/* The expected value the leaf compares: the check's own, else the data's e. */
const cJSON *leaf_expected(const struct node *nd, const cJSON *e);

/* "string", "number", "boolean", "null", "object" or "array". */
const char *leaf_json_type(const cJSON *v);

/*
 * Add to a leaf's details entry what the type rule did: "types" (both JSON
 * types), "normalization" (lt's steps) and "compared" (the values as the
 * operator read them: a string read as a number is that number when it is
 * plain JSON number text, else the text itself; a value read as text is its
 * text).  Only when lt has a mismatch or a step.  ARB_ENOMEM.
 */
enum arb_status leaf_types_record(const struct node *nd, const struct leaf_types *lt,
                                  const cJSON *e, const cJSON *o, struct text_cache *tc,
                                  cJSON *entry, struct arb_err *err);

/* The pair matrix of an unordered array and what is known of it. */
struct pairs {
    const cJSON **ev, **ov;
    size_t ne, no;
    double *m;              /* ne x no item scores, or upper bounds where inexact */
    unsigned char *inexact; /* 1 where m holds a bound */
    size_t *row_to_col;
};

/*
 * The items of e and o (arrays, else none) and room for their matrix
 * (fields_pairs.c).  ARB_ETOOBIG past MAX_CELLS pairs (nothing matched yet),
 * ARB_ENOMEM.  pairs_release frees it all, after any return.
 */
enum arb_status pairs_init(struct pairs *p, const cJSON *e, const cJSON *o);
void pairs_release(struct pairs *p);

/*
 * Append {"path", "pairs": [[expected, observed]...], "missed", "extra"} to
 * matchings: row_to_col is the assignment of ne expected items, used[j] says
 * whether observed item j (of no) was matched.  ARB_ENOMEM.
 */
enum arb_status record_matching(cJSON *matchings, const char *path, const size_t *row_to_col,
                                size_t ne, const unsigned char *used, size_t no);

struct fields_priv {
    struct node *root;
    int allow_extra;
};

#endif
