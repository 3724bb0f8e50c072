/*
 * bench_fields.c - the fields operator on a generated 1,000-line-item invoice
 * (`make bench`).  A benchmark, not a test: it prints the best of five runs
 * and fails only if the check errors.
 *
 * The observed invoice holds the expected line items shuffled, with small
 * perturbations (a letter's case or a typo in some descriptions, prices off by
 * up to 3, a few wrong quantities), so the unordered match needs the full
 * 1,000 x 1,000 pair matrix over name, within and exact leaves.  Items come
 * from a local xorshift with a fixed seed, so every run sees the same input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arbiter/compare.h"
#include "arbiter/json.h"

#define N_ITEMS 1000
#define N_RUNS  5

static const char *const map_text =
    "{\"lineItems\": {\"unordered\": {\"description\": \"name\", \"price\": {\"op\": \"within\", "
    "\"tolerance\": 5}, \"quantity\": \"exact\"}}, \"invoiceNumber\": \"exact\"}";

static const char *const adjectives[] = {"Steel", "Brass",  "Plastic", "Copper",
                                         "Oak",   "Rubber", "Glass",   "Carbon"};
static const char *const nouns[] = {"bolt",   "washer", "hinge", "bracket", "valve",
                                    "gasket", "spring", "panel", "fitting", "clamp"};

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned long long rng_next(unsigned long long *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static cJSON *item(const char *desc, double price, int qty)
{
    cJSON *it = cJSON_CreateObject();

    if (!it || !cJSON_AddStringToObject(it, "description", desc) ||
        !cJSON_AddNumberToObject(it, "price", price) ||
        !cJSON_AddNumberToObject(it, "quantity", qty)) {
        cJSON_Delete(it);
        return NULL;
    }
    return it;
}

/* Build the expected invoice and the observed one (as text). */
static int make_invoice(cJSON **expected, char **observed)
{
    unsigned long long rng = 0x5eed1234abcdULL;
    cJSON *e = cJSON_CreateObject(), *o = cJSON_CreateObject(), *ei, *oi;
    cJSON *items[N_ITEMS];
    size_t len, i;

    ei = cJSON_AddArrayToObject(e, "lineItems");
    oi = cJSON_AddArrayToObject(o, "lineItems");
    if (!ei || !oi || !cJSON_AddStringToObject(e, "invoiceNumber", "INV-2024-0042") ||
        !cJSON_AddStringToObject(o, "invoiceNumber", "INV-2024-0042"))
        return -1;
    for (i = 0; i < N_ITEMS; i++) {
        char desc[96];
        unsigned long long r = rng_next(&rng);
        double price = (double)(r % 100000) / 100.0;
        int qty = (int)((r >> 20) % 50) + 1;

        snprintf(desc, sizeof(desc), "%s %s model %zu", adjectives[(r >> 30) % 8],
                 nouns[(r >> 33) % 10], i);
        cJSON_AddItemToArray(ei, item(desc, price, qty));
        if (r >> 40 & 1)
            desc[0] = (char)(desc[0] + 32); /* lower case first letter */
        if ((r >> 41) % 8 == 0)
            desc[2] = 'x'; /* a typo */
        price += (double)((r >> 44) % 7) - 3.0;
        if ((r >> 50) % 20 == 0)
            qty++;
        items[i] = item(desc, price, qty);
    }
    for (i = N_ITEMS - 1; i > 0; i--) { /* Fisher-Yates */
        size_t j = (size_t)(rng_next(&rng) % (i + 1));
        cJSON *t = items[i];

        items[i] = items[j];
        items[j] = t;
    }
    for (i = 0; i < N_ITEMS; i++)
        cJSON_AddItemToArray(oi, items[i]);
    *expected = e;
    if (arb_jcs_string(o, observed, &len, NULL) != ARB_OK)
        return -1;
    cJSON_Delete(o);
    return 0;
}

int main(void)
{
    cJSON *expected = NULL, *cfg = cJSON_Parse(map_text), *check;
    char *observed = NULL;
    struct arb_check *c = NULL;
    struct arb_err err = {{0}};
    struct arb_result r;
    double best = 1e9;
    int i;

    check = cJSON_CreateObject();
    if (!cfg || !check || make_invoice(&expected, &observed) != 0) {
        fprintf(stderr, "bench_fields: out of memory\n");
        return 1;
    }
    cJSON_AddStringToObject(check, "op", "fields");
    cJSON_AddItemToObject(check, "fields", cfg);
    cJSON_AddItemToObject(check, "expected", expected);
    if (arb_check_compile(check, NULL, &c, &err) != ARB_OK) {
        fprintf(stderr, "bench_fields: %s\n", err.msg);
        return 1;
    }
    arb_result_init(&r);
    for (i = 0; i < N_RUNS; i++) {
        double t0 = now(), dt;

        if (arb_check_run(c, observed, strlen(observed), NULL, &r, &err) != ARB_OK) {
            fprintf(stderr, "bench_fields: %s\n", err.msg);
            return 1;
        }
        dt = now() - t0;
        if (dt < best)
            best = dt;
    }
    printf("fields 1000-item invoice: %.0f ms (best of %d), score %.4f\n", best * 1e3, N_RUNS,
           r.score);
    arb_result_release(&r);
    arb_check_free(c);
    cJSON_Delete(check);
    free(observed);
    return 0;
}
