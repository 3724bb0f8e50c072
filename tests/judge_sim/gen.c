/*
 * gen.c - hashing, the deterministic PRNG, and judge replies built from a JSON Schema.
 *
 * The test judge knows nothing about prompts: it reads the response schema of a request and
 * emits a value that conforms to it, drawing every choice from a PRNG seeded by the request's
 * hash, so one request always gets one reply. The schema subset is what judge replies use:
 * object (properties in order, required), string (enum, minLength, maxLength, a few formats),
 * integer and number (minimum, maximum, exclusive bounds, integer multipleOf), boolean, null,
 * array (items, minItems, maxItems, uniqueItems), enum and const anywhere, $ref to local JSON
 * pointers ("#/$defs/x"), and anyOf/oneOf/allOf by taking one branch. Patterns are not honoured.
 *
 * It also breaks a conforming value on purpose, for the "schema-invalid reply" fault.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "judge_sim.h"

/* Deeper than any judge schema; stops recursive $defs from recursing forever. */
#define MAX_DEPTH 24
/* Past this depth a recursive schema gets only what it requires: required properties and
 * minItems items, so a tree of $refs ends instead of growing to MAX_DEPTH. */
#define SOFT_DEPTH 6
#define MAX_ITEMS  16
#define MAX_BREAKS 32

int sim_digest(unsigned char out[SIM_DIGEST_LEN], size_t n, const void *const *parts,
               const size_t *lens)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned int len = 0;
    int ok;

    if (!ctx)
        return 0;
    ok = EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1;
    for (size_t i = 0; ok && i < n; i++)
        ok = EVP_DigestUpdate(ctx, parts[i], lens[i]) == 1;
    ok = ok && EVP_DigestFinal_ex(ctx, out, &len) == 1 && len == SIM_DIGEST_LEN;
    EVP_MD_CTX_free(ctx);
    return ok;
}

static uint64_t load64(const unsigned char *p)
{
    uint64_t v = 0;

    for (int i = 0; i < 8; i++)
        v = (v << 8) | p[i];
    return v;
}

