#!/bin/sh
# Regenerate src/judge/prompt_text.c from prompts/pairwise.md (run from the repository root).
set -eu
in=prompts/pairwise.md
out=src/judge/prompt_text.c
{
    echo '/*'
    echo ' * prompt_text.c - prompts/pairwise.md embedded, so the binary needs no data files.'
    echo ' *'
    echo ' * GENERATED from prompts/pairwise.md (one literal per line); a unit test checks that the'
    echo ' * two are identical.  Regenerate by running tools/embed_prompt.sh.'
    echo ' */'
    echo '#include "judge_int.h"'
    echo ''
    echo 'const char *const judge_pairwise_template[] = {'
    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$/\\n",/' "$in"
    echo '    NULL,'
    echo '};'
} >"$out"
