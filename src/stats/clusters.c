/*
 * clusters.c - many percentile bootstraps from one resampling of the cases.
 *
 * A report wants an interval for each system's win rate, pass rate and
 * score, and a paired interval for each pair of systems, all over the same
 * cases.  Resampling the cases once per resample and summing every
 * statistic's columns over the drawn cases costs one index per case instead
 * of one per case and statistic; each statistic's own resampled values are
 * still exactly those of a percentile bootstrap over the cases (a case with
 * no value for a statistic adds 0 to its numerator and its denominator).
 *
 * The statistics' columns are copied row-major, at most BLOCK of them a row
 * and the row padded to 4 or 8 doubles, so that one drawn case is one read
 * of adjacent doubles summed in registers (a loop of constant length the
 * compiler unrolls); every block is
 * resampled with the same streams, hence the same cases, so a statistic's
 * interval does not depend on which others were asked for.  When a block's
 * rows repeat (wins, ties, counts: a few distinct rows over a million cases)
 * only the distinct rows are kept, and a 4-byte code per case says which is
 * its row: the same doubles are summed in the same order, so the figures are
 * those of the plain copy, at 4 bytes a case instead of up to 64.  The
 * columns themselves may be compact (struct arb_column: codes into the
 * distinct values).
 *
 * Sums are taken of offsets from a reference value r (num - r * den, r the
 * first case's value), as bootstrap.c does: a statistic whose every case has
 * the same value gives exactly that value back, hence a zero-width interval.
 *
 * The resamples are cut into STREAMS fixed halves, each with its own
 * generator seeded from the caller's seed, and the second runs on its own
 * thread when one can be started: the result is the same either way, on any
 * machine.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/stats.h"
#include "draw.h"

#define BLOCK   8 /* columns per row of the copied block (numerators and denominators) */
#define STREAMS 2

struct block {
    const double *rows;    /* n x width, row-major; with codes, the distinct rows */
    const uint32_t *codes; /* NULL, or case i's row is rows + codes[i] * width */
    size_t n, width;
    size_t n_stats;
    int num_col[BLOCK], den_col[BLOCK]; /* den_col -1: every case counts 1 */
    double ref[BLOCK];                  /* the reference value (offsets are summed) */
    double fallback[BLOCK];             /* the value when a resample's denominator is 0 */
    double *out[BLOCK];                 /* resampled values, one per resample */
};

struct half {
    const struct block *b;
    size_t r0, r1; /* resamples [r0, r1) */
    uint64_t seed;
};

/*
 * One resample's column sums over n drawn rows of width W, 4 or 8 (a constant
 * where inlined).  Named accumulators rather than an array: the compiler
 * keeps them in registers, where an array would go through memory.  Two sets
 * of them, the odd draws in the second: each addition waits for the one
 * before it on the same accumulator, and two chains halve that wait.
 */
#if defined(__GNUC__)
#define ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define ALWAYS_INLINE inline
#endif

static ALWAYS_INLINE size_t row_of(const uint32_t *codes, size_t i)
{
    return codes ? codes[i] : i;
}

static ALWAYS_INLINE void sum_rows(const double *rows, const uint32_t *codes, size_t n, size_t W,
                                   struct draw *dp, struct arb_rng *rng, int big, double *acc)
{
    double a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
    double b0 = 0, b1 = 0, b2 = 0, b3 = 0, b4 = 0, b5 = 0, b6 = 0, b7 = 0;
    struct draw dl = *dp, *d = &dl; /* a local copy stays in registers */
    size_t i;

    for (i = 0; i + 1 < n; i += 2) {
        const double *r = rows + row_of(codes, big ? arb_rng_below(rng, n) : draw_index(d)) * W;
        const double *s = rows + row_of(codes, big ? arb_rng_below(rng, n) : draw_index(d)) * W;

        a0 += r[0];
        a1 += r[1];
        a2 += r[2];
        a3 += r[3];
        b0 += s[0];
        b1 += s[1];
        b2 += s[2];
        b3 += s[3];
        if (W == 8) {
            a4 += r[4];
            a5 += r[5];
            a6 += r[6];
            a7 += r[7];
            b4 += s[4];
            b5 += s[5];
            b6 += s[6];
            b7 += s[7];
        }
    }
    if (i < n) {
        const double *r = rows + row_of(codes, big ? arb_rng_below(rng, n) : draw_index(d)) * W;

        a0 += r[0];
        a1 += r[1];
        a2 += r[2];
        a3 += r[3];
        if (W == 8) {
            a4 += r[4];
            a5 += r[5];
            a6 += r[6];
            a7 += r[7];
        }
    }
    acc[0] = a0 + b0, acc[1] = a1 + b1, acc[2] = a2 + b2, acc[3] = a3 + b3;
    acc[4] = a4 + b4, acc[5] = a5 + b5, acc[6] = a6 + b6, acc[7] = a7 + b7;
    *dp = dl;
}

