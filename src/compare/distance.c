/*
 * distance.c - Levenshtein, Damerau-Levenshtein and Jaro-Winkler over code points.
 *
 * Levenshtein uses Hyyro's block-based form of Myers' bit-parallel algorithm
 * (Hyyro 2003, "A bit-vector algorithm for computing Levenshtein and Damerau
 * edit distances"): the dynamic-programming column of the shorter string is
 * held as vertical deltas in 64-bit words, so one word operation advances 64
 * cells; the result equals the textbook two-row DP.  Damerau-Levenshtein is
 * the unrestricted (Lowrance-Wagner) distance, computed in linear space with
 * Zhao and Sahni's row formulation, the algorithm rapidfuzz uses, so the two
 * give the same numbers.  Jaro-Winkler follows jellyfish.
 *
 * Code points may be any 32-bit value, so the per-character tables are a
 * direct array for ASCII plus a small open-addressing hash for the rest.
 * Decoding UTF-8 into code points is the caller's job (unicode.h).
 */
#include <stdlib.h>
#include <string.h>

#include "distance.h"

/* ---- shared helpers ---------------------------------------------------- */

/* Strip the common prefix and suffix of a[0..*n) and b[0..*m); they never change a distance. */
static void trim_affix(const uint32_t **a, size_t *n, const uint32_t **b, size_t *m)
{
    size_t p = 0;

    while (p < *n && p < *m && (*a)[p] == (*b)[p])
        p++;
    if (p) {
        *a += p;
        *b += p;
        *n -= p;
        *m -= p;
    }
    while (*n && *m && (*a)[*n - 1] == (*b)[*m - 1]) {
        (*n)--;
        (*m)--;
    }
}

/* Whether an n by m table exceeds cap cells, without overflowing. */
static int too_many_cells(size_t n, size_t m, size_t cap)
{
    return n && m && n > cap / m;
}

static uint32_t hash_cp(uint32_t cp, unsigned bits)
{
    return (uint32_t)(cp * UINT32_C(2654435761)) >> (32 - bits);
}

/* ---- Levenshtein ------------------------------------------------------- */

/*
 * Match masks of one 64-character block of the pattern: bit i of the mask for
 * c is set when pattern[64 * block + i] == c.  A block holds at most 64
 * distinct characters, so the 128-slot hash is never more than half full and
 * a probe always ends at the key or at an empty slot (mask 0).
 */
enum { PM_BITS = 7, PM_SLOTS = 1 << PM_BITS };

struct pm_slot {
    uint64_t mask;
    uint32_t key;
};

struct pm_block {
    uint64_t ascii[128];
    struct pm_slot other[PM_SLOTS];
};

static void pm_add(struct pm_block *blk, uint32_t c, uint64_t bit)
{
    uint32_t h;

    if (c < 128) {
        blk->ascii[c] |= bit;
        return;
    }
    h = hash_cp(c, PM_BITS);
    while (blk->other[h].mask && blk->other[h].key != c)
        h = (h + 1) & (PM_SLOTS - 1);
    blk->other[h].key = c;
    blk->other[h].mask |= bit;
}

static uint64_t pm_get(const struct pm_block *blk, uint32_t c)
{
    uint32_t h;

    if (c < 128)
        return blk->ascii[c];
    h = hash_cp(c, PM_BITS);
    while (blk->other[h].mask) {
        if (blk->other[h].key == c)
            return blk->other[h].mask;
        h = (h + 1) & (PM_SLOTS - 1);
    }
    return 0;
}

/*
 * Distance between pattern p (np >= 1) and text t (nt >= np) with the pattern
 * split into `words` blocks; pm, vp and vn have `words` entries each.  Stops
 * and returns limit + 1 once the distance must exceed limit.
 */
static size_t myers_blocks(const uint32_t *p, size_t np, const uint32_t *t, size_t nt, size_t limit,
                           struct pm_block *pm, uint64_t *vp, uint64_t *vn, size_t words)
{
    const uint64_t last = UINT64_C(1) << ((np - 1) % 64);
    size_t score = np;
    size_t i, j, w;

