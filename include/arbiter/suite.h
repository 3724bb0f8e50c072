/*
 * suite.h - loading a suite file and reading its cases and the systems' outputs.
 *
 * A suite (DESIGN.md "The suite file") is validated against
 * schemas/suite.schema.json with the project's own validator, then compiled:
 * every check is compiled (patterns, schemas and expected_files loaded) at
 * load time, so a bad pattern fails before any work starts.  Errors name the
 * file, line and column, the JSON path and what was expected:
 *   suite.json:14:9: /rubric/content/0/check/op: unknown operator 'exactt' (did you mean 'exact'?)
 *
 * Cases and outputs are streamed: readers hand out one item at a time, so
 * memory does not grow with the number of cases.
 *
 * Ownership: arb_suite_free frees the suite and everything it holds; each
 * struct arb_case / arb_output filled by a reader is the caller's, released
 * with arb_case_release / arb_output_release.
 */
#ifndef ARBITER_SUITE_H
#define ARBITER_SUITE_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "arbiter/compare.h"
#include "arbiter/status.h"

#define ARB_OUTPUT_CAP_DEFAULT ((size_t)10 << 20) /* 10 MB per output */

enum arb_dim { ARB_DIM_CONTENT = 0, ARB_DIM_STRUCTURE = 1 };

/* A rubric criterion, scored 1-5 per output. */
struct arb_criterion {
    char *name;
    enum arb_dim dim;
    struct arb_check *check; /* NULL: only the judge can score it */
    char *check_json;        /* the check's config, RFC 8785 text (NULL without check) */
    int graded;              /* score 1 + 4 * check score instead of 5 on pass / 1 on fail */
    char *description;       /* what the judge is told the criterion means; NULL when none */
    char *anchor[3]; /* texts for scores 1, 3, 5; NULL when the suite gives none (the judge is
                        then told the built-in anchor of a default name, else a generic one) */
};

/* An expectation: a statement about one output, pass or fail. */
struct arb_expectation {
    char *id;
    char *text;
    struct arb_check *check; /* NULL: free text, only the judge can decide it */
    char *check_json;
    char *description; /* told to the judge with the text; NULL when none */
};

struct arb_system {
    char *name;
    char *path; /* JSONL file, directory, or single file (absolute or relative to cwd) */
};

enum arb_inconsistent { ARB_INCONSISTENT_TIE = 0, ARB_INCONSISTENT_UNRESOLVED };

/*
 * A file the suite's checks read (an expected_file, in a rubric, expectations or fields
 * check of the suite or in a case's check): the name as the suite wrote it, and the path it
 * is read at (the name resolved from the suite's folder).
 */
struct arb_suite_file {
    char *name;
    char *path;
};

/*
 * What decides a judged case (DESIGN.md "Verdict policy"): the rubric rule alone, the
 * judge's pairwise winner (consistent over both orders), or the rubric rule with its ties
 * broken by the judge's consistent winner (the default).  A case the checks decide alone is
 * decided by the rubric rule under every policy.
 */
enum arb_decide_by { ARB_DECIDE_RUBRIC_THEN_JUDGE = 0, ARB_DECIDE_RUBRIC, ARB_DECIDE_JUDGE };

/* The policy's name as the suite spells it ("rubric_then_judge", ...). */
const char *arb_decide_by_name(enum arb_decide_by d);

struct arb_policy {
    double tie_epsilon;                 /* overall scores this close are equal (default 0) */
    enum arb_inconsistent inconsistent; /* position_inconsistent judge verdicts */
    enum arb_decide_by decide_by;       /* what decides a judged case */
};

