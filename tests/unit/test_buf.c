/* Unit tests for the capped buffer and the error buffer. */
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/buf.h"
#include "arbiter/status.h"

Test(buf, should_append_and_stay_terminated)
{
    struct arb_buf b;

    arb_buf_init(&b, 0);
    cr_assert_eq(arb_buf_adds(&b, "abc"), ARB_OK);
    cr_assert_eq(arb_buf_printf(&b, "-%d-", 42), ARB_OK);
    cr_assert_str_eq(b.ptr, "abc-42-");
    cr_assert_eq(b.len, 7);
    arb_buf_release(&b);
}

Test(buf, should_refuse_growth_past_the_cap)
{
    struct arb_buf b;

    arb_buf_init(&b, 8);
    cr_assert_eq(arb_buf_adds(&b, "1234567"), ARB_OK);
    cr_assert_eq(arb_buf_addc(&b, 'x'), ARB_ETOOBIG);
    cr_assert_str_eq(b.ptr, "1234567");
    arb_buf_release(&b);
}

Test(buf, should_format_long_output)
{
    struct arb_buf b;
    char big[1000];

    memset(big, 'z', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    arb_buf_init(&b, 0);
    cr_assert_eq(arb_buf_printf(&b, "<%s>", big), ARB_OK);
    cr_assert_eq(b.len, 1001);
    cr_assert_eq(b.ptr[1000], '>');
    arb_buf_release(&b);
}

Test(buf, should_detach_an_empty_buffer_as_empty_string)
{
    struct arb_buf b;
    size_t n = 99;
    char *s;

    arb_buf_init(&b, 0);
    s = arb_buf_detach(&b, &n);
    cr_assert_not_null(s);
    cr_assert_str_eq(s, "");
    cr_assert_eq(n, 0);
    free(s);
}

Test(err, should_prefix_and_keep_untouched_on_success)
{
    struct arb_err e = {{0}};

    cr_assert_eq(arb_err_set(&e, ARB_EPARSE, "bad '%s'", "x"), ARB_EPARSE);
    cr_assert_eq(arb_err_prefix(&e, ARB_EPARSE, "suite.json:3:4"), ARB_EPARSE);
    cr_assert_str_eq(e.msg, "suite.json:3:4: bad 'x'");
    cr_assert_str_eq(arb_strerror(ARB_ENOMEM), "out of memory");
}

Test(hex, should_write_lowercase_digits_and_a_nul)
{
    const unsigned char in[] = {0x00, 0x0f, 0x10, 0x7f, 0x80, 0xab, 0xff};
    char out[2 * sizeof(in) + 2];

    memset(out, 'z', sizeof(out));
    arb_hex(in, sizeof(in), out);
    cr_assert_str_eq(out, "000f107f80abff");
    cr_assert_eq(out[2 * sizeof(in) + 1], 'z', "wrote past the NUL");
    arb_hex(in, 0, out);
    cr_assert_str_eq(out, "");
}