    memset(pm, 0, words * sizeof(*pm));
    for (i = 0; i < np; i++)
        pm_add(&pm[i / 64], p[i], UINT64_C(1) << (i % 64));
    for (w = 0; w < words; w++) {
        vp[w] = ~UINT64_C(0);
        vn[w] = 0;
    }
    for (j = 0; j < nt; j++) {
        /* The top row of the table is 0, 1, 2, ...: each column starts one higher. */
        uint64_t hp_carry = 1, hn_carry = 0;

        for (w = 0; w < words; w++) {
            uint64_t x = pm_get(&pm[w], t[j]) | hn_carry;
            uint64_t d0 = (((x & vp[w]) + vp[w]) ^ vp[w]) | x | vn[w];
            uint64_t hp = vn[w] | ~(d0 | vp[w]);
            uint64_t hn = d0 & vp[w];
            uint64_t hp_in = hp_carry, hn_in = hn_carry;

            if (w + 1 < words) {
                hp_carry = hp >> 63;
                hn_carry = hn >> 63;
            } else {
                hp_carry = (hp & last) != 0;
                hn_carry = (hn & last) != 0;
            }
            hp = (hp << 1) | hp_in;
            hn = (hn << 1) | hn_in;
            vp[w] = hn | ~(d0 | hp);
            vn[w] = hp & d0;
        }
        score = score + hp_carry - hn_carry;
        /* Each remaining text character can lower the bottom cell by at most one. */
        if (score > limit && score - limit > nt - j - 1)
            return limit + 1;
    }
    return score;
}

enum arb_status arb_levenshtein(const uint32_t *a, size_t n, const uint32_t *b, size_t m,
                                long max_distance, size_t *d)
{
    size_t limit = max_distance >= 0 ? (size_t)max_distance : SIZE_MAX - 1;
    const uint32_t *p, *t;
    size_t np, nt, words, dist;
    struct pm_block one_pm;
    uint64_t one_vp, one_vn;

    trim_affix(&a, &n, &b, &m);
    /* The shorter string is the pattern: fewer words per column. */
    if (n <= m) {
        p = a;
        np = n;
        t = b;
        nt = m;
    } else {
        p = b;
        np = m;
        t = a;
        nt = n;
    }
    if (nt - np > limit) {
        *d = limit + 1;
        return ARB_OK;
    }
    if (np == 0) {
        *d = nt;
        return ARB_OK;
    }
    if (too_many_cells(np, nt, ARB_DISTANCE_MAX_CELLS))
        return ARB_ETOOBIG;
    words = (np + 63) / 64;
    if (words == 1) {
        dist = myers_blocks(p, np, t, nt, limit, &one_pm, &one_vp, &one_vn, 1);
    } else {
        struct pm_block *pm;
        uint64_t *vecs;
        void *mem;

        mem = malloc(words * (sizeof(*pm) + 2 * sizeof(*vecs)));
        if (!mem)
            return ARB_ENOMEM;
        pm = mem;
        vecs = (uint64_t *)(pm + words);
        dist = myers_blocks(p, np, t, nt, limit, pm, vecs, vecs + words, words);
        free(mem);
    }
    *d = dist > limit ? limit + 1 : dist;
    return ARB_OK;
}

/* ---- Damerau-Levenshtein ----------------------------------------------- */

/*
 * Dense ids for the distinct characters of one string: ASCII through a direct
 * array, the rest through an open-addressing hash at most half full.  Slots
 * hold id + 1, so 0 means empty / absent.
 */
struct alphabet {
    uint32_t ascii[128];
    uint32_t *keys;
    uint32_t *vals;
    unsigned bits;
    uint32_t count;
};

static enum arb_status alphabet_init(struct alphabet *al, size_t max_distinct)
{
    size_t slots;

    memset(al->ascii, 0, sizeof(al->ascii));
    al->count = 0;
    al->bits = 4;
    while (((size_t)1 << al->bits) < 2 * max_distinct)
        al->bits++;
    slots = (size_t)1 << al->bits;
    al->keys = malloc(slots * sizeof(*al->keys));
    al->vals = calloc(slots, sizeof(*al->vals));
    if (!al->keys || !al->vals) {
        free(al->keys);
        free(al->vals);
        return ARB_ENOMEM;
    }
    return ARB_OK;
}

