/*
 * export_names.h - the file names of `arbiter export --comparisons`
 * (export_names.c): one per verdict, never the same for two verdicts, and
 * short enough for any file system.
 */
#ifndef ARBITER_CLI_EXPORT_NAMES_H
#define ARBITER_CLI_EXPORT_NAMES_H

#include <stddef.h>

#include "arbiter/buf.h"
#include "arbiter/status.h"
#include "arbiter/strset.h"

/* The longest name given, in bytes: room is left for outfile.c's temporary name beside it. */
#define CLI_EXPORT_NAME_MAX 200

/* The names an export has handed out, to refuse a repeat (see cli_export_names_claim). */
struct cli_export_names {
    struct arb_strset seen; /* name -> index into owners */
    char **owners;          /* owned: which verdict took each name, in words */
    size_t n, cap;
};

void cli_export_names_init(struct cli_export_names *names);
void cli_export_names_release(struct cli_export_names *names);

/*
 * The file name (without directory) of the verdict of case_id between a and
 * b into out (reset first): CASE.json, or with b not NULL CASE~A~B.json, each
 * component escaped; a long one cut, with a hash of the whole name.  ARB_ENOMEM,
 * ARB_EINTERNAL (OpenSSL).
 */
enum arb_status cli_export_name(struct arb_buf *out, const char *case_id, const char *a,
                                const char *b);

/*
 * Record that name is written for (case_id, a, b).  ARB_EUSAGE, with a
 * message in msg naming both verdicts and the name, when this export already
 * gave name to another one; ARB_ENOMEM.
 */
enum arb_status cli_export_names_claim(struct cli_export_names *names, const char *name,
                                       const char *case_id, const char *a, const char *b,
                                       char *msg, size_t cap);

#endif
