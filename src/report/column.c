/*
 * column.c - a column of per-case values for the statistics (stats_int.h,
 * struct col): while a column holds few distinct values (a win, a tie or a
 * loss; a count of expectations; a duration of a few hundred possible
 * milliseconds) each case takes a 1- or 2-byte code into a dictionary of
 * them, and only a column of many distinct values (continuous scores)
 * takes 8 bytes a case.  Values are kept bit for bit: a code stands for
 * exactly the double pushed, so every sum over a column is the one over
 * the doubles themselves.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats_int.h"

#define CODES_1 256   /* distinct values 1-byte codes hold */
#define CODES_2 65536 /* and 2-byte codes */

static uint64_t bits_of(double x)
{
    uint64_t b;

    memcpy(&b, &x, sizeof(b));
    return b;
}

/* The slot of x in the dictionary's hash: its code's, or the empty one where it would go. */
static size_t find_slot(const struct col *c, double x)
{
    uint64_t b = bits_of(x), h = b * 0x9E3779B97F4A7C15ull;
    size_t m = c->n_slots - 1, i = (size_t)(h >> 32) & m;

    while (c->slot[i] && bits_of(c->dict[c->slot[i] - 1]) != b)
        i = (i + 1) & m;
    return i;
}

static int grow_slots(struct col *c)
{
    size_t n = c->n_slots ? c->n_slots * 2 : 64;
    uint32_t *old = c->slot;
    size_t old_n = c->n_slots;

    c->slot = calloc(n, sizeof(*c->slot));
    if (!c->slot) {
        c->slot = old;
        return -1;
    }
    c->n_slots = n;
    for (size_t i = 0; i < old_n; i++)
        if (old[i])
            c->slot[find_slot(c, c->dict[old[i] - 1])] = old[i];
    free(old);
    return 0;
}

/* The codes as doubles: the column has too many distinct values for codes. */
static int to_doubles(struct col *c)
{
    double *v = malloc((c->cap ? c->cap : 1) * sizeof(*v));

    if (!v)
        return -1;
    for (size_t i = 0; i < c->n; i++)
        v[i] = col_at(c, i);
    free(c->data);
    free(c->dict);
    free(c->slot);
    c->data = (unsigned char *)v;
    c->dict = NULL;
    c->slot = NULL;
    c->n_dict = c->n_slots = 0;
    c->width = 8;
    return 0;
}

/* 1-byte codes to 2-byte ones, in place from the end. */
static int to_wide_codes(struct col *c)
{
    unsigned char *v = realloc(c->data, (c->cap ? c->cap : 1) * sizeof(uint16_t));
    uint16_t *w = (uint16_t *)(void *)v;

    if (!v)
        return -1;
    for (size_t i = c->n; i-- > 0;)
        w[i] = v[i];
    c->data = v;
    c->width = 2;
    return 0;
}

/* x's code, added to the dictionary when new; -1 when out of memory, -2 when it is full. */
static int64_t code_of(struct col *c, double x)
{
    size_t i;

    if ((c->n_dict + 1) * 2 > c->n_slots && grow_slots(c))
        return -1;
    i = find_slot(c, x);
    if (c->slot[i])
        return c->slot[i] - 1;
    if (c->n_dict == CODES_2)
        return -2;
    if (c->n_dict == CODES_1 && to_wide_codes(c))
        return -1;
    if ((c->n_dict & (c->n_dict - 1)) == 0 || c->n_dict < 16) {
        double *d = realloc(c->dict, (c->n_dict < 16 ? 16 : c->n_dict * 2) * sizeof(*d));

        if (!d)
            return -1;
        c->dict = d;
    }
    c->dict[c->n_dict] = x;
    c->slot[i] = (uint32_t)++c->n_dict;
    return (int64_t)c->n_dict - 1;
}

int col_reserve(struct col *c, size_t n)
{
    unsigned char *v;

    if (n <= c->cap)
        return 0;
    if (n > SIZE_MAX / 8)
        return -1;
    v = realloc(c->data, n * (c->width ? c->width : 1));
    if (!v)
        return -1;
    c->data = v;
    c->cap = n;
    return 0;
}

int col_push(struct col *c, double x)
{
    int64_t code;

    if (!c->width)
        c->width = 1;
    if (c->n == c->cap && col_reserve(c, c->cap ? c->cap + c->cap / 2 : 1024))
        return -1;
    code = c->width == 8 ? 0 : code_of(c, x);
    if (code == -1 || (code == -2 && to_doubles(c)))
        return -1;
    if (c->width == 1)
        c->data[c->n] = (unsigned char)code;
    else if (c->width == 2)
        ((uint16_t *)(void *)c->data)[c->n] = (uint16_t)code;
    else
        ((double *)(void *)c->data)[c->n] = x;
    c->n++;
    return 0;
}

struct arb_column col_view(const struct col *c)
{
    struct arb_column v = {c->data, c->dict, c->width ? c->width : 1};

    return v;
}

double col_at(const struct col *c, size_t i)
{
    struct arb_column v = col_view(c);

    return arb_column_at(&v, i);
}

double col_sum(const struct col *c)
{
    double t = 0;

    for (size_t i = 0; i < c->n; i++)
        t += col_at(c, i);
    return t;
}

void col_release(struct col *c)
{
    free(c->data);
    free(c->dict);
    free(c->slot);
    memset(c, 0, sizeof(*c));
}