/* The two widths, with and without codes, each with its own copy of the loop (W a constant in
 * it, codes NULL or not). */
static void sum_rows4(const double *rows, size_t n, struct draw *d, struct arb_rng *rng, int big,
                      double *acc)
{
    sum_rows(rows, NULL, n, 4, d, rng, big, acc);
}

static void sum_rows8(const double *rows, size_t n, struct draw *d, struct arb_rng *rng, int big,
                      double *acc)
{
    sum_rows(rows, NULL, n, BLOCK, d, rng, big, acc);
}

static void sum_codes4(const double *rows, const uint32_t *codes, size_t n, struct draw *d,
                       struct arb_rng *rng, int big, double *acc)
{
    sum_rows(rows, codes, n, 4, d, rng, big, acc);
}

static void sum_codes8(const double *rows, const uint32_t *codes, size_t n, struct draw *d,
                       struct arb_rng *rng, int big, double *acc)
{
    sum_rows(rows, codes, n, BLOCK, d, rng, big, acc);
}

/* Resamples [r0, r1) of one block from one stream. */
static void run_half(const struct half *h)
{
    const struct block *b = h->b;
    struct draw d;
    struct arb_rng rng;
    int big = (uint64_t)b->n > DRAW_MAX;
    double dn = (double)b->n;

    draw_init(&d, h->seed, big ? 1 : b->n);
    arb_rng_seed(&rng, h->seed);
    for (size_t r = h->r0; r < h->r1; r++) {
        double acc[BLOCK];

        if (b->codes && b->width == 4)
            sum_codes4(b->rows, b->codes, b->n, &d, &rng, big, acc);
        else if (b->codes)
            sum_codes8(b->rows, b->codes, b->n, &d, &rng, big, acc);
        else if (b->width == 4)
            sum_rows4(b->rows, b->n, &d, &rng, big, acc);
        else
            sum_rows8(b->rows, b->n, &d, &rng, big, acc);
        for (size_t k = 0; k < b->n_stats; k++) {
            double den = b->den_col[k] < 0 ? dn : acc[b->den_col[k]];

            b->out[k][r] = den > 0.0 ? b->ref[k] + acc[b->num_col[k]] / den : b->fallback[k];
        }
    }
}

static void *half_thread(void *arg)
{
    run_half(arg);
    return NULL;
}

/* Every resample of a block: the second half on a thread when one starts, else here. */
static void run_block(const struct block *b, size_t resamples, uint64_t seed)
{
    struct half h[STREAMS];
    pthread_t t;
    int threaded;

    for (size_t s = 0; s < STREAMS; s++) {
        h[s].b = b;
        h[s].r0 = resamples * s / STREAMS;
        h[s].r1 = resamples * (s + 1) / STREAMS;
        /* Not seed + k * 0x9E3779B97F4A7C15: that is splitmix64's own step, and the second
         * generator would start as the first one's state shifted by a word. */
        h[s].seed = s ? seed ^ 0xD1B54A32D192ED03ull : seed;
    }
    threaded = h[1].r1 > h[1].r0 && pthread_create(&t, NULL, half_thread, &h[1]) == 0;
    run_half(&h[0]);
    if (threaded)
        pthread_join(t, NULL);
    else
        run_half(&h[1]);
}

/* Value i of s's numerator, and of its denominator (1 when it has none). */
static double num_at(const struct arb_cluster_stat *s, size_t i)
{
    return s->num ? s->num[i] : arb_column_at(s->num_col, i);
}

static int has_den(const struct arb_cluster_stat *s)
{
    return s->den || s->den_col;
}

static double den_at(const struct arb_cluster_stat *s, size_t i)
{
    return s->den ? s->den[i] : s->den_col ? arb_column_at(s->den_col, i) : 1.0;
}

/* The first case's value of s (num / den), the reference of its offsets; 0 when none. */
static double reference(const struct arb_cluster_stat *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double d = den_at(s, i);

        if (d > 0.0)
            return num_at(s, i) / d;
    }
    return 0.0;
}

/*
 * Validate one statistic and fill its estimate; ok 0 when skipped or without
 * a case.  *ref receives its reference value.
 */
static enum arb_status prepare(struct arb_cluster_stat *s, size_t n, double *ref)
{
    double sn = 0.0, sd = 0.0;

