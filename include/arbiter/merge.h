/*
 * merge.h - one run from the shards of a sharded run (arbiter merge).
 *
 * `arbiter run SUITE --shard K/N` keeps the selected cases whose bucket
 * (blind.h, arb_blinder_shard) is K, into a database of its own.  Merging
 * the N databases makes the run the unsharded run would have made: the same
 * cases with the same seq, every record in the order that run writes it, and
 * the judge cache of every shard, so a later replay or re-judge of the
 * merged run finds every reply.  Its report is the unsharded run's but for
 * created_at (the earliest shard's: the shards ran when they ran).
 */
#ifndef ARBITER_MERGE_H
#define ARBITER_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "arbiter/status.h"

/*
 * Merge the shard databases at paths[0..n) into the database at into
 * (created when missing), as a new run whose id goes to *run.
 *
 * Each shard database holds one run, of kind run, made with --shard K/N and
 * complete.  All were made from the same suite (suite_sha256 and suite_json),
 * seed, systems (names in order), judge config (judge_json), decision
 * procedure, Arbiter version, selection of cases (--limit/--cases) and input
 * files (their identity in inputs_json, paths aside: machines differ), with
 * the same N; each K from 1 to N is there exactly once; into is none of them.
 * Otherwise ARB_EUSAGE, naming the files and the difference ("'c.db' ran with
 * seed 8, 'a.db' with seed 7", "'b.db' and 'c.db' are both shard 2/4",
 * "shard 3/4 is missing"); each shard is compared with paths[0].
 *
 * The new run takes shard 1's suite path, systems and inputs, the earliest
 * shard's created_at, and the unsharded scope (the selection without the
 * shard).  It is written in one transaction (arb_store_merge).  ARB_EDB,
 * ARB_ESCHEMA (a database of another schema version), ARB_ENOMEM as
 * arb_store_open and arb_store_merge give them.
 */
enum arb_status arb_merge_shards(const char *into, const char *const *paths, size_t n, int64_t *run,
                                 struct arb_err *err);

#endif
