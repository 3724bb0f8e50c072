/*
 * schema_int.h - private types shared by the files of src/schema/.
 *
 * compile.c and compile_kw.c turn schema JSON into a graph of struct node;
 * resolve.c owns resources, URIs ($id, $anchor, $dynamicAnchor), metaschemas
 * and $ref resolution; validate.c and validate_kw.c walk the graph; pattern.c
 * wraps PCRE2; number.c does exact decimal multipleOf.  Nothing outside
 * src/schema/ includes this file.
 */
#ifndef ARBITER_SCHEMA_INT_H
#define ARBITER_SCHEMA_INT_H

#include <stddef.h>
#include <stdint.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "arbiter/schema.h"

/* Vocabularies (2020-12); draft 7 always has all of them. */
enum vocab {
    VOC_APPLICATOR = 1 << 0,
    VOC_VALIDATION = 1 << 1,
    VOC_UNEVALUATED = 1 << 2,
    VOC_ALL = VOC_APPLICATOR | VOC_VALIDATION | VOC_UNEVALUATED
};

/* Instance types of the "type" keyword. */
enum type_bits {
    T_NULL = 1 << 0,
    T_BOOLEAN = 1 << 1,
    T_OBJECT = 1 << 2,
    T_ARRAY = 1 << 3,
    T_NUMBER = 1 << 4,
    T_INTEGER = 1 << 5,
    T_STRING = 1 << 6
};

/* Keywords present in a node (struct node.kw). */
#define K_TYPE         (UINT64_C(1) << 0)
#define K_ENUM         (UINT64_C(1) << 1)
#define K_CONST        (UINT64_C(1) << 2)
#define K_MULTIPLE_OF  (UINT64_C(1) << 3)
#define K_MINIMUM      (UINT64_C(1) << 4)
#define K_MAXIMUM      (UINT64_C(1) << 5)
#define K_EXMIN        (UINT64_C(1) << 6)
#define K_EXMAX        (UINT64_C(1) << 7)
#define K_MINLEN       (UINT64_C(1) << 8)
#define K_MAXLEN       (UINT64_C(1) << 9)
#define K_PATTERN      (UINT64_C(1) << 10)
#define K_MINITEMS     (UINT64_C(1) << 11)
#define K_MAXITEMS     (UINT64_C(1) << 12)
#define K_UNIQUE       (UINT64_C(1) << 13)
#define K_PREFIX       (UINT64_C(1) << 14)
#define K_ITEMS        (UINT64_C(1) << 15)
#define K_CONTAINS     (UINT64_C(1) << 16)
#define K_MINCONT      (UINT64_C(1) << 17)
#define K_MAXCONT      (UINT64_C(1) << 18)
#define K_UNEVAL_ITEMS (UINT64_C(1) << 19)
#define K_MINPROPS     (UINT64_C(1) << 20)
#define K_MAXPROPS     (UINT64_C(1) << 21)
#define K_REQUIRED     (UINT64_C(1) << 22)
#define K_PROPS        (UINT64_C(1) << 23)
#define K_PATPROPS     (UINT64_C(1) << 24)
#define K_ADDPROPS     (UINT64_C(1) << 25)
#define K_PROPNAMES    (UINT64_C(1) << 26)
#define K_DEPREQ       (UINT64_C(1) << 27)
#define K_DEPSCH       (UINT64_C(1) << 28)
#define K_UNEVAL_PROPS (UINT64_C(1) << 29)
#define K_ALLOF        (UINT64_C(1) << 30)
#define K_ANYOF        (UINT64_C(1) << 31)
#define K_ONEOF        (UINT64_C(1) << 32)
#define K_NOT          (UINT64_C(1) << 33)
#define K_IF           (UINT64_C(1) << 34)
#define K_REF          (UINT64_C(1) << 35)
#define K_DYNREF       (UINT64_C(1) << 36)

#define K_NUMERIC (K_MULTIPLE_OF | K_MINIMUM | K_MAXIMUM | K_EXMIN | K_EXMAX)
#define K_STRING  (K_MINLEN | K_MAXLEN | K_PATTERN)
#define K_ARRAY                                                                                    \
    (K_MINITEMS | K_MAXITEMS | K_UNIQUE | K_PREFIX | K_ITEMS | K_CONTAINS | K_UNEVAL_ITEMS)
#define K_OBJECT                                                                                   \
    (K_MINPROPS | K_MAXPROPS | K_REQUIRED | K_PROPS | K_PATPROPS | K_ADDPROPS | K_PROPNAMES |      \
     K_DEPREQ | K_DEPSCH | K_UNEVAL_PROPS)
#define K_INPLACE (K_ALLOF | K_ANYOF | K_ONEOF | K_NOT | K_IF | K_REF | K_DYNREF)

enum node_kind { NODE_TRUE, NODE_FALSE, NODE_SCHEMA };

/* A multipleOf divisor as an exact decimal: mant * 10^exp. */
struct decimal {
    uint64_t mant;
    int exp;
};

struct prop {
    const char *name;
    struct node *node;
};

