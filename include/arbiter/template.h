/*
 * template.h - filling a user's prompt template: the llm_judge check's
 * "template" (seeds/evaluator-factories.txt, make_llm_judge_evaluator).
 *
 * The rules are Python's str.format as far as a template written for evalwire
 * uses it, and lenient elsewhere: "{name}" for one of the given names is
 * replaced by its value, "{{" and "}}" are a literal "{" and "}", and every
 * other brace is kept as written (a JSON example in a template stays as it is;
 * Python would raise).  Values are inserted as they are and never scanned
 * again, so a value holding "{output}" stays literal.
 */
#ifndef ARBITER_TEMPLATE_H
#define ARBITER_TEMPLATE_H

#include <stddef.h>

#include "arbiter/buf.h"
#include "arbiter/status.h"

/*
 * Fill tmpl into out (NULL: only scan).  names[0..n) are the placeholders (at most 16),
 * values[0..n) what replaces each.  *found (may be NULL) receives bit i for each name that
 * occurs.  ARB_ENOMEM, ARB_ETOOBIG (out's cap).
 */
enum arb_status arb_template_fill(const char *tmpl, const char *const *names,
                                  const char *const *values, size_t n, struct arb_buf *out,
                                  unsigned *found);

#endif