void sim_rng_seed(struct sim_rng *r, const unsigned char digest[SIM_DIGEST_LEN])
{
    for (int i = 0; i < 4; i++)
        r->s[i] = load64(digest + 8 * i);
    /* xoshiro's one bad state; a SHA-256 of all zero bits will not happen, but be exact. */
    if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3]))
        r->s[0] = 0x9e3779b97f4a7c15ull;
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t sim_rng_next(struct sim_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double sim_rng_unit(struct sim_rng *r)
{
    return (double)(sim_rng_next(r) >> 11) * 0x1.0p-53;
}

double sim_digest_unit(const unsigned char digest[SIM_DIGEST_LEN])
{
    return (double)(load64(digest) >> 11) * 0x1.0p-53;
}

int sim_draw(unsigned char out[SIM_DIGEST_LEN], const char *body, size_t len,
             unsigned long long seed, const char *label, unsigned long attempt)
{
    char tail[96];
    int n = snprintf(tail, sizeof(tail), "\n%llu\n%s\n%lu", seed, label ? label : "", attempt);
    const void *parts[2] = {body, tail};
    size_t lens[2] = {len, (size_t)n};

    return n > 0 && (size_t)n < sizeof(tail) && sim_digest(out, 2, parts, lens);
}

/* Bounds past this are clamped: far beyond any judge score, and safe to cast to long long. */
#define MAX_MAGNITUDE 1e15

/* floor and ceil without libm, for values clamped to MAX_MAGNITUDE. */
static double clamp(double x)
{
    return x > MAX_MAGNITUDE ? MAX_MAGNITUDE : x < -MAX_MAGNITUDE ? -MAX_MAGNITUDE : x;
}

static double floor_of(double x)
{
    double t = (double)(long long)clamp(x);

    return t > x ? t - 1 : t;
}

static double ceil_of(double x)
{
    double t = (double)(long long)clamp(x);

    return t < x ? t + 1 : t;
}

static uint64_t pick(struct sim_gen *g, uint64_t n)
{
    return n ? sim_rng_next(&g->rng) % n : 0;
}

/* Follows a local JSON pointer ("#", "#/$defs/name", with ~0 and ~1 escapes) from the root. */
static const cJSON *follow_pointer(const cJSON *root, const char *ref)
{
    const cJSON *cur = root;
    const char *p;
    char token[256];

    if (ref[0] != '#')
        return NULL;
    p = ref + 1;
    while (cur && *p == '/') {
        size_t n = 0;

        p++;
        while (*p && *p != '/' && n + 1 < sizeof(token)) {
            if (p[0] == '~' && (p[1] == '0' || p[1] == '1')) {
                token[n++] = p[1] == '0' ? '~' : '/';
                p += 2;
            } else {
                token[n++] = *p++;
            }
        }
        token[n] = '\0';
        if (cJSON_IsArray(cur)) {
            char *end;
            long idx = strtol(token, &end, 10);

            cur = (*end || idx < 0) ? NULL : cJSON_GetArrayItem(cur, (int)idx);
        } else {
            cur = cJSON_GetObjectItemCaseSensitive(cur, token);
        }
    }
    return *p ? NULL : cur;
}

/* The schema a node stands for after its $ref chain; NULL (the empty schema) if it dangles. */
static const cJSON *resolve(const struct sim_gen *g, const cJSON *schema)
{
    for (int hops = 0; hops < MAX_DEPTH && cJSON_IsObject(schema); hops++) {
        const cJSON *ref = cJSON_GetObjectItemCaseSensitive(schema, "$ref");

        if (!cJSON_IsString(ref))
            return schema;
        schema = g->root ? follow_pointer(g->root, ref->valuestring) : NULL;
    }
    return cJSON_IsObject(schema) ? schema : NULL;
}

static const cJSON *get(const cJSON *schema, const char *key)
{
    return schema ? cJSON_GetObjectItemCaseSensitive(schema, key) : NULL;
}

/* The type to emit: the first non-null entry of "type", else one guessed from the keywords. */
static const char *type_of(const cJSON *schema)
{
    const cJSON *t = get(schema, "type");

    if (cJSON_IsString(t))
        return t->valuestring;
    if (cJSON_IsArray(t)) {
        const cJSON *e;
        const char *first = NULL;

        cJSON_ArrayForEach(e, t)
        {
            if (!cJSON_IsString(e))
                continue;
            if (strcmp(e->valuestring, "null") != 0)
                return e->valuestring;
            first = e->valuestring;
        }
        if (first)
            return first;
    }
    if (get(schema, "items") || get(schema, "minItems") || get(schema, "maxItems"))
        return "array";
    if (get(schema, "minimum") || get(schema, "maximum"))
        return "number";
    if (get(schema, "minLength") || get(schema, "maxLength") || get(schema, "pattern"))
        return "string";
    return "object";
}

static bool num_of(const cJSON *schema, const char *key, double *out)
{
    const cJSON *v = get(schema, key);

    if (!cJSON_IsNumber(v))
        return false;
    *out = v->valuedouble;
    return true;
}

/* Closed bounds [lo, hi] from minimum/maximum and both forms of exclusive bounds. */
static void bounds(const cJSON *schema, bool integer, double *lo, double *hi)
{
    double v;
    bool has_lo = false, has_hi = false;
    double step = integer ? 1 : 1e-6;

    if (num_of(schema, "minimum", &v)) {
        *lo = integer ? ceil_of(v) : v;
        has_lo = true;
        if (cJSON_IsTrue(get(schema, "exclusiveMinimum")))
            *lo = integer ? floor_of(v) + 1 : v + step;
    }
    if (num_of(schema, "exclusiveMinimum", &v) && (!has_lo || v >= *lo)) {
        *lo = integer ? floor_of(v) + 1 : v + step;
        has_lo = true;
    }
    if (num_of(schema, "maximum", &v)) {
        *hi = integer ? floor_of(v) : v;
        has_hi = true;
        if (cJSON_IsTrue(get(schema, "exclusiveMaximum")))
            *hi = integer ? ceil_of(v) - 1 : v - step;
    }
    if (num_of(schema, "exclusiveMaximum", &v) && (!has_hi || v <= *hi)) {
        *hi = integer ? ceil_of(v) - 1 : v - step;
        has_hi = true;
    }
    if (!has_lo && !has_hi) {
        *lo = 0;
        *hi = 10;
    } else if (!has_lo) {
        *lo = *hi - 10;
    } else if (!has_hi) {
        *hi = *lo + 10;
    }
    *lo = clamp(*lo);
    *hi = clamp(*hi);
    if (*hi < *lo)
        *hi = *lo;
}

static cJSON *gen_integer(struct sim_gen *g, const cJSON *schema)
{
    double lo, hi, m;
    long long a, b;

    bounds(schema, true, &lo, &hi);
    a = (long long)lo;
    b = (long long)hi;
    if (num_of(schema, "multipleOf", &m) && m >= 1 && m == floor_of(m)) {
        long long step = (long long)m;
        long long k_lo = a >= 0 ? (a + step - 1) / step : -((-a) / step);
        long long k_hi = b >= 0 ? b / step : -((-b + step - 1) / step);

        if (k_hi >= k_lo)
            return cJSON_CreateNumber(
                (double)((k_lo + (long long)pick(g, (uint64_t)(k_hi - k_lo + 1))) * step));
    }
    return cJSON_CreateNumber((double)(a + (long long)pick(g, (uint64_t)(b - a + 1))));
}

static cJSON *gen_number(struct sim_gen *g, const cJSON *schema)
{
    double lo, hi, v;

    bounds(schema, false, &lo, &hi);
    v = lo + sim_rng_unit(&g->rng) * (hi - lo);
    /* Two decimals read like a judge's number; rounding must not leave the range. */
    v = floor_of(v * 100 + 0.5) / 100;
    if (v < lo || v > hi)
        v = lo;
    return cJSON_CreateNumber(v);
}

static const char *const subjects[] = {
    "The first response", "The second response", "Both responses",
    "Neither response",   "Response A",          "Response B",
};
static const char *const verbs[] = {
    "answers", "explains", "addresses", "covers", "misreads", "handles",
};
static const char *const objects[] = {
    "the question",  "the main point", "the requested format",
    "the key facts", "the edge cases", "the user's constraints",
};
static const char *const tails[] = {
    "clearly.",    "with fewer errors.", "in less detail.",
    "accurately.", "only in part.",      "concisely.",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Appends one sentence; returns 0 when the buffer is full. */
static int add_sentence(struct sim_gen *g, char *buf, size_t cap, size_t *len)
{
    int n = snprintf(buf + *len, cap - *len, "%s%s %s %s %s", *len ? " " : "",
                     subjects[pick(g, COUNT(subjects))], verbs[pick(g, COUNT(verbs))],
                     objects[pick(g, COUNT(objects))], tails[pick(g, COUNT(tails))]);

    if (n < 0 || (size_t)n >= cap - *len)
        return 0;
    *len += (size_t)n;
    return 1;
}

static cJSON *gen_string(struct sim_gen *g, const cJSON *schema)
{
    const cJSON *format = get(schema, "format");
    double min_len = 0, max_len = 0;
    size_t len = 0, cap;
    char *buf;
    cJSON *out;

    if (cJSON_IsString(format)) {
        if (!strcmp(format->valuestring, "date-time"))
            return cJSON_CreateString("2024-01-01T00:00:00Z");
        if (!strcmp(format->valuestring, "date"))
            return cJSON_CreateString("2024-01-01");
        if (!strcmp(format->valuestring, "email"))
            return cJSON_CreateString("judge@example.com");
        if (!strcmp(format->valuestring, "uri"))
            return cJSON_CreateString("https://example.com/");
    }
    num_of(schema, "minLength", &min_len);
    if (min_len < 0 || min_len > 1e6)
        min_len = min_len < 0 ? 0 : 1e6;
    cap = (size_t)min_len + 256;
    buf = malloc(cap);
    if (!buf)
        return NULL;
    buf[0] = '\0';
    while (add_sentence(g, buf, cap, &len) && len < (size_t)min_len) {
    }
    /* A sentence that does not fit still counts: pad to minLength with dots. */
    while (len < (size_t)min_len)
        buf[len++] = '.';
    buf[len] = '\0';
    if (num_of(schema, "maxLength", &max_len) && max_len >= 0 && (double)len > max_len)
        buf[(size_t)max_len] = '\0';
    out = cJSON_CreateString(buf);
    free(buf);
    return out;
}

static bool enum_has_a(const cJSON *en)
{
    const cJSON *e;

    cJSON_ArrayForEach(e, en)
    {
        if (cJSON_IsString(e) && !strcmp(e->valuestring, "A"))
            return true;
    }
    return false;
}

static cJSON *gen_at(struct sim_gen *g, const cJSON *schema, int depth);

static bool is_required(const cJSON *schema, const char *name)
{
    const cJSON *e;

    cJSON_ArrayForEach(e, get(schema, "required"))
    {
        if (cJSON_IsString(e) && !strcmp(e->valuestring, name))
            return true;
    }
    return false;
}

static cJSON *gen_object(struct sim_gen *g, const cJSON *schema, int depth)
{
    const cJSON *props = get(schema, "properties");
    const cJSON *req = get(schema, "required");
    const cJSON *p;
    cJSON *obj = cJSON_CreateObject();

    if (!obj)
        return NULL;
    cJSON_ArrayForEach(p, props)
    {
        const cJSON *ps = resolve(g, p);
        const cJSON *en = get(ps, "enum");
        cJSON *v;

        if (depth > SOFT_DEPTH && !is_required(schema, p->string))
            continue;
        /* First-position bias: the judge says "A" whatever it read. */
        if (g->force_a && !strcmp(p->string, "winner") && cJSON_IsArray(en) && enum_has_a(en))
            v = cJSON_CreateString("A");
        else
            v = gen_at(g, p, depth + 1);
        if (!v || !cJSON_AddItemToObject(obj, p->string, v)) {
            cJSON_Delete(v);
            cJSON_Delete(obj);
            return NULL;
        }
    }
    /* A required name the schema never describes: anything goes, so an empty object. */
    cJSON_ArrayForEach(p, req)
    {
        cJSON *v;

        if (!cJSON_IsString(p) || cJSON_GetObjectItemCaseSensitive(obj, p->valuestring))
            continue;
        v = cJSON_CreateObject();
        if (!v || !cJSON_AddItemToObject(obj, p->valuestring, v)) {
            cJSON_Delete(v);
            cJSON_Delete(obj);
            return NULL;
        }
    }
    return obj;
}

static bool contains(const cJSON *arr, const cJSON *v)
{
    const cJSON *e;

    cJSON_ArrayForEach(e, arr)
    {
        if (cJSON_Compare(e, v, true))
            return true;
    }
    return false;
}

static cJSON *gen_array(struct sim_gen *g, const cJSON *schema, int depth)
{
    const cJSON *items = get(schema, "items");
    double min = 0, max = 0;
    bool has_min = num_of(schema, "minItems", &min), has_max = num_of(schema, "maxItems", &max);
    bool unique = cJSON_IsTrue(get(schema, "uniqueItems"));
    long lo, hi, n;
    cJSON *arr = cJSON_CreateArray();

    if (!arr)
        return NULL;
    lo = has_min && min > 0 ? (long)min : 0;
    hi = has_max && max >= 0 ? (long)max : (lo > 1 ? lo : 1);
    if (lo > MAX_ITEMS)
        lo = MAX_ITEMS;
    if (hi > MAX_ITEMS)
        hi = MAX_ITEMS;
    if (hi < lo)
        hi = lo;
    /* An empty array is valid but tells a test little: prefer at least one item. */
    if (depth > SOFT_DEPTH)
        hi = lo;
    else if (lo == 0 && hi > 0)
        lo = 1;
    n = lo + (long)pick(g, (uint64_t)(hi - lo + 1));
    for (long i = 0; i < n; i++) {
        cJSON *v = NULL;

        for (int tries = 0; tries < 8; tries++) {
            cJSON_Delete(v);
            v = gen_at(g, cJSON_IsObject(items) ? items : NULL, depth + 1);
            if (!v || !unique || !contains(arr, v))
                break;
        }
        if (!v) {
            cJSON_Delete(arr);
            return NULL;
        }
        if (unique && contains(arr, v)) {
            cJSON_Delete(v); /* the items allow too few values; stop short */
            break;
        }
        if (!cJSON_AddItemToArray(arr, v)) {
            cJSON_Delete(v);
            cJSON_Delete(arr);
            return NULL;
        }
    }
    return arr;
}

static const cJSON *first_branch(const struct sim_gen *g, const cJSON *branches)
{
    const cJSON *b;

    cJSON_ArrayForEach(b, branches)
    {
        const cJSON *t = get(resolve(g, b), "type");

        if (!cJSON_IsString(t) || strcmp(t->valuestring, "null") != 0)
            return b;
    }
    return cJSON_GetArrayItem(branches, 0);
}

static cJSON *gen_at(struct sim_gen *g, const cJSON *schema, int depth)
{
    const cJSON *en, *c, *branches;
    const char *type;

    schema = resolve(g, schema);
    if (depth > MAX_DEPTH)
        return cJSON_CreateNull();
    c = get(schema, "const");
    if (c)
        return cJSON_Duplicate(c, true);
    en = get(schema, "enum");
    if (cJSON_IsArray(en) && cJSON_GetArraySize(en) > 0)
        return cJSON_Duplicate(
            cJSON_GetArrayItem(en, (int)pick(g, (uint64_t)cJSON_GetArraySize(en))), true);
    branches = get(schema, "anyOf");
    if (!cJSON_IsArray(branches))
        branches = get(schema, "oneOf");
    if (!cJSON_IsArray(branches))
        branches = get(schema, "allOf");
    /* One branch, the first that is not {"type": "null"}: enough for the nullable and
     * wrapped-$ref shapes judges use. */
    if (cJSON_IsArray(branches) && cJSON_GetArraySize(branches) > 0 && !get(schema, "type") &&
        !get(schema, "properties"))
        return gen_at(g, first_branch(g, branches), depth + 1);
    type = type_of(schema);
    if (!strcmp(type, "string"))
        return gen_string(g, schema);
    if (!strcmp(type, "integer"))
        return gen_integer(g, schema);
    if (!strcmp(type, "number"))
        return gen_number(g, schema);
    if (!strcmp(type, "boolean"))
        return cJSON_CreateBool(sim_rng_next(&g->rng) & 1);
    if (!strcmp(type, "null"))
        return cJSON_CreateNull();
    if (!strcmp(type, "array"))
        return gen_array(g, schema, depth);
    return gen_object(g, schema, depth);
}

cJSON *sim_gen_value(struct sim_gen *g, const cJSON *schema)
{
    return gen_at(g, schema, 0);
}

/* One way to make a value invalid: drop parent[key], or set it to an out-of-range number. */
struct breakage {
    cJSON *parent;
    const char *key;
    bool drop;
    double bad;
};

static bool is_type(const cJSON *schema, const char *name)
{
    const cJSON *t = get(schema, "type"), *e;

    if (cJSON_IsString(t))
        return !strcmp(t->valuestring, name);
    cJSON_ArrayForEach(e, t)
    {
        if (cJSON_IsString(e) && !strcmp(e->valuestring, name))
            return true;
    }
    return false;
}

/* A number just past the schema's bounds, if it has any. */
static bool out_of_range(const cJSON *schema, double *bad)
{
    double v, step = is_type(schema, "integer") ? 1 : 0.5;

    if (!is_type(schema, "integer") && !is_type(schema, "number"))
        return false;
    if (num_of(schema, "maximum", &v) || num_of(schema, "exclusiveMaximum", &v)) {
        *bad = v + step;
        return true;
    }
    if (num_of(schema, "minimum", &v) || num_of(schema, "exclusiveMinimum", &v)) {
        *bad = v - step;
        return true;
    }
    return false;
}

static void collect(struct sim_gen *g, const cJSON *schema, cJSON *value, int depth,
                    struct breakage *out, size_t *n)
{
    const cJSON *req, *p;

    schema = resolve(g, schema);
    if (!schema || !cJSON_IsObject(value) || depth > MAX_DEPTH)
        return;
    req = get(schema, "required");
    cJSON_ArrayForEach(p, req)
    {
        if (*n < MAX_BREAKS && cJSON_IsString(p) &&
            cJSON_GetObjectItemCaseSensitive(value, p->valuestring))
            out[(*n)++] = (struct breakage){value, p->valuestring, true, 0};
    }
    cJSON_ArrayForEach(p, get(schema, "properties"))
    {
        cJSON *child = cJSON_GetObjectItemCaseSensitive(value, p->string);
        const cJSON *ps = resolve(g, p);
        double bad;

        if (!child)
            continue;
        if (*n < MAX_BREAKS && cJSON_IsNumber(child) && !get(ps, "enum") && !get(ps, "const") &&
            out_of_range(ps, &bad))
            out[(*n)++] = (struct breakage){value, p->string, false, bad};
        else if (cJSON_IsObject(child))
            collect(g, ps, child, depth + 1, out, n);
    }
}

cJSON *sim_gen_break(struct sim_gen *g, const cJSON *schema, cJSON *value)
{
    struct breakage b[MAX_BREAKS];
    size_t n = 0;
    cJSON *repl;

    collect(g, schema, value, 0, b, &n);
    if (n > 0) {
        struct breakage *pickd = &b[pick(g, n)];

        if (pickd->drop) {
            cJSON_DeleteItemFromObjectCaseSensitive(pickd->parent, pickd->key);
            return value;
        }
        repl = cJSON_CreateNumber(pickd->bad);
        if (!repl || !cJSON_ReplaceItemInObjectCaseSensitive(pickd->parent, pickd->key, repl)) {
            cJSON_Delete(repl);
            cJSON_Delete(value);
            return NULL;
        }
        return value;
    }
    /* Nothing bounded or required: send the wrong type (for the empty schema, nothing is
     * invalid; a string in place of the object is still what a confused model would send). */
    repl = cJSON_IsString(value) ? cJSON_CreateNumber(42)
                                 : cJSON_CreateString("not the requested value");
    cJSON_Delete(value);
    return repl;
}