/* properties: names with an optional hash index once there are many. */
struct proptab {
    struct prop *v;
    size_t n;
    uint32_t *slots; /* index + 1, 0 empty; NULL when n is small */
    uint32_t mask;
};

struct patprop {
    pcre2_code *re;
    struct node *node;
};

struct strlist {
    const char **v;
    size_t n;
};

struct depreq {
    const char *name;
    const char *kw; /* "dependentRequired" or "dependencies" */
    struct strlist req;
};

struct nodelist {
    struct node **v;
    size_t n;
};

struct resource;

struct node {
    uint64_t kw;
    unsigned char kind;  /* enum node_kind */
    unsigned char types; /* enum type_bits */
    unsigned char draft; /* enum arb_schema_draft */
    const struct resource *res;
    const char *loc;         /* JSON pointer of the schema location, within res */
    const char *dyn_anchor;  /* this node's own $dynamicAnchor, or NULL */
    const char *ref_uri;     /* $ref, absolute, while unresolved */
    const char *dynref_uri;  /* $dynamicRef, absolute, while unresolved */
    const char *dynref_name; /* set when $dynamicRef resolves through the dynamic scope */

    const cJSON *enum_vals;
    const cJSON *const_val;
    double minimum, maximum, exmin, exmax, mult;
    struct decimal mult_dec;
    size_t min_len, max_len;
    pcre2_code *pattern;

    size_t min_items, max_items, min_cont, max_cont;
    struct nodelist prefix;
    struct node *items;        /* applies from prefix.n on (draft 7: additionalItems too) */
    struct node *add_items;    /* draft 7 additionalItems, kept until items is known */
    unsigned char items_array; /* draft 7 "items" was an array */
    struct node *contains;
    struct node *uneval_items;

    size_t min_props, max_props;
    struct strlist required;
    struct proptab props;
    struct patprop *patprops;
    size_t n_patprops;
    struct node *addprops;
    struct node *propnames;
    struct depreq *depreq;
    size_t n_depreq;
    struct prop *depsch;
    size_t n_depsch;
    struct node *uneval_props;

    struct nodelist allof, anyof, oneof;
    struct node *not_, *if_, *then_, *else_;
    struct node *ref, *dynref;
};

struct anchor {
    const char *name;
    struct node *node;
    struct anchor *next;
};

/* A schema resource: a document root or a subschema with $id. */
struct resource {
    const char *uri;        /* absolute without fragment; "" for an anonymous root */
    const cJSON *json;      /* the resource's root schema */
    struct node *root;      /* compiled root, NULL until compiled */
    struct anchor *anchors; /* $anchor, $dynamicAnchor, draft 7 "$id": "#name" */
    struct anchor *dynamic; /* $dynamicAnchor only */
    unsigned char draft;
    unsigned char vocab;
    struct resource *next;
};

/* Another name (a retrieval URI, an $id) for a resource. */
struct idmap {
    const char *uri;
    struct resource *res;
    struct idmap *next;
};

struct arena_block {
    struct arena_block *next;
    size_t used, size;
    max_align_t data[];
};

struct arena {
    struct arena_block *head;
};

struct arb_schema {
    struct arena arena;
    struct node *root;
    enum arb_schema_draft draft;
    int uses_dynamic; /* some $dynamicRef resolves dynamically: track the dynamic scope */
    cJSON **docs;     /* owned documents: the copy of the schema, loaded remotes */
    size_t n_docs, cap_docs;
    pcre2_code **codes;
    size_t n_codes, cap_codes;
};

/* Map from schema JSON nodes to compiled nodes (open addressing). */
struct jmap {
    const cJSON **keys;
    struct node **vals;
    size_t cap, n;
};

/* Compilation state, discarded when arb_schema_compile returns. */
struct cctx {
    struct arb_schema *s;
    const struct arb_schema_opts *opts;
    struct arb_err *err;
    enum arb_status st;
    struct resource *resources;
    struct idmap *ids;
    struct jmap jmap;
    struct node **pending; /* nodes whose $ref / $dynamicRef are unresolved */
    size_t n_pending, cap_pending;
    const char *doc_uri; /* document being compiled ("" for the caller's schema) */
    char path[512];      /* schema location being compiled, for messages */
    size_t path_len;
    unsigned depth;
};

/* Recursion through nodes allowed in one validation (in-place applicators and $ref). */
#define MAX_FRAMES (4 * ARB_SCHEMA_MAX_DEPTH)

/* An instance location, as a list from the leaf up; key NULL means index. */
struct vpath {
    const struct vpath *up;
    const char *key;
    size_t index;
};

/* The dynamic scope: schema resources entered, innermost first. */
struct scope {
    const struct resource *res;
    const struct scope *up;
};

/* $ref frames on the current evaluation path, to catch loops. */
struct reflink {
    const struct node *target;
    const cJSON *inst;
    const struct reflink *up;
};

/* Members or items of one instance that some keyword evaluated. */
struct eval {
    uint64_t *bits;
    size_t n;
    uint64_t small[2];
};