static void alphabet_release(struct alphabet *al)
{
    free(al->keys);
    free(al->vals);
}

/* The id of c, adding it when add is set; UINT32_MAX when absent. */
static uint32_t alphabet_id(struct alphabet *al, uint32_t c, int add)
{
    uint32_t mask = ((uint32_t)1 << al->bits) - 1;
    uint32_t h;

    if (c < 128) {
        if (!al->ascii[c] && add)
            al->ascii[c] = ++al->count;
        return al->ascii[c] - 1;
    }
    h = hash_cp(c, al->bits);
    while (al->vals[h]) {
        if (al->keys[h] == c)
            return al->vals[h] - 1;
        h = (h + 1) & mask;
    }
    if (!add)
        return UINT32_MAX;
    al->keys[h] = c;
    al->vals[h] = ++al->count;
    return al->vals[h] - 1;
}

/*
 * Zhao and Sahni's linear-space form of Lowrance-Wagner over rows a (n) and
 * columns b (m), 1-based as in the paper.  bid[j] is the alphabet id of b[j];
 * last_row[id] is the last row whose character has that id (-1 for none).
 * r and r1 are the current and previous rows, fr[j] keeps H[k-1][j-2] from
 * the last row k that matched column j, and t keeps H[i-2][l-1] for the last
 * matching column l of this row.  Arrays are offset by one so that index -1
 * is the "infinite" border.
 */
static size_t dl_rows(const uint32_t *a, size_t n, const uint32_t *b, size_t m, struct alphabet *al,
                      const uint32_t *bid, ptrdiff_t *last_row, ptrdiff_t *arrays)
{
    const ptrdiff_t big = (ptrdiff_t)(n > m ? n : m) + 1;
    ptrdiff_t *r = arrays + 1, *r1 = arrays + (m + 2) + 1, *fr = arrays + 2 * (m + 2) + 1;
    ptrdiff_t i, j;

    for (j = -1; j <= (ptrdiff_t)m; j++) {
        r[j] = j < 0 ? big : j;
        r1[j] = big;
        fr[j] = big;
    }
    for (i = 1; i <= (ptrdiff_t)n; i++) {
        ptrdiff_t *tmp = r;
        uint32_t ai = a[i - 1];
        uint32_t id;
        ptrdiff_t last_col = -1, t = big;
        /* Carried in registers: left = r[j - 1], diag = r1[j - 1], two_up = old r[j - 1]. */
        ptrdiff_t left = i, diag, two_up;

        r = r1;
        r1 = tmp;
        two_up = r[0];
        diag = r1[0];
        r[0] = i;
        for (j = 1; j <= (ptrdiff_t)m; j++) {
            ptrdiff_t up = r1[j];
            ptrdiff_t cell = diag + (ai != b[j - 1]);

            if (up + 1 < cell)
                cell = up + 1;
            if (ai == b[j - 1]) {
                last_col = j;
                fr[j] = r1[j - 2];
                t = two_up;
            } else {
                ptrdiff_t k = last_row[bid[j - 1]];
                ptrdiff_t tr = cell;

                /*
                 * A transposition ending here (a[k] = b[j], b[last_col] = a[i], 1-based)
                 * is only cheaper when one side of it is adjacent: b[last_col] is the
                 * previous column, or a[k] the previous row (Zhao and Sahni).
                 */
                if (j - last_col == 1)
                    tr = fr[j] + (i - k);
                else if (i - k == 1)
                    tr = t + (j - last_col);
                if (tr < cell)
                    cell = tr;
            }
            /* left is the only input from this row: take it last to keep the chain short. */
            if (left + 1 < cell)
                cell = left + 1;
            two_up = r[j];
            r[j] = cell;
            left = cell;
            diag = up;
        }
        id = alphabet_id(al, ai, 0);
        if (id != UINT32_MAX)
            last_row[id] = i;
    }
    return (size_t)r[m];
}

