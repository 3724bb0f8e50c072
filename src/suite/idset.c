/*
 * idset.c - a set of case ids, to find duplicates while cases stream by.
 *
 * The one structure of the case reader that grows with the number of cases:
 * a fingerprint of each id with where it was first seen (fpset.h), 16 bytes a
 * slot however long the ids (a copy of each id took about 78 bytes a case).
 * A fingerprint seen before is only a candidate duplicate: the reader confirms
 * it against the case first seen there (cases.c).
 */
#include "suite_int.h"

int idset_add(struct idset *set, const char *id, size_t where, size_t *first)
{
    uint64_t *at = NULL;
    int added = 0;

    if (arb_fpset_add(&set->fps, id, where, &added, &at))
        return -(int)ARB_ENOMEM;
    if (!added)
        *first = (size_t)*at;
    return added;
}

void idset_release(struct idset *set)
{
    arb_fpset_release(&set->fps);
}
