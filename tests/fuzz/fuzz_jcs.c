/*
 * fuzz_jcs.c - libFuzzer target for the JSON parser with located errors
 * (arb_json_parse) and the RFC 8785 canonicalizer (arb_jcs_string).
 *
 * Input: one JSON text.  It is parsed with and without the duplicate-key
 * check; a value that parses is canonicalized, and the canonical text must
 * parse again to an equal value whose canonical form is the same bytes
 * (canonicalization is idempotent and loses nothing) when the object keys
 * are unique (with duplicates RFC 8785 defines no single answer).  A parsed value is
 * always finite and valid UTF-8, so canonicalization may only fail for want
 * of memory.  It is parsed a third time as the comparators read JSON (U+0000 kept, a repeated
 * key's last value only: the keys are then unique, so the round trip must hold).  Any broken
 * property aborts, which libFuzzer reports as a crash.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Canonicalize v and check the round trip (the canonical text parsed again with flags). */
static void round_trip(const cJSON *v, int unique_keys, unsigned flags)
{
    struct arb_err err = {{0}};
    char *canon = NULL, *again = NULL;
    size_t len = 0, again_len = 0;
    cJSON *back = NULL;
    enum arb_status st;

    st = arb_jcs_string(v, &canon, &len, &err);
    if (st == ARB_ENOMEM)
        return;
    if (st != ARB_OK || strlen(canon) != len)
        abort();
    if (!unique_keys) {
        /* RFC 8785 has no order for equal names: only the unique case has one answer */
        free(canon);
        return;
    }
    st = arb_json_parse(canon, len, ARB_JSON_NO_DUPLICATES | flags, &back, &err);
    if (st != ARB_OK && st != ARB_ENOMEM)
        abort();
    if (st == ARB_OK) {
        if (!arb_json_equal(v, back))
            abort();
        if (arb_jcs_string(back, &again, &again_len, &err) == ARB_OK &&
            (again_len != len || memcmp(again, canon, len) != 0))
            abort();
    }
    free(again);
    cJSON_Delete(back);
    free(canon);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct arb_err err = {{0}};
    cJSON *v = NULL;

    if (arb_json_parse((const char *)data, size, ARB_JSON_NO_DUPLICATES, &v, &err) == ARB_OK) {
        round_trip(v, 1, 0);
        cJSON_Delete(v);
        v = NULL;
    }
    if (arb_json_parse((const char *)data, size, ARB_JSON_ALLOW_BOM, &v, &err) == ARB_OK) {
        round_trip(v, 0, 0);
        cJSON_Delete(v);
        v = NULL;
    }
    /* as the comparators read it: "\u0000" kept (C0 80), a repeated key's last value only */
    if (arb_json_parse((const char *)data, size, ARB_JSON_ALLOW_NUL | ARB_JSON_LAST_KEY_WINS, &v,
                       &err) == ARB_OK) {
        round_trip(v, 1, ARB_JSON_ALLOW_NUL);
        cJSON_Delete(v);
    }
    return 0;
}