    s->ok = 0;
    s->out.estimate = s->out.lo = s->out.hi = s->median = s->p_two_sided = NAN;
    *ref = 0.0;
    if (!s->num && !s->num_col)
        return ARB_OK; /* skipped */
    for (size_t i = 0; i < n; i++) {
        double d = den_at(s, i);

        if (!isfinite(num_at(s, i)) || !isfinite(d) || d < 0.0)
            return ARB_EUSAGE;
    }
    *ref = reference(s, n);
    for (size_t i = 0; i < n; i++) {
        double d = den_at(s, i);

        sn += num_at(s, i) - *ref * d;
        sd += d;
    }
    s->ok = sd > 0.0;
    s->out.estimate = s->ok ? *ref + sn / sd : NAN;
    return ARB_OK;
}

/* Case i's row of the block: each statistic's offset, then its denominator when it has one. */
static void fill_row(struct arb_cluster_stat *const *stats, const double *refs, size_t k, size_t i,
                     size_t width, double *row)
{
    size_t w = 0;

    memset(row, 0, width * sizeof(double)); /* the padding is 0 */
    for (size_t j = 0; j < k; j++) {
        double d = den_at(stats[j], i);

        row[w++] = num_at(stats[j], i) - refs[j] * d;
        if (has_den(stats[j]))
            row[w++] = d;
    }
}

/*
 * The distinct rows of a block (compared bit for bit, so a sum over them is
 * the sum over the cases' own rows) and each case's code: open addressing
 * over the rows' hashes.
 */
struct rowset {
    double *rows; /* n_rows x width */
    size_t n_rows, cap_rows, width;
    uint32_t *slot; /* 0 empty, else code + 1 */
    size_t n_slots; /* a power of 2, at least twice n_rows */
};

static uint64_t row_hash(const double *row, size_t width)
{
    uint64_t h = 0x9E3779B97F4A7C15ull;

    for (size_t w = 0; w < width; w++) {
        uint64_t x;

        memcpy(&x, &row[w], sizeof(x));
        h = (h ^ x) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 32;
    }
    return h;
}

/* The slot of row: its code's, or the empty one where it would go. */
static size_t find_slot(const struct rowset *rs, const double *row)
{
    size_t m = rs->n_slots - 1, i = (size_t)row_hash(row, rs->width) & m;

    while (rs->slot[i] &&
           memcmp(rs->rows + (rs->slot[i] - 1) * rs->width, row, rs->width * sizeof(double)) != 0)
        i = (i + 1) & m;
    return i;
}

static int grow_slots(struct rowset *rs)
{
    size_t n = rs->n_slots ? rs->n_slots * 2 : 1024;
    uint32_t *old = rs->slot, old_n = (uint32_t)rs->n_slots;

    rs->slot = calloc(n, sizeof(*rs->slot));
    if (!rs->slot) {
        rs->slot = old;
        return -1;
    }
    rs->n_slots = n;
    for (uint32_t i = 0; i < old_n; i++)
        if (old[i])
            rs->slot[find_slot(rs, rs->rows + (old[i] - 1) * rs->width)] = old[i];
    free(old);
    return 0;
}

/* Row's code, added when new; -1 when out of memory. */
static int64_t row_code(struct rowset *rs, const double *row)
{
    size_t i;

    if ((rs->n_rows + 1) * 2 > rs->n_slots && grow_slots(rs))
        return -1;
    i = find_slot(rs, row);
    if (rs->slot[i])
        return rs->slot[i] - 1;
    if (rs->n_rows == rs->cap_rows) {
        size_t cap = rs->cap_rows ? rs->cap_rows * 2 : 256;
        double *v = realloc(rs->rows, cap * rs->width * sizeof(double));

        if (!v)
            return -1;
        rs->rows = v;
        rs->cap_rows = cap;
    }
    memcpy(rs->rows + rs->n_rows * rs->width, row, rs->width * sizeof(double));
    rs->slot[i] = (uint32_t)++rs->n_rows;
    return (int64_t)rs->n_rows - 1;
}

/*
 * Code the cases' rows into *codes (n, allocated here) and rs, while the
 * distinct rows stay under a quarter of the cases (beyond that the plain
 * rows take little more memory and save the look-up): 1 coded, 0 not worth
 * it (nothing kept), -1 out of memory.
 */
static int code_rows(struct arb_cluster_stat *const *stats, const double *refs, size_t k, size_t n,
                     struct rowset *rs, uint32_t **codes)
{
    double row[BLOCK];
    uint32_t *c = n <= UINT32_MAX ? malloc(n * sizeof(*c)) : NULL;

