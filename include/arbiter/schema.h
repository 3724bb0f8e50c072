/*
 * schema.h - JSON Schema validation (draft 7 and 2020-12) on cJSON.
 *
 * A schema is compiled once into an immutable struct arb_schema: $ref, $id,
 * $anchor and $dynamicAnchor are resolved up front, patterns are compiled
 * once with PCRE2 (ECMA-262 flavour: unanchored, `$` only at the very end,
 * ASCII \d and \w), and the draft is taken from `$schema` (default 2020-12).
 * A compiled schema may be shared between threads: validation only reads it.
 *
 * There is no network access.  A `$ref` to a document outside the schema is
 * an error at compile time unless it names one of the embedded metaschemas
 * (draft 7, 2020-12 and its vocabularies) or the caller's loader hook can
 * supply it.  `format` and the content keywords are annotations only.
 *
 * Validation names each violation as "instance path: keyword"
 * ("/lineItems/0/price: exclusiveMinimum"), keeps the first
 * ARB_SCHEMA_MAX_ERRORS and counts the rest.  Schema nesting and the instance
 * nesting validation descends into are capped at ARB_SCHEMA_MAX_DEPTH levels,
 * recursion through $ref and in-place applicators at four times that: deeper
 * input is reported as ARB_ETOOBIG, never a stack overflow.  A $ref loop that does not
 * consume input is reported as ARB_ESCHEMA.  At those caps validation needs
 * up to about 1 MiB of stack (the default thread stack is 8 MiB on glibc).
 *
 * struct arb_schema_cache keys compiled schemas by the SHA-256 of their
 * RFC 8785 canonical form, so equal schemas (member order aside) compile once.
 *
 * Ownership: the caller frees a compiled schema with arb_schema_free and a
 * cache with arb_schema_cache_free; schemas handed out by a cache belong to it.
 */
#ifndef ARBITER_SCHEMA_H
#define ARBITER_SCHEMA_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "arbiter/buf.h"
#include "arbiter/status.h"

/* Deepest schema nesting, and instance nesting validation descends into. */
#define ARB_SCHEMA_MAX_DEPTH 512
/* Violations kept in struct arb_schema_errors; the rest are only counted. */
#define ARB_SCHEMA_MAX_ERRORS 20
/* Bytes kept of one violation's instance path (longer paths end in "..."). */
#define ARB_SCHEMA_PATH_MAX 192

enum arb_schema_draft {
    ARB_SCHEMA_DRAFT_DEFAULT = 0, /* 2020-12 */
    ARB_SCHEMA_DRAFT_7,
    ARB_SCHEMA_DRAFT_2020_12
};

struct arb_schema_opts {
    /* Draft used when the root schema has no `$schema`. */
    enum arb_schema_draft default_draft;
    /*
     * Optional loader for documents outside the schema (a `$ref` or a
     * `$schema` naming a custom metaschema).  Called during compilation with
     * an absolute URI without fragment; on success it returns ARB_OK and a
     * new tree in *out, which the library then owns (cJSON_Delete).  Any
     * other status fails the compilation with err's detail.  NULL: such
     * references are errors.
     */
    enum arb_status (*load)(void *load_ctx, const char *uri, cJSON **out, struct arb_err *err);
    void *load_ctx;
};

/* A compiled schema: immutable after arb_schema_compile, safe to share. */
struct arb_schema;

/* One violation: where in the instance, and which keyword failed. */
struct arb_schema_violation {
    /*
     * JSON pointer of the instance location ("" is the whole instance).
     * For required / dependentRequired / additionalProperties /
     * unevaluatedProperties / items: false, the location is the offending
     * (or missing) member or item itself.
     */
    char path[ARB_SCHEMA_PATH_MAX];
    const char *keyword; /* static string: "type", "exclusiveMinimum", "false" ... */
};

