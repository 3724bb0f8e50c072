/*
 * case_ids.c - the case ids a run remembers (runner.h struct case_ids): which
 * the suite has and which the run keeps (passes 1-3), and, while one system's
 * outputs load (pass 2), which cases have an output and the trial of the first.
 *
 * Each id is a fingerprint in one table (fpset.h, 16 bytes a slot; three sets of
 * copied ids took about 200 bytes a case), made once pass 1 has read every case.  A slot's value:
 * bit 0 the run keeps the case, bit 1 an output of the system is stored, bit 2 one without file or
 * trial, bits 32-63 the trial of the first (trials are below 2^31).  Only outputs
 * with a file or a trial go to an exact set of keys to find their repeats.  Two
 * ids of the suite with one fingerprint (the case reader told them apart; about
 * 3e-8 for a million ids) mark their slot shared, and the cases of a shared slot
 * take the exact way: their keep and first trial in sets of copied ids.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"

#define ID_KEEP   ((uint64_t)1 << 0)
#define ID_OUTPUT ((uint64_t)1 << 1)
#define ID_PLAIN  ((uint64_t)1 << 2)
#define ID_SHARED ((uint64_t)1 << 3)
#define ID_TRIAL  32

static void forget_pending(struct case_ids *ids)
{
    free(ids->pending);
    free(ids->keep);
    ids->pending = NULL;
    ids->keep = NULL;
    ids->n = ids->cap = 0;
}

void case_ids_init(struct case_ids *ids)
{
    memset(ids, 0, sizeof(*ids));
    arb_fpset_init(&ids->fps);
    arb_strset_init(&ids->shared);
    arb_strset_init(&ids->seen);
    arb_strset_init(&ids->trial_of);
}

void case_ids_release(struct case_ids *ids)
{
    forget_pending(ids);
    arb_fpset_release(&ids->fps);
    arb_strset_release(&ids->shared);
    arb_strset_release(&ids->seen);
    arb_strset_release(&ids->trial_of);
}

/*
 * Pass 1 keeps each id's fingerprint in an array (8 bytes a case, grown by realloc, which
 * moves a large block without copying it) rather than in the table: the case reader holds a
 * table of the same ids meanwhile, and two tables growing side by side were the peak of a
 * run's memory (issue 21: 69 of 106 MB at a million cases).  case_ids_finish makes the table
 * once, at its final size.
 */
enum arb_status case_ids_add(struct case_ids *ids, const char *id, int keep)
{
    if (ids->n == ids->cap) {
        size_t cap = ids->cap ? ids->cap * 2 : 1024;
        uint64_t *p = realloc(ids->pending, cap * sizeof(*p));
        unsigned char *k;

        if (!p)
            return ARB_ENOMEM;
        ids->pending = p;
        k = realloc(ids->keep, cap / 8);
        if (!k)
            return ARB_ENOMEM;
        ids->keep = k;
        ids->cap = cap;
    }
    ids->pending[ids->n] = arb_fpset_hash(id);
    if (keep)
        ids->keep[ids->n / 8] |= (unsigned char)(1u << (ids->n % 8));
    else
        ids->keep[ids->n / 8] &= (unsigned char)~(1u << (ids->n % 8));
    ids->n++;
    return ARB_OK;
}

static int kept(const struct case_ids *ids, size_t seq)
{
    return (ids->keep[seq / 8] >> (seq % 8)) & 1;
}

enum arb_status case_ids_finish(struct case_ids *ids)
{
    enum arb_status st = ARB_OK;

    if (ids->collided) { /* the second call: the shared ids are known */
        ids->collided = 0;
        forget_pending(ids);
        return ARB_OK;
    }
    if (ids->n)
        st = arb_fpset_reserve(&ids->fps, ids->n);
    for (size_t i = 0; !st && i < ids->n; i++) {
        uint64_t *v = NULL;
        int added = 0;

        st = arb_fpset_add_fp(&ids->fps, ids->pending[i], kept(ids, i) ? ID_KEEP : 0, &added, &v);
        if (!st && !added) {
            /* The reader refuses a repeated id: another id of the same fingerprint. */
            *v |= ID_SHARED;
            ids->collided = 1;
        }
    }
    if (!st && !ids->collided)
        forget_pending(ids);
    return st;
}

enum arb_status case_ids_shared_id(struct case_ids *ids, size_t seq, const char *id)
{
    const uint64_t *v;
    int added = 0;

    if (seq >= ids->n || ids->pending[seq] != arb_fpset_hash(id))
        return ARB_EINTERNAL; /* not the cases of pass 1 */
    v = arb_fpset_get(&ids->fps, id);
    if (!v || !(*v & ID_SHARED))
        return ARB_OK;
    return arb_strset_add(&ids->shared, id, (size_t)kept(ids, seq), &added, NULL);
}

int case_ids_get(const struct case_ids *ids, const char *id, int *keep)
{
    const uint64_t *v = arb_fpset_get(&ids->fps, id);
    size_t k;

    if (!v)
        return 0;
    *keep = (*v & ID_KEEP) != 0;
    if ((*v & ID_SHARED) && arb_strset_get(&ids->shared, id, &k))
        *keep = k != 0;
    return 1;
}

void case_ids_next_system(struct case_ids *ids)
{
    size_t i;

    for (i = 0; i < ids->fps.cap; i++)
        ids->fps.slots[i].value &= ID_KEEP | ID_SHARED;
    arb_strset_release(&ids->seen);
    arb_strset_release(&ids->trial_of);
}

enum arb_status case_ids_output(struct case_ids *ids, const struct arb_output *o, int *first)
{
    uint64_t *v = arb_fpset_get(&ids->fps, o->case_id);
    int plain = (!o->file || !o->file[0]) && !o->trial, added = 1;
    enum arb_status st = ARB_OK;
    char trial[32] = "";
    struct arb_buf key;

    if (v && plain && !(*v & ID_SHARED)) {
        *first = !(*v & ID_PLAIN);
        *v |= ID_PLAIN;
        return ARB_OK;
    }
    arb_buf_init(&key, 0);
    if (o->trial)
        snprintf(trial, sizeof(trial), " (trial %lld)", (long long)o->trial);
    st = arb_buf_printf(&key, "%s/%s%s", o->case_id, o->file ? o->file : "", trial);
    if (!st)
        st = arb_strset_add(&ids->seen, key.ptr, 0, &added, NULL);
    arb_buf_release(&key);
    *first = added;
    return st;
}

enum arb_status case_ids_stored(struct case_ids *ids, const struct arb_output *o, int *trials)
{
    uint64_t *v = arb_fpset_get(&ids->fps, o->case_id);
    uint64_t trial = (uint64_t)o->trial;
    size_t first = 0;
    int added = 0;
    enum arb_status st;

    if (!v)
        return ARB_OK;
    if (!(*v & ID_SHARED)) {
        if (!(*v & ID_OUTPUT))
            *v |= ID_OUTPUT | trial << ID_TRIAL;
        else if (*v >> ID_TRIAL != trial)
            *trials = 1;
        return ARB_OK;
    }
    st = arb_strset_add(&ids->trial_of, o->case_id, (size_t)o->trial, &added, &first);
    if (!st && !added && first != (size_t)o->trial)
        *trials = 1;
    return st;
}