/* Validation state, on the caller's stack. */
struct vctx {
    const struct arb_schema *s;
    struct arb_schema_errors *errs; /* NULL: stop at the first violation */
    struct arb_err *fatal;          /* why validation could not finish, or NULL */
    pcre2_match_data *md;
    unsigned depth;  /* instance nesting */
    unsigned frames; /* nested node evaluations */
    const struct scope *scope;
    const struct reflink *refs;
};

/* validate.c */
int v_node(struct vctx *c, const struct node *n, const cJSON *v, const struct vpath *p,
           struct eval *ev);
int v_child(struct vctx *c, const struct node *n, const cJSON *v, const struct vpath *p,
            const char *kw);
int v_fail(struct vctx *c, const struct vpath *p, const char *kw);
int v_error(struct vctx *c, enum arb_status st, const struct vpath *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
int v_stop(const struct vctx *c, int r, int *ok);
int eval_init(struct eval *ev, size_t n);
void eval_release(struct eval *ev);
void eval_mark(struct eval *ev, size_t i);
int eval_test(const struct eval *ev, size_t i);
void eval_merge(struct eval *dst, const struct eval *src);
void eval_mark_all(struct eval *ev);

/* validate_kw.c: keyword groups; 1 valid, 0 invalid, negative status. */
int check_type(struct vctx *c, const struct node *n, const cJSON *v, const struct vpath *p);
int check_values(struct vctx *c, const struct node *n, const cJSON *v, const struct vpath *p);
int check_number(struct vctx *c, const struct node *n, const cJSON *v, const struct vpath *p);
int check_string(struct vctx *c, const struct node *n, const cJSON *v, const struct vpath *p);
int check_array(struct vctx *c, const struct node *n, const cJSON *v, const struct vpath *p,
                struct eval *ev);
int check_object(struct vctx *c, const struct node *n, const cJSON *v, const struct vpath *p,
                 struct eval *ev);
int check_uneval(struct vctx *c, const struct node *n, const cJSON *v, const struct vpath *p,
                 const struct eval *ev);

/* mem.c */
void *arena_alloc(struct arena *a, size_t size);
char *arena_strdup(struct arena *a, const char *s);
char *arena_strndup(struct arena *a, const char *s, size_t n);
void arena_release(struct arena *a);
int jmap_put(struct jmap *m, const cJSON *key, struct node *val);
struct node *jmap_get(const struct jmap *m, const cJSON *key);
void jmap_release(struct jmap *m);
int schema_own_doc(struct arb_schema *s, cJSON *doc);
int schema_own_code(struct arb_schema *s, pcre2_code *re);
int json_too_deep(const cJSON *v, unsigned depth);

/* compile.c */
struct node *compile_schema(struct cctx *c, const cJSON *j, struct resource *res,
                            enum arb_schema_draft draft, unsigned vocab);
struct node *compile_sub(struct cctx *c, const cJSON *j, const char *kw, const char *key,
                         struct resource *res, enum arb_schema_draft draft, unsigned vocab);
enum arb_status compile_fail(struct cctx *c, enum arb_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void path_push(struct cctx *c, const char *seg);
void path_pop(struct cctx *c, size_t len);
void path_set(struct cctx *c, const char *p);

/* compile_kw.c: one keyword of an object schema; 0 ok, -1 failed (c->st set). */
int compile_keyword(struct cctx *c, struct node *n, const cJSON *kw, struct resource *res,
                    enum arb_schema_draft draft, unsigned vocab);
void proptab_index(struct cctx *c, struct proptab *t);
const struct prop *proptab_find(const struct proptab *t, const char *name);

/* resolve.c */
struct resource *resource_new(struct cctx *c, const char *uri, const cJSON *json,
                              enum arb_schema_draft draft, unsigned vocab);
struct resource *resource_find(const struct cctx *c, const char *uri);
int idmap_add(struct cctx *c, const char *uri, struct resource *res);
int anchor_add(struct cctx *c, struct resource *res, const char *name, struct node *n, int dynamic);
int pending_add(struct cctx *c, struct node *n);
int meta_draft(struct cctx *c, const char *uri, enum arb_schema_draft *draft, unsigned *vocab);
int resolve_pending(struct cctx *c);

/* uri.c */
char *uri_resolve(struct arena *a, const char *base, const char *ref);
char *uri_strip_fragment(struct arena *a, const char *uri, const char **fragment);
char *uri_fragment_decode(struct arena *a, const char *fragment);

/* pattern.c */
pcre2_code *pattern_compile(const char *ecma, char *why, size_t why_len);
/* 1 match, 0 none, negative PCRE2 error; *md is created on first use. */
int pattern_match(const pcre2_code *re, const char *s, size_t len, pcre2_match_data **md);

/* number.c */
int decimal_of(double d, struct decimal *out);
int multiple_of(double x, double divisor, const struct decimal *dd);

/* metaschemas.c: the text of an embedded metaschema, or NULL. */
const char *metaschema_text(const char *uri);

#endif