struct arb_suite {
    char *path; /* as given */
    char *dir;  /* folder of the suite file: relative paths resolve from here */
    char *name;
    char *task;                 /* default eval prompt */
    uint64_t seed;              /* blinding seed (default 0) */
    struct arb_system *systems; /* in the order of the file, then --system additions */
    size_t n_systems;
    char **redact;
    size_t n_redact;
    struct arb_criterion *criteria; /* content criteria first, then structure */
    size_t n_criteria;
    struct arb_expectation *expectations; /* the suite's own (cases add theirs) */
    size_t n_expectations;
    cJSON *fields;                  /* the suite's comparator map, or NULL */
    struct arb_check *fields_check; /* {"op":"fields","fields":map} on whole outputs, or NULL */
    cJSON *judge; /* the judge object as written (names an env var, holds no secret) */
    struct arb_policy policy;
    char *cases_file;                 /* resolved path when "cases" is a JSONL path, else NULL */
    struct arb_suite_file *files;     /* every expected_file its checks and its cases' checks
                                         read, each name once, in the order first met */
    size_t n_files;
    cJSON *doc;                       /* the parsed suite */
    char sha256[65];                  /* hex SHA-256 of the suite's RFC 8785 form */
    size_t max_output_bytes;          /* per output file; ARB_OUTPUT_CAP_DEFAULT unless set */
    struct arb_schema_cache *schemas; /* shared by every json_schema check of the suite */
    char *text;     /* a suite parsed from memory (arb_suite_parse): its text, to locate errors
                       in its inline cases; NULL for a file, which is read again for that */
    size_t text_len;
};

/*
 * Load and compile the suite at path.  ARB_EIO (cannot read), ARB_EPARSE
 * (not JSON: file:line:col), ARB_ESCHEMA (wrong shape, unknown key, bad
 * check: file:line:col: /json/path: message), ARB_ENOMEM.
 */
enum arb_status arb_suite_load(const char *path, struct arb_suite **out, struct arb_err *err);

/*
 * The same from text[0..len) in memory: name is what messages call it
 * ("name:LINE:COL: ..."), dir the folder its relative paths resolve from.  No
 * file is read but what the suite itself names (expected_file, a cases file).
 */
enum arb_status arb_suite_parse(const char *text, size_t len, const char *name, const char *dir,
                                struct arb_suite **out, struct arb_err *err);

/* Add or replace a system from "NAME=PATH" (the --system option). ARB_EUSAGE when malformed. */
enum arb_status arb_suite_set_system(struct arb_suite *s, const char *name_eq_path,
                                     struct arb_err *err);

void arb_suite_free(struct arb_suite *s);

struct arb_case {
    char *id;
    char *prompt;                         /* what the systems were asked (may be NULL) */
    cJSON *expected; /* may be NULL; the reader's is raw's member "expected", freed with raw */
    struct arb_expectation *expectations; /* the case's own, compiled */
    size_t n_expectations;
    cJSON *raw;  /* the case object as written */
    size_t line; /* line in the cases JSONL file; 0 for inline */
};

void arb_case_release(struct arb_case *c);

struct arb_case_reader;

enum arb_status arb_case_reader_open(const struct arb_suite *s, struct arb_case_reader **out,
                                     struct arb_err *err);

/*
 * Read the next case into c (which the caller releases).  Returns 1 for a
 * case, 0 at the end, or a negated status with err naming file:line and path
 * (a duplicate case id is -ARB_ESCHEMA).
 */
int arb_case_reader_next(struct arb_case_reader *r, struct arb_case *c, struct arb_err *err);

void arb_case_reader_free(struct arb_case_reader *r);

/*
 * Where a case reader's lines come from, instead of the suite's cases: next
 * gives the JSON text of the next case object (*text borrowed until the next
 * call) and returns 1, 0 at the end, or a negated status with err filled.
 * label names the source in messages ("run 3"); each text is checked and
 * compiled as a line of a cases file would be.
 */
struct arb_case_lines {
    int (*next)(void *ctx, const char **text, size_t *len, struct arb_err *err);
    void (*close)(void *ctx); /* when the reader is freed (may be NULL) */
    void *ctx;
    const char *label;
};

/* A case reader over lines (borrowed until the reader is freed, which calls lines->close,
 * also when opening fails) for suite s. */
enum arb_status arb_case_reader_open_lines(const struct arb_suite *s,
                                           const struct arb_case_lines *lines,
                                           struct arb_case_reader **out, struct arb_err *err);

/*
 * One output of one system for one case.  A JSONL line {"id", "output", ...}
 * (agent-eval capture fields trajectory, timing/duration, toolErrors, input
 * are kept in meta; "trial": N, a non-negative integer, numbers one of
 * several outputs of the case), a file of a directory named after the case id
 * (extension ignored), or a file inside a sub-directory named after the case
 * id (then file is its relative name and there is one arb_output per file).
 * Symbolic links to regular files are followed; every other entry that is not
 * a regular file comes back with problem set, never silently left out.
 */
