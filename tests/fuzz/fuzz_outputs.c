/*
 * fuzz_outputs.c - libFuzzer target for the outputs JSONL reader
 * (arb_output_reader_open / arb_output_reader_next).
 *
 * Input: the whole JSONL file, written to a fresh directory under /tmp.
 * The reader is opened with a 1 KiB cap per output so that the over-the-cap
 * path is reached too, and read to the end: the reader promises that a bad
 * line is reported and reading goes on, so errors do not stop the loop (it
 * is bounded by the number of lines all the same).
 */
#include <stddef.h>
#include <stdint.h>

#include "arbiter/suite.h"
#include "fuzz_tmp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_tmp t;
    struct arb_output_reader *r = NULL;
    struct arb_output o;
    struct arb_err err = {{0}};
    const char *path;
    size_t i;
    int got = 1;

    if (fuzz_tmp_init(&t))
        return 0;
    if (fuzz_tmp_write(&t, "outputs.jsonl", data, size, &path) == 0 &&
        arb_output_reader_open(path, 1024, &r, &err) == ARB_OK) {
        /* at most one call per line, plus the end */
        for (i = 0; i <= size + 1 && got != 0; i++) {
            got = arb_output_reader_next(r, &o, &err);
            if (got == 1)
                arb_output_release(&o);
        }
        arb_output_reader_free(r);
    }
    fuzz_tmp_remove(&t);
    return 0;
}
