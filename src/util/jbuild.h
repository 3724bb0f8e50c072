/*
 * jbuild.h - a cJSON tree built straight from checked JSON text (jbuild.c), for json.c.
 */
#ifndef ARB_UTIL_JBUILD_H
#define ARB_UTIL_JBUILD_H

#include <stddef.h>

#include <cjson/cJSON.h>

/*
 * The tree cJSON_ParseWithLengthOpts(text, len, end, 0) returns for text[0..len) that
 * arb_jscan_check accepted (white space before the value is skipped; *end, when end is not NULL,
 * is set just past the value).  NULL when it gives up (a number strtod must round, "\u0000",
 * deep nesting) or memory runs out: the caller then asks cJSON.  The caller frees the tree with
 * cJSON_Delete.
 */
cJSON *arb_json_build(const char *text, size_t len, const char **end);

#endif