/* Caller-owned collector; needs no release.  Set up with arb_schema_errors_init. */
struct arb_schema_errors {
    size_t count; /* violations stored in items, at most ARB_SCHEMA_MAX_ERRORS */
    size_t total; /* violations found, stored or not */
    struct arb_schema_violation items[ARB_SCHEMA_MAX_ERRORS];
    struct arb_err err; /* detail when arb_schema_validate returned a negative status */
};

/*
 * Compile schema (an object or a boolean) into *out.  schema is copied, so
 * the caller may free it afterwards.  opts may be NULL (draft 2020-12 unless
 * `$schema` says otherwise, no loader).
 * Returns ARB_OK; ARB_ESCHEMA for an invalid schema, naming the keyword and
 * its location ("invalid schema at #/properties/a: 'minimum' must be a
 * number"), an unresolvable or remote $ref, or an unsupported `$schema`;
 * ARB_ETOOBIG for a schema nested deeper than ARB_SCHEMA_MAX_DEPTH;
 * ARB_ENOMEM; ARB_EINTERNAL when PCRE2 misbehaves.  *out is set only on success.
 */
enum arb_status arb_schema_compile(const cJSON *schema, const struct arb_schema_opts *opts,
                                   struct arb_schema **out, struct arb_err *err);

/* Free a compiled schema (NULL is fine). */
void arb_schema_free(struct arb_schema *s);

/* The draft the root schema was compiled as (never ARB_SCHEMA_DRAFT_DEFAULT). */
enum arb_schema_draft arb_schema_draft(const struct arb_schema *s);

/* Empty errs: no violations, empty err message. */
void arb_schema_errors_init(struct arb_schema_errors *errs);

/*
 * Validate instance against s.  errs may be NULL for a fast yes/no that stops
 * at the first violation; when given, it is reset and receives every
 * violation (the first ARB_SCHEMA_MAX_ERRORS kept, all counted).
 * Returns 1 when valid, 0 when invalid, or a negated enum arb_status when
 * validation could not finish: -ARB_ETOOBIG past ARB_SCHEMA_MAX_DEPTH,
 * -ARB_ESCHEMA for a $ref loop, -ARB_ENOMEM, -ARB_EINTERNAL for a PCRE2
 * failure (match limit).  The detail is then in errs->err when errs is given.
 */
int arb_schema_validate(const struct arb_schema *s, const cJSON *instance,
                        struct arb_schema_errors *errs);

/*
 * Append the violations as notes to out: "path: keyword" joined by "; ",
 * the root written as "(root)", then " (+N more, T in total)" when some were
 * not kept.  Writes nothing when there are no violations.
 * ARB_ENOMEM / ARB_ETOOBIG from the buffer.
 */
enum arb_status arb_schema_errors_write(const struct arb_schema_errors *errs, struct arb_buf *out);

/* A caller-owned cache of compiled schemas.  Not thread-safe itself. */
struct arb_schema_cache;

/*
 * Create an empty cache whose compilations all use opts (copied; NULL for
 * the defaults).  ARB_ENOMEM on allocation failure.
 */
enum arb_status arb_schema_cache_new(const struct arb_schema_opts *opts,
                                     struct arb_schema_cache **out);

/*
 * Return in *out the compiled form of schema, compiling it only the first
 * time its canonical form (RFC 8785) is seen.  The schema belongs to the
 * cache and lives until arb_schema_cache_free.  A schema that failed to
 * compile fails again from the cache with the same status and message.
 * Statuses as arb_schema_compile.
 */
enum arb_status arb_schema_cache_get_or_compile(struct arb_schema_cache *c, const cJSON *schema,
                                                const struct arb_schema **out, struct arb_err *err);

/* Number of distinct schemas (compiled or failed) held. */
size_t arb_schema_cache_size(const struct arb_schema_cache *c);

/* Free the cache and every schema it holds (NULL is fine). */
void arb_schema_cache_free(struct arb_schema_cache *c);

#endif
