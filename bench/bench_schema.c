/*
 * bench_schema.c - JSON Schema validations per second (`make bench`).  A
 * benchmark, not a test: it prints figures and fails only if the schema or
 * instance misbehaves.
 *
 * The schema is a typical invoice: an object with 5 properties, a pattern,
 * an enum and an array of line items, each an object requiring description
 * and price, price with exclusiveMinimum 0.  The instance is about 1 KB.
 * Rows: the fast yes/no path, the path that collects violation notes, and a
 * cache lookup of the schema (hash of its canonical form) per validation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arbiter/json.h"
#include "arbiter/schema.h"

#define MIN_SECONDS 1.0

static const char schema_text[] =
    "{\"$schema\": \"https://json-schema.org/draft/2020-12/schema\","
    " \"type\": \"object\","
    " \"required\": [\"invoiceNumber\", \"vendor\", \"total\", \"lineItems\"],"
    " \"properties\": {"
    "  \"invoiceNumber\": {\"type\": \"string\", \"pattern\": \"^INV-[0-9]{4,}$\"},"
    "  \"vendor\": {\"type\": \"string\", \"minLength\": 1},"
    "  \"total\": {\"type\": \"number\", \"minimum\": 0},"
    "  \"currency\": {\"enum\": [\"USD\", \"EUR\", \"GBP\"]},"
    "  \"lineItems\": {\"type\": \"array\", \"minItems\": 1, \"items\": {"
    "   \"type\": \"object\", \"required\": [\"description\", \"price\"],"
    "   \"properties\": {\"description\": {\"type\": \"string\"},"
    "    \"quantity\": {\"type\": \"integer\", \"minimum\": 1},"
    "    \"price\": {\"type\": \"number\", \"exclusiveMinimum\": 0}}}}}}";

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* An invoice of about 1 KB with items line items. */
static char *make_instance(int items)
{
    size_t cap = 4096, len;
    char *s = malloc(cap);
    int i;

    if (!s)
        return NULL;
    len = (size_t)snprintf(s, cap,
                           "{\"invoiceNumber\": \"INV-20931\", \"vendor\": \"Acme Corporation\", "
                           "\"total\": 1234.56, \"currency\": \"USD\", \"lineItems\": [");
    for (i = 0; i < items && len < cap; i++)
        len += (size_t)snprintf(s + len, cap - len,
                                "%s{\"description\": \"Widget model %d, blue\", \"quantity\": %d, "
                                "\"price\": %d.99}",
                                i ? ", " : "", i, i % 7 + 1, 10 + i);
    if (len < cap)
        snprintf(s + len, cap - len, "]}");
    return s;
}

/* Validations per second of instance against s, collecting notes or not. */
static double rate(const struct arb_schema *s, const cJSON *instance, int collect)
{
    struct arb_schema_errors errs;
    double start = now(), elapsed;
    long n = 0;

    do {
        int i;

        for (i = 0; i < 10000; i++) {
            if (arb_schema_validate(s, instance, collect ? &errs : NULL) != 1) {
                fprintf(stderr, "bench_schema: the invoice did not validate\n");
                exit(1);
            }
        }
        n += 10000;
        elapsed = now() - start;
    } while (elapsed < MIN_SECONDS);
    return (double)n / elapsed;
}

static double cached_rate(struct arb_schema_cache *cache, const cJSON *schema,
                          const cJSON *instance)
{
    double start = now(), elapsed;
    long n = 0;

    do {
        int i;

        for (i = 0; i < 1000; i++) {
            const struct arb_schema *s = NULL;
            struct arb_err err = {""};

            if (arb_schema_cache_get_or_compile(cache, schema, &s, &err) != ARB_OK ||
                arb_schema_validate(s, instance, NULL) != 1) {
                fprintf(stderr, "bench_schema: cached validation failed: %s\n", err.msg);
                exit(1);
            }
        }
        n += 1000;
        elapsed = now() - start;
    } while (elapsed < MIN_SECONDS);
    return (double)n / elapsed;
}

int main(void)
{
    struct arb_schema_cache *cache = NULL;
    struct arb_schema *s = NULL;
    struct arb_err err = {""};
    cJSON *schema = NULL, *instance = NULL;
    char *text = make_instance(12);

    if (!text || arb_json_parse(schema_text, strlen(schema_text), 0, &schema, &err) != ARB_OK ||
        arb_json_parse(text, strlen(text), 0, &instance, &err) != ARB_OK ||
        arb_schema_compile(schema, NULL, &s, &err) != ARB_OK ||
        arb_schema_cache_new(NULL, &cache) != ARB_OK) {
        fprintf(stderr, "bench_schema: setup failed: %s\n", err.msg);
        return 1;
    }
    printf("instance: %zu bytes\n", strlen(text));
    printf("json_schema invoice: %.0f validations/s\n", rate(s, instance, 0));
    printf("json_schema invoice, collecting notes: %.0f validations/s\n", rate(s, instance, 1));
    printf("json_schema invoice, cache lookup each time: %.0f validations/s\n",
           cached_rate(cache, schema, instance));
    arb_schema_cache_free(cache);
    arb_schema_free(s);
    cJSON_Delete(instance);
    cJSON_Delete(schema);
    free(text);
    return 0;
}
