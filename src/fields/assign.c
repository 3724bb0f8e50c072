/*
 * assign.c - exact linear assignment by shortest augmenting paths.
 *
 * The algorithm is Jonker and Volgenant's in the rectangular form Crouse
 * describes ("On implementing 2D rectangular assignment algorithms", IEEE TAES
 * 2016), which is also what scipy.optimize.linear_sum_assignment runs.  Rows
 * (the shorter side) are added one at a time; each addition runs Dijkstra over
 * reduced costs c[i][j] - u[i] - v[j] from the new row until it reaches a free
 * column, flips the matching along that path and updates the dual potentials
 * u and v so that reduced costs stay non-negative.  O(nr^2 * nc) overall.
 *
 * Maximisation is minimisation of the negated matrix.  Forbidden entries stay
 * +INFINITY in the working copy and are skipped rather than added, so no
 * arithmetic ever meets an infinity; finite entries are capped at
 * ARB_ASSIGN_LIMIT so potentials and path lengths stay finite.  Building the
 * matrix from items and judging the pairs is left to the fields operator.
 */
#include <math.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "assign.h"

/* Working state for one call; all arrays live in one allocation. */
struct lsap {
    size_t nr;              /* rows of the working matrix, nr <= nc */
    size_t nc;              /* columns of the working matrix */
    double *c;              /* nr x nc costs to minimise, +INFINITY forbidden */
    double *u;              /* row potentials */
    double *v;              /* column potentials */
    double *dist;           /* shortest distance found so far to each column */
    size_t *path;           /* row preceding each column on its shortest path */
    size_t *col4row;        /* matched column of each row, or ARB_ASSIGN_NONE */
    size_t *row4col;        /* matched row of each column, or ARB_ASSIGN_NONE */
    unsigned char *row_hit; /* rows reached by the current search */
    unsigned char *col_set; /* columns settled by the current search */
    void *block;
};

/* One problem as the caller stated it. */
struct problem {
    const double *m;
    size_t rows;
    size_t cols;
    int maximize;
};

static const char *matrix_name(const struct problem *p)
{
    return p->maximize ? "score matrix" : "cost matrix";
}

/* Reject NaN, the wrong infinity and entries beyond ARB_ASSIGN_LIMIT. */
static enum arb_status check_entries(const struct problem *p, struct arb_err *err)
{
    double bad_inf = p->maximize ? INFINITY : -INFINITY;
    size_t n = p->rows * p->cols;

    for (size_t k = 0; k < n; k++) {
        double x = p->m[k];
        size_t r = k / p->cols, c = k % p->cols;

        if (isnan(x))
            return arb_err_set(err, ARB_EUSAGE, "%s entry [%zu][%zu] is nan", matrix_name(p), r, c);
        if (x == bad_inf)
            return arb_err_set(
                err, ARB_EUSAGE, "%s entry [%zu][%zu] is %s; only %s marks a forbidden pair",
                matrix_name(p), r, c, x > 0 ? "+inf" : "-inf", x > 0 ? "-inf" : "+inf");
        if (isfinite(x) && fabs(x) > ARB_ASSIGN_LIMIT)
            return arb_err_set(err, ARB_EUSAGE, "%s entry [%zu][%zu] is %g, beyond +-%g",
                               matrix_name(p), r, c, x, ARB_ASSIGN_LIMIT);
    }
    return ARB_OK;
}

/* *a += b * k, returning 0 instead of wrapping. */
static int size_add_mul(size_t *a, size_t b, size_t k)
{
    if (k && b > (SIZE_MAX - *a) / k)
        return 0;
    *a += b * k;
    return 1;
}

/* Lay out every working array in one block; ARB_ETOOBIG or ARB_ENOMEM on failure. */
static enum arb_status lsap_alloc(struct lsap *w, size_t nr, size_t nc, struct arb_err *err)
{
    size_t bytes = 0, off_sz, off_ch;
    int ok;
    char *base;

