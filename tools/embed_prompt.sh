#!/bin/sh
# Regenerate src/judge/prompt_text.c from prompts/pairwise.md and prompts/expectation.md (run
# from the repository root).
set -eu
out=src/judge/prompt_text.c
# embed NAME FILE: one C string literal per line of FILE, NULL-terminated.
embed() {
    echo ''
    echo "const char *const $1[] = {"
    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$/\\n",/' "$2"
    echo '    NULL,'
    echo '};'
}
{
    echo '/*'
    echo ' * prompt_text.c - prompts/pairwise.md and prompts/expectation.md embedded, so the binary'
    echo ' * needs no data files.'
    echo ' *'
    echo ' * GENERATED from prompts/ (one literal per line); unit tests check that each array and its'
    echo ' * file are identical.  Regenerate by running tools/embed_prompt.sh.'
    echo ' */'
    echo '#include "judge_int.h"'
    embed judge_pairwise_template prompts/pairwise.md
    embed judge_expectation_template prompts/expectation.md
} >"$out"
