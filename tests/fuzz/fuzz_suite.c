/*
 * fuzz_suite.c - libFuzzer target for the suite loader (arb_suite_load).
 *
 * Input: the suite file, optionally followed by a NUL byte and the text of a
 * "cases.jsonl" written beside it (a NUL can never be part of valid JSON, so
 * nothing is lost by splitting there).  Both go into a fresh directory under
 * /tmp, so "cases": "cases.jsonl" and relative expected_file names resolve
 * there.  The loader validates the suite's shape, compiles every check and
 * reads every case; a loaded suite is then released.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "arbiter/suite.h"
#include "fuzz_tmp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, '\0', size);
    size_t suite_len = nul ? (size_t)(nul - data) : size;
    struct fuzz_tmp t;
    struct arb_suite *s = NULL;
    struct arb_err err = {{0}};
    const char *suite_path, *cases_path;

    if (fuzz_tmp_init(&t))
        return 0;
    if (fuzz_tmp_write(&t, "suite.json", data, suite_len, &suite_path) == 0 &&
        (!nul || fuzz_tmp_write(&t, "cases.jsonl", nul + 1, size - suite_len - 1,
                                &cases_path) == 0) &&
        arb_suite_load(suite_path, &s, &err) == ARB_OK)
        arb_suite_free(s);
    fuzz_tmp_remove(&t);
    return 0;
}