    w->nr = nr;
    w->nc = nc;
    /* nr * nc itself was checked by the caller; the rest may still reach SIZE_MAX. */
    ok = size_add_mul(&bytes, nr * nc, sizeof(double)) &&
         size_add_mul(&bytes, nr, sizeof(double)) && size_add_mul(&bytes, nc, sizeof(double)) &&
         size_add_mul(&bytes, nc, sizeof(double)) && size_add_mul(&bytes, 1, alignof(size_t) - 1);
    off_sz = ok ? bytes - bytes % alignof(size_t) : 0;
    bytes = off_sz;
    ok = ok && size_add_mul(&bytes, nc, sizeof(size_t)) &&
         size_add_mul(&bytes, nr, sizeof(size_t)) && size_add_mul(&bytes, nc, sizeof(size_t));
    off_ch = bytes;
    ok = ok && size_add_mul(&bytes, nr, 1) && size_add_mul(&bytes, nc, 1);
    if (!ok)
        return arb_err_set(err, ARB_ETOOBIG, "assignment matrix %zu x %zu is too large", nr, nc);
    base = malloc(bytes);
    if (!base)
        return arb_err_set(err, ARB_ENOMEM, "cannot allocate %zu bytes for a %zu x %zu assignment",
                           bytes, nr, nc);
    w->block = base;
    w->c = (double *)(void *)base;
    w->u = w->c + nr * nc;
    w->v = w->u + nr;
    w->dist = w->v + nc;
    w->path = (size_t *)(void *)(base + off_sz);
    w->col4row = w->path + nc;
    w->row4col = w->col4row + nr;
    w->row_hit = (unsigned char *)(base + off_ch);
    w->col_set = w->row_hit + nr;
    return ARB_OK;
}

/* Copy the caller's matrix as costs to minimise, transposed when it has more rows. */
static void lsap_load(struct lsap *w, const struct problem *p)
{
    double sign = p->maximize ? -1.0 : 1.0;
    int transposed = p->rows > p->cols;

    for (size_t i = 0; i < w->nr; i++) {
        double *ci = w->c + i * w->nc;

        for (size_t j = 0; j < w->nc; j++)
            ci[j] = sign * (transposed ? p->m[j * p->cols + i] : p->m[i * p->cols + j]);
    }
    for (size_t i = 0; i < w->nr; i++) {
        w->u[i] = 0.0;
        w->col4row[i] = ARB_ASSIGN_NONE;
    }
    for (size_t j = 0; j < w->nc; j++) {
        w->v[j] = 0.0;
        w->row4col[j] = ARB_ASSIGN_NONE;
    }
}

/*
 * Dijkstra from row cur over reduced costs until a free column is settled.
 * Returns that sink column and its distance in *sink_dist, or ARB_ASSIGN_NONE
 * when every column still reachable is matched (the matrix is infeasible).
 * The selection order here is the documented tie-breaking rule.
 */
static size_t shortest_path(struct lsap *w, size_t cur, double *sink_dist)
{
    size_t nc = w->nc;
    size_t i = cur;
    double min_val = 0.0;

    memset(w->row_hit, 0, w->nr);
    memset(w->col_set, 0, nc);
    for (size_t j = 0; j < nc; j++)
        w->dist[j] = INFINITY;

    for (;;) {
        const double *ci = w->c + i * nc;
        double base = min_val - w->u[i];
        double lowest = INFINITY;
        size_t best = ARB_ASSIGN_NONE;
        int best_free = 0;

        w->row_hit[i] = 1;
        for (size_t j = 0; j < nc; j++) {
            double d;
            int is_free;

            if (w->col_set[j])
                continue;
            /* Forbidden pairs are never relaxed, so infinities stay out of the sums. */
            if (ci[j] != INFINITY) {
                d = base + ci[j] - w->v[j];
                if (d < w->dist[j]) {
                    w->dist[j] = d;
                    w->path[j] = i;
                }
            }
            d = w->dist[j];
            if (d == INFINITY || d > lowest)
                continue;
            /* Equal distances: a free column ends the search sooner; else the lowest index. */
            is_free = w->row4col[j] == ARB_ASSIGN_NONE;
            if (d < lowest || (is_free && !best_free)) {
                lowest = d;
                best = j;
                best_free = is_free;
            }
        }
        if (best == ARB_ASSIGN_NONE)
            return ARB_ASSIGN_NONE;
        min_val = lowest;
        w->col_set[best] = 1;
        if (best_free) {
            *sink_dist = min_val;
            return best;
        }
        i = w->row4col[best];
    }
}