enum arb_status arb_damerau_levenshtein(const uint32_t *a, size_t n, const uint32_t *b, size_t m,
                                        size_t *d)
{
    struct alphabet al;
    uint32_t *bid;
    ptrdiff_t *last_row, *arrays;
    size_t j;
    enum arb_status st;

    trim_affix(&a, &n, &b, &m);
    if (n == 0 || m == 0) {
        *d = n + m;
        return ARB_OK;
    }
    if (too_many_cells(n, m, ARB_DISTANCE_MAX_CELLS / 4))
        return ARB_ETOOBIG;
    /* Columns are the shorter string: memory is linear in it. */
    if (m > n) {
        const uint32_t *ts = a;
        size_t tn = n;

        a = b;
        n = m;
        b = ts;
        m = tn;
    }
    st = alphabet_init(&al, m);
    if (st)
        return st;
    bid = malloc(m * sizeof(*bid));
    last_row = malloc(m * sizeof(*last_row));
    arrays = malloc(3 * (m + 2) * sizeof(*arrays));
    if (!bid || !last_row || !arrays) {
        st = ARB_ENOMEM;
        goto done;
    }
    for (j = 0; j < m; j++)
        bid[j] = alphabet_id(&al, b[j], 1);
    for (j = 0; j < al.count; j++)
        last_row[j] = -1;
    *d = dl_rows(a, n, b, m, &al, bid, last_row, arrays);
done:
    free(bid);
    free(last_row);
    free(arrays);
    alphabet_release(&al);
    return st;
}

/* ---- Jaro-Winkler ------------------------------------------------------ */

/*
 * Jaro similarity: characters match when equal and no further apart than
 * max(n, m) / 2 - 1; t is half the number of matched characters that appear
 * in a different order.  flags has n + m bytes, zeroed.
 */
static double jaro(const uint32_t *a, size_t n, const uint32_t *b, size_t m, unsigned char *flags)
{
    unsigned char *fa = flags, *fb = flags + n;
    size_t range = (n > m ? n : m) / 2;
    size_t common = 0, trans = 0, i, j, k;
    double c;

    range = range ? range - 1 : 0;
    for (i = 0; i < n; i++) {
        size_t lo = i > range ? i - range : 0;
        size_t hi = i + range < m - 1 ? i + range : m - 1;

        for (j = lo; j <= hi; j++) {
            if (!fb[j] && b[j] == a[i]) {
                fa[i] = fb[j] = 1;
                common++;
                break;
            }
        }
    }
    if (!common)
        return 0.0;
    for (i = 0, k = 0; i < n; i++) {
        if (!fa[i])
            continue;
        while (!fb[k])
            k++;
        if (a[i] != b[k])
            trans++;
        k++;
    }
    c = (double)common;
    return (c / (double)n + c / (double)m + (c - (double)(trans / 2)) / c) / 3.0;
}

/*
 * The Winkler boost (prefix scale 0.1, prefix of at most 4) applies only when
 * the Jaro similarity exceeds 0.7, Winkler's "boost threshold" as in his
 * strcmp95 and in jellyfish.  Unlike jellyfish (whose current versions compare
 * grapheme clusters and return 0.0 for two empty strings) this compares code
 * points and returns 1.0 for two empty strings, as distance.h documents.
 */
enum arb_status arb_jaro_winkler(const uint32_t *a, size_t n, const uint32_t *b, size_t m,
                                 double *sim)
{
    unsigned char small[512];
    unsigned char *flags = small;
    double w;
    size_t prefix = 0, max_prefix = n < m ? n : m;

    if (n == 0 || m == 0) {
        *sim = n == m ? 1.0 : 0.0;
        return ARB_OK;
    }
    if (n > sizeof(small) || m > sizeof(small) - n) {
        if (n > SIZE_MAX - m)
            return ARB_ENOMEM;
        flags = calloc(n + m, 1);
        if (!flags)
            return ARB_ENOMEM;
    } else {
        memset(small, 0, n + m);
    }
    w = jaro(a, n, b, m, flags);
    if (flags != small)
        free(flags);
    if (w > 0.7) {
        if (max_prefix > 4)
            max_prefix = 4;
        while (prefix < max_prefix && a[prefix] == b[prefix])
            prefix++;
        w += (double)prefix * 0.1 * (1.0 - w);
    }
    *sim = w;
    return ARB_OK;
}
