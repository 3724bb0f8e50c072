/*
 * fuzz_labels.c - libFuzzer target for the labels readers of `arbiter
 * calibrate`: judge labels and expectation labels (arb_calib_load), labels
 * naming a run's systems (arb_calib_load_named, calibrate --run) and the
 * labelled outputs of --tune (arb_tune_load).
 *
 * Input: the whole JSONL file, written to a fresh directory under /tmp and
 * read by every loader; each must either load it or refuse it with a
 * located message, never crash or leak.
 */
#include <stddef.h>
#include <stdint.h>

#include "arbiter/calibrate.h"
#include "fuzz_tmp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_tmp t;
    struct arb_calib_set *calib = NULL;
    struct arb_tune_set *tune = NULL;
    struct arb_err err = {{0}};
    const char *path;

    if (fuzz_tmp_init(&t))
        return 0;
    if (fuzz_tmp_write(&t, "labels.jsonl", data, size, &path) == 0) {
        static const char *const systems[2] = {"baseline", "candidate"};

        if (arb_calib_load(path, &calib, &err) == ARB_OK)
            arb_calib_set_free(calib);
        calib = NULL;
        if (arb_calib_load_named(path, systems, &calib, &err) == ARB_OK)
            arb_calib_set_free(calib);
        if (arb_tune_load(path, &tune, &err) == ARB_OK)
            arb_tune_set_free(tune);
    }
    fuzz_tmp_remove(&t);
    return 0;
}