/* Shift the potentials after a search from cur, then flip the matching along the path. */
static void augment(struct lsap *w, size_t cur, size_t sink, double min_val)
{
    size_t j = sink;

    w->u[cur] += min_val;
    for (size_t i = 0; i < w->nr; i++)
        if (w->row_hit[i] && i != cur)
            w->u[i] += min_val - w->dist[w->col4row[i]];
    for (size_t k = 0; k < w->nc; k++)
        if (w->col_set[k])
            w->v[k] -= min_val - w->dist[k];
    for (;;) {
        size_t i = w->path[j];
        size_t prev = w->col4row[i];

        w->row4col[j] = i;
        w->col4row[i] = j;
        if (i == cur)
            break;
        j = prev;
    }
}

static enum arb_status solve(const struct problem *p, size_t *row_to_col, double *total,
                             struct arb_err *err)
{
    struct lsap w = {0};
    enum arb_status st;
    int transposed = p->rows > p->cols;
    double sum = 0.0;

    if (p->rows == 0 || p->cols == 0) {
        for (size_t r = 0; r < p->rows; r++)
            row_to_col[r] = ARB_ASSIGN_NONE;
        if (total)
            *total = 0.0;
        return ARB_OK;
    }
    if (!p->m)
        return arb_err_set(err, ARB_EUSAGE, "%s is NULL but has %zu x %zu entries", matrix_name(p),
                           p->rows, p->cols);
    if (p->rows > SIZE_MAX / p->cols)
        return arb_err_set(err, ARB_ETOOBIG, "%s %zu x %zu is too large", matrix_name(p), p->rows,
                           p->cols);
    st = check_entries(p, err);
    if (st != ARB_OK)
        return st;
    st = lsap_alloc(&w, transposed ? p->cols : p->rows, transposed ? p->rows : p->cols, err);
    if (st != ARB_OK)
        return st;
    lsap_load(&w, p);

    for (size_t cur = 0; cur < w.nr; cur++) {
        double min_val = 0.0;
        size_t sink = shortest_path(&w, cur, &min_val);

        if (sink == ARB_ASSIGN_NONE) {
            free(w.block);
            return arb_err_set(err, ARB_ESCHEMA,
                               "%s is infeasible: every assignment of %zu pairs in %zu x %zu "
                               "uses a forbidden entry",
                               matrix_name(p), w.nr, p->rows, p->cols);
        }
        augment(&w, cur, sink, min_val);
    }

    /* Outputs are written only now, so a failed call leaves them untouched. */
    for (size_t r = 0; r < p->rows; r++) {
        size_t c = transposed ? w.row4col[r] : w.col4row[r];

        row_to_col[r] = c;
        if (c != ARB_ASSIGN_NONE)
            sum += p->m[r * p->cols + c];
    }
    if (total)
        *total = sum;
    free(w.block);
    return ARB_OK;
}

static enum arb_status assign(const double *m, size_t rows, size_t cols, int maximize,
                              size_t *row_to_col, double *total, struct arb_err *err)
{
    struct problem p = {.m = m, .rows = rows, .cols = cols, .maximize = maximize};

    if (rows > 0 && !row_to_col)
        return arb_err_set(err, ARB_EUSAGE, "row_to_col is NULL for %zu rows", rows);
    return solve(&p, row_to_col, total, err);
}

enum arb_status arb_assign_min(const double *cost, size_t rows, size_t cols, size_t *row_to_col,
                               double *total, struct arb_err *err)
{
    return assign(cost, rows, cols, 0, row_to_col, total, err);
}

enum arb_status arb_assign_max(const double *score, size_t rows, size_t cols, size_t *row_to_col,
                               double *total, struct arb_err *err)
{
    return assign(score, rows, cols, 1, row_to_col, total, err);
}