struct arb_output {
    char *case_id;
    char *file; /* name inside a case sub-directory, or NULL */
    char *text; /* content (NUL-terminated; may contain NULs when binary) */
    size_t len;
    int binary; /* not UTF-8 text: stored by size and hash, never compared as text */
    char sha256[65];
    cJSON *meta;   /* capture fields, or NULL */
    size_t line;   /* JSONL line, 0 otherwise */
    int64_t trial; /* "trial" of a JSONL line; 0 when absent and for directories */
    /* An entry of a directory that is not read (a FIFO, socket or device, a dangling
     * symbolic link, a link to a directory): why, naming its path; text is then NULL
     * and case_id (and file) name the entry.  NULL for every output that was read. */
    char *problem;
};

void arb_output_release(struct arb_output *o);

struct arb_output_reader;

/* Open a system's outputs (JSONL file, directory, or a single file for case_id). */
enum arb_status arb_output_reader_open(const char *path, size_t max_bytes,
                                       struct arb_output_reader **out, struct arb_err *err);

/*
 * Next output: 1, 0 at the end, or a negated status (ARB_EPARSE with
 * file:line:col, ARB_ETOOBIG for an output over the cap, ARB_EIO).  Outputs
 * with a duplicate id are returned like any other: the caller reports them.
 */
int arb_output_reader_next(struct arb_output_reader *r, struct arb_output *o, struct arb_err *err);

void arb_output_reader_free(struct arb_output_reader *r);

/*
 * A reader of the one output at path, as case case_id's: a file is one
 * output, a directory one output per file below it (links and special files
 * as in a directory of outputs).  For `arbiter compare`, whose inputs are
 * one output each.
 */
enum arb_status arb_output_reader_open_one(const char *path, const char *case_id, size_t max_bytes,
                                           struct arb_output_reader **out, struct arb_err *err);

/*
 * A reader whose outputs come from next (filling o, which the caller then
 * owns, returning 1, 0 at the end, or a negated status): outputs stored in a
 * database, for instance.  close (may be NULL) is called with ctx when the
 * reader is freed.
 */
enum arb_status arb_output_reader_open_fn(int (*next)(void *ctx, struct arb_output *o,
                                                      struct arb_err *err),
                                          void (*close)(void *ctx), void *ctx,
                                          struct arb_output_reader **out, struct arb_err *err);

/*
 * What an input is (runs.inputs_json; arbiter run --resume compares it): a
 * file's size and SHA-256, or a directory's entries, the bytes of its files
 * and a SHA-256 over its listing and contents as the output reader sees them
 * (identity.c describes the digest).
 */
struct arb_input_id {
    int is_dir;
    uint64_t size;    /* bytes: the file's, or those of every file in the directory */
    uint64_t entries; /* a directory's entries, recursively (hidden ones left out); 0 */
    char sha256[65];  /* hex */
};

/*
 * Identify the file or directory at path (links followed), streaming every
 * file through SHA-256 once.  ARB_EIO naming what ("outputs") and path when it
 * cannot be read or is neither a regular file nor a directory (a FIFO is
 * never opened); ARB_EINTERNAL when OpenSSL fails; ARB_ENOMEM.
 */
enum arb_status arb_input_identify(const char *path, const char *what, struct arb_input_id *id,
                                   struct arb_err *err);

/*
 * Where in text (JSON that arb_json_parse accepted) the value at pointer
 * starts, or its nearest ancestor's when pointer names nothing: *line and
 * *col from 1 (columns count code points).  For messages about files other
 * than suites (a check file, a judge config) in the suite's FILE:LINE:COL form.
 */
void arb_json_pointer_pos(const char *text, size_t len, const char *pointer, size_t *line,
                          size_t *col);

/*
 * Rewrite err->msg of the form "/json/pointer: what" (as the check compiler
 * and the judge config parser write them) to "FILE:LINE:COL: /pointer: what"
 * located in text.  strip: a pointer prefix to remove first ("/judge" when the
 * object was parsed as a suite's member but came from its own file), or NULL.
 * A message not starting with '/' gets "FILE: " only.
 */
void arb_err_locate(struct arb_err *err, const char *file, const char *text, size_t len,
                    const char *strip);

/*
 * Rewrite a parse error of arb_json_parse ("line L, column C: what") about
 * file to "FILE:L:C: what", the form of every other located message.
 */
void arb_err_locate_parse(struct arb_err *err, const char *file);

#endif