    *codes = NULL;
    if (!c)
        return n <= UINT32_MAX ? -1 : 0;
    for (size_t i = 0; i < n; i++) {
        int64_t code;

        fill_row(stats, refs, k, i, rs->width, row);
        code = row_code(rs, row);
        if (code < 0 || rs->n_rows > n / 4 + 1) {
            free(c);
            return code < 0 ? -1 : 0;
        }
        c[i] = (uint32_t)code;
    }
    *codes = c;
    return 1;
}

/* Copy the columns of stats[0..k) into b (rows of b->width) and run the resamples. */
static enum arb_status one_block(struct arb_cluster_stat **stats, const double *refs, size_t k,
                                 size_t n, size_t resamples, uint64_t seed, double *values)
{
    struct block b;
    struct rowset rs;
    uint32_t *codes = NULL;
    double *rows = NULL;
    size_t w = 0;
    int coded;

    memset(&b, 0, sizeof(b));
    memset(&rs, 0, sizeof(rs));
    for (size_t j = 0; j < k; j++)
        w += has_den(stats[j]) ? 2 : 1;
    w = w <= 4 ? 4 : BLOCK;
    rs.width = w;
    coded = code_rows(stats, refs, k, n, &rs, &codes);
    if (coded < 0) {
        free(rs.rows);
        free(rs.slot);
        return ARB_ENOMEM;
    }
    free(rs.slot);
    if (coded) {
        rows = rs.rows;
    } else {
        free(rs.rows);
        if (n > SIZE_MAX / sizeof(double) / w)
            return ARB_ENOMEM;
        rows = malloc(n * w * sizeof(double));
        if (!rows)
            return ARB_ENOMEM;
        for (size_t i = 0; i < n; i++)
            fill_row(stats, refs, k, i, w, rows + i * w);
    }
    b.rows = rows;
    b.codes = codes;
    b.n = n;
    b.width = w;
    b.n_stats = k;
    w = 0;
    for (size_t j = 0; j < k; j++) {
        b.num_col[j] = (int)w++;
        b.den_col[j] = has_den(stats[j]) ? (int)w++ : -1;
        b.ref[j] = refs[j];
        b.fallback[j] = stats[j]->out.estimate;
        b.out[j] = values + j * resamples;
    }
    run_block(&b, resamples, seed);
    free(rows);
    free(codes);
    return ARB_OK;
}

/* Interval, median (and p) of one statistic from its resampled values (sorted here). */
static void finish(struct arb_cluster_stat *s, double *v, size_t resamples, double level)
{
    if (s->want_p) {
        size_t le = 0, ge = 0;

        for (size_t r = 0; r < resamples; r++) {
            le += v[r] <= 0.0;
            ge += v[r] >= 0.0;
        }
        s->p_two_sided = fmin(1.0, 2.0 * (double)(le < ge ? le : ge) / (double)resamples);
    }
    arb_percentile_interval(v, resamples, level, &s->out.lo, &s->out.hi);
    s->median = arb_quantile(v, resamples, 0.5); /* v is sorted now */
}

enum arb_status arb_bootstrap_clusters(struct arb_cluster_stat *stats, size_t m, size_t n,
                                       size_t resamples, double level, uint64_t seed)
{
    struct arb_cluster_stat *pick[BLOCK];
    double *values, *refs, pick_ref[BLOCK];
    size_t k = 0, cols = 0;
    enum arb_status st = ARB_OK;

    if ((m && !stats) || n == 0 || resamples == 0 || !(level > 0.0 && level < 1.0))
        return ARB_EUSAGE;
    if (resamples > SIZE_MAX / sizeof(double) / BLOCK)
        return ARB_ENOMEM;
    refs = malloc((m ? m : 1) * sizeof(double));
    if (!refs)
        return ARB_ENOMEM;
    for (size_t j = 0; j < m && !st; j++)
        st = prepare(&stats[j], n, &refs[j]);
    values = st ? NULL : malloc(resamples * BLOCK * sizeof(double));
    if (!st && !values)
        st = ARB_ENOMEM;
    /* Blocks of statistics whose columns fit in a row of BLOCK; the empty ones are skipped. */
    for (size_t j = 0; j <= m && !st; j++) {
        size_t need = j < m ? (has_den(&stats[j]) ? 2 : 1) : 0;

        if (k && (j == m || cols + need > BLOCK)) {
            st = one_block(pick, pick_ref, k, n, resamples, seed, values);
            for (size_t i = 0; i < k && !st; i++)
                finish(pick[i], values + i * resamples, resamples, level);
            k = cols = 0;
        }
        if (j < m && stats[j].ok) {
            pick_ref[k] = refs[j];
            pick[k++] = &stats[j];
            cols += need;
        }
    }
    free(values);
    free(refs);
    return st;
}
