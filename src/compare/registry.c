/*
 * registry.c - the one table of operators: name, parameters, compile and run
 * functions.  Adding an operator is one row here and its functions in an
 * ops_*.c file.  Unknown names get a "did you mean" from edit distance.
 */
#include <string.h>

#include "check_impl.h"
#include "ops.h"

static const char *const p_none[] = {NULL};
static const char *const p_norm[] = {"steps", NULL};
static const char *const p_regex[] = {"mode", "flags", NULL};
static const char *const p_lev[] = {"max_distance", NULL};
static const char *const p_numeric[] = {"atol", "rtol", NULL};
static const char *const p_within[] = {"tolerance", "percent", NULL};
static const char *const p_json_match[] = {"keys", NULL};
static const char *const p_fields[] = {"fields", "allow_extra", NULL};
static const char *const p_top_k[] = {"k", NULL};
static const char *const p_traj[] = {"match_args", NULL};
static const char *const p_agg[] = {"checks", NULL};
static const char *const p_k_of_n[] = {"checks", "k", NULL};
static const char *const p_llm_judge[] = {"template", "result_key", "result_type", "on_error",
                                          NULL};

#define NE   OP_NEEDS_EXPECTED
#define NUM  OP_NUMBER_EXPECTED
#define LIST OP_LIST_EXPECTED

static const struct op_def ops[] = {
    {"exact", p_none, NE, 1.0, NULL, op_exact_run, NULL},
    {"normalized_exact", p_norm, NE, 1.0, op_normalized_compile, op_normalized_run, op_free},
    {"contains", p_none, NE, 1.0, NULL, op_contains_run, NULL},
    {"icontains", p_none, NE, 1.0, NULL, op_icontains_run, NULL},
    {"starts_with", p_none, NE, 1.0, NULL, op_starts_with_run, NULL},
    {"ends_with", p_none, NE, 1.0, NULL, op_ends_with_run, NULL},
    {"regex", p_regex, NE, 1.0, op_regex_compile, op_regex_run, op_regex_free},
    {"membership", p_none, NE | LIST, 1.0, NULL, op_membership_run, NULL},
    {"levenshtein", p_lev, NE, 1.0, op_levenshtein_compile, op_levenshtein_run, op_free},
    {"name", p_none, NE, 0.9, NULL, op_name_run, NULL},
    {"numeric", p_numeric, NE | NUM, 1.0, op_numeric_compile, op_numeric_run, op_free},
    {"within", p_within, NE | NUM, 1.0, op_within_compile, op_within_run, op_free},
    {"json_valid", p_none, OP_NO_EXPECTED, 1.0, NULL, op_json_valid_run, NULL},
    {"json_canonical", p_none, NE, 1.0, NULL, op_json_canonical_run, NULL},
    {"json_match", p_json_match, NE, 1.0, op_json_match_compile, op_json_match_run, op_free_json},
    {"json_subset", p_none, NE, 1.0, NULL, op_json_subset_run, NULL},
    {"json_distance", p_none, NE, 1.0, NULL, op_json_distance_run, NULL},
    {"json_schema", p_none, NE, 1.0, op_json_schema_compile, op_json_schema_run,
     op_json_schema_free},
    {"fields", p_fields, NE, 1.0, op_fields_compile, op_fields_run, op_fields_free},
    {"top_k", p_top_k, NE | LIST, 1.0, op_top_k_compile, op_top_k_run, op_free},
    {"trajectory_exact", p_traj, NE, 1.0, op_traj_compile, op_traj_exact_run, op_free},
    {"trajectory_in_order", p_traj, NE, 1.0, op_traj_compile, op_traj_in_order_run, op_free},
    {"trajectory_any_order", p_traj, NE, 1.0, op_traj_compile, op_traj_any_order_run, op_free},
    {"all", p_agg, OP_SETS_VERDICT, 1.0, op_agg_compile, op_all_run, NULL},
    {"any", p_agg, OP_SETS_VERDICT, 1.0, op_agg_compile, op_any_run, NULL},
    {"k_of_n", p_k_of_n, OP_SETS_VERDICT, 1.0, op_agg_compile, op_k_of_n_run, NULL},
    {"weighted_mean", p_agg, OP_SETS_VERDICT, 1.0, op_agg_compile, op_weighted_mean_run, NULL},
    {"llm_judge", p_llm_judge, OP_SETS_VERDICT, 1.0, op_llm_judge_compile, op_llm_judge_run,
     op_llm_judge_free},
};

#define N_OPS (sizeof(ops) / sizeof(ops[0]))

const char *arb_operator_name(size_t i)
{
    return i < N_OPS ? ops[i].name : NULL;
}

const struct op_def *op_lookup(const char *name)
{
    size_t i;

    for (i = 0; i < N_OPS; i++)
        if (strcmp(ops[i].name, name) == 0)
            return &ops[i];
    return NULL;
}

/* Byte edit distance, small strings only: operator names. */
static size_t name_distance(const char *a, const char *b)
{
    size_t row[64], n = strlen(a), m = strlen(b), i, j;

    if (n > 63 || m > 63)
        return 64;
    for (j = 0; j <= m; j++)
        row[j] = j;
    for (i = 1; i <= n; i++) {
        size_t diag = row[0];

        row[0] = i;
        for (j = 1; j <= m; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);

            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[m];
}

void op_suggest(const char *name, struct arb_buf *out)
{
    size_t i, best = 64, best_i = 0;

    for (i = 0; i < N_OPS; i++) {
        size_t d = name_distance(name, ops[i].name);

        if (d < best) {
            best = d;
            best_i = i;
        }
    }
    if (best <= 2 || (best <= 3 && strlen(name) > 8))
        arb_buf_printf(out, " (did you mean '%s'?)", ops[best_i].name);
    arb_buf_adds(out, "; valid operators: ");
    for (i = 0; i < N_OPS; i++) {
        if (i)
            arb_buf_adds(out, ", ");
        arb_buf_adds(out, ops[i].name);
    }
}
