/*
 * export_names.c - the file names of `export --comparisons` (export_names.h).
 *
 * Case ids and system names are untrusted and may hold any byte, so each is
 * escaped: [A-Za-z0-9_-] and '.' (but not as a component's first byte, so no
 * name is hidden or "..") are kept, every other byte is written %XX.  '~' is
 * never kept, so it can separate components: CASE.json for a run of two
 * systems, CASE~A~B.json (A the system shown first) for more.  The escaping can
 * be undone and no component can hold the separator, so two verdicts never get
 * the same name: CASE.A-vs-B.json, the earlier form, gave systems "a.b", "b"
 * and cases "c", "c.a" one file for two verdicts.
 *
 * A name over CLI_EXPORT_NAME_MAX bytes (a case id of 60 emoji escapes to 720)
 * keeps its first bytes, never cutting an escape, and ends in "~~", 32 hex
 * digits of the SHA-256 of the whole name, and ".json".  No whole name holds
 * "~~" (components are never empty), so a cut name cannot meet a whole one;
 * two cut names would need a SHA-256 collision in 128 bits.  As a last guard
 * the export remembers every name it gave and refuses a repeat, naming both
 * verdicts, rather than let one file replace another.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "export_names.h"

#define HASH_HEX 32 /* hex digits of the SHA-256 kept in a cut name */

void cli_export_names_init(struct cli_export_names *names)
{
    memset(names, 0, sizeof(*names));
    arb_strset_init(&names->seen);
}

void cli_export_names_release(struct cli_export_names *names)
{
    for (size_t i = 0; i < names->n; i++)
        free(names->owners[i]);
    free(names->owners);
    arb_strset_release(&names->seen);
    memset(names, 0, sizeof(*names));
}

static enum arb_status escape(struct arb_buf *out, const char *s)
{
    enum arb_status st = ARB_OK;

    for (size_t i = 0; !st && s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        int plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || (c == '.' && i > 0);

        st = plain ? arb_buf_addc(out, (char)c) : arb_buf_printf(out, "%%%02X", c);
    }
    return st;
}

/* Cut the whole name in out (without ".json") to fit, and add the hash of it. */
static enum arb_status cut(struct arb_buf *out)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    char hex[2 * EVP_MAX_MD_SIZE + 1];
    size_t keep = CLI_EXPORT_NAME_MAX - strlen("~~") - HASH_HEX - strlen(".json");

    if (!EVP_Digest(out->ptr, out->len, md, &n, EVP_sha256(), NULL) || n < HASH_HEX / 2)
        return ARB_EINTERNAL;
    arb_hex(md, n, hex);
    /* an escape is '%' and two digits: do not keep only part of one */
    if (out->ptr[keep - 1] == '%')
        keep -= 1;
    else if (out->ptr[keep - 2] == '%')
        keep -= 2;
    out->len = keep;
    out->ptr[keep] = '\0';
    return arb_buf_printf(out, "~~%.*s", HASH_HEX, hex);
}

enum arb_status cli_export_name(struct arb_buf *out, const char *case_id, const char *a,
                                const char *b)
{
    enum arb_status st;

    arb_buf_reset(out);
    st = escape(out, case_id);
    if (!st && b)
        st = arb_buf_addc(out, '~');
    if (!st && b)
        st = escape(out, a);
    if (!st && b)
        st = arb_buf_addc(out, '~');
    if (!st && b)
        st = escape(out, b);
    if (!st && out->len + strlen(".json") > CLI_EXPORT_NAME_MAX)
        st = cut(out);
    return st ? st : arb_buf_adds(out, ".json");
}

/* "case 'X'" or "case 'X' (A vs B)", malloc'd. */
static char *owner(const char *case_id, const char *a, const char *b)
{
    struct arb_buf o;

    arb_buf_init(&o, 0);
    if (arb_buf_printf(&o, "case '%s'", case_id) ||
        (b && arb_buf_printf(&o, " (%s vs %s)", a, b))) {
        arb_buf_release(&o);
        return NULL;
    }
    return arb_buf_detach(&o, NULL);
}

enum arb_status cli_export_names_claim(struct cli_export_names *names, const char *name,
                                       const char *case_id, const char *a, const char *b,
                                       char *msg, size_t cap)
{
    size_t first = 0;
    int added = 0;
    char *who;
    enum arb_status st;

    if (arb_strset_get(&names->seen, name, &first)) {
        who = owner(case_id, a, b);
        snprintf(msg, cap,
                 "%s and %s would both be written to '%s': refusing to let one replace the "
                 "other",
                 names->owners[first], who ? who : case_id, name);
        free(who);
        return ARB_EUSAGE;
    }
    if (names->n == names->cap) {
        size_t ncap = names->cap ? names->cap * 2 : 64;
        char **v = realloc(names->owners, ncap * sizeof(*v));

        if (!v)
            return ARB_ENOMEM;
        names->owners = v;
        names->cap = ncap;
    }
    who = owner(case_id, a, b);
    if (!who)
        return ARB_ENOMEM;
    st = arb_strset_add(&names->seen, name, names->n, &added, NULL);
    if (st) {
        free(who);
        return st;
    }
    names->owners[names->n++] = who;
    return ARB_OK;
}
