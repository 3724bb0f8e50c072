/*
 * ops.h - the operator functions the registry points at, grouped by file.
 */
#ifndef ARBITER_OPS_H
#define ARBITER_OPS_H

#include "check_impl.h"

#define OP_RUN(fn) enum arb_status fn(struct arb_check *c, const struct op_input *in, \
                                      struct arb_result *res)
#define OP_COMPILE(fn) enum arb_status fn(struct arb_check *c, const cJSON *cfg, \
                                          const char *path, struct arb_err *err)

void op_free(void *priv);

/* ops_text.c */
OP_RUN(op_exact_run);
OP_COMPILE(op_normalized_compile);
OP_RUN(op_normalized_run);
OP_RUN(op_contains_run);
OP_RUN(op_icontains_run);
OP_RUN(op_starts_with_run);
OP_RUN(op_ends_with_run);
OP_RUN(op_membership_run);
OP_COMPILE(op_levenshtein_compile);
OP_RUN(op_levenshtein_run);
OP_RUN(op_name_run);

/* ops_regex.c */
OP_COMPILE(op_regex_compile);
OP_RUN(op_regex_run);
void op_regex_free(void *priv);

/* ops_numeric.c */
OP_COMPILE(op_numeric_compile);
OP_RUN(op_numeric_run);
OP_COMPILE(op_within_compile);
OP_RUN(op_within_run);

/* ops_json.c */
OP_RUN(op_json_valid_run);
OP_RUN(op_json_canonical_run);
OP_COMPILE(op_json_match_compile);
OP_RUN(op_json_match_run);
void op_free_json(void *priv);
OP_RUN(op_json_subset_run);
OP_RUN(op_json_distance_run);

/* ops_schema.c */
OP_COMPILE(op_json_schema_compile);
OP_RUN(op_json_schema_run);
void op_json_schema_free(void *priv);

/* src/fields/ops_fields.c */
OP_COMPILE(op_fields_compile);
OP_RUN(op_fields_run);
void op_fields_free(void *priv);

/* ops_list.c */
OP_COMPILE(op_top_k_compile);
OP_RUN(op_top_k_run);
OP_COMPILE(op_traj_compile);
OP_RUN(op_traj_exact_run);
OP_RUN(op_traj_in_order_run);
OP_RUN(op_traj_any_order_run);

/* ops_aggregate.c */
OP_COMPILE(op_agg_compile);
OP_RUN(op_all_run);
OP_RUN(op_any_run);
OP_RUN(op_k_of_n_run);
OP_RUN(op_weighted_mean_run);

/* ops_llm_judge.c */
OP_COMPILE(op_llm_judge_compile);
OP_RUN(op_llm_judge_run);
void op_llm_judge_free(void *priv);

#endif
