/*
 * status.c - descriptions of status codes and the error buffer helpers.
 *
 * arb_strerror is a switch over every value with no default, so that -Wswitch
 * names any new status nobody described (the same trick as curl's strerror.c).
 */
#include <stdio.h>
#include <string.h>

#include "arbiter/status.h"

const char *arb_strerror(enum arb_status st)
{
    switch (st) {
    case ARB_OK:
        return "no error";
    case ARB_ENOMEM:
        return "out of memory";
    case ARB_EIO:
        return "input/output error";
    case ARB_EPARSE:
        return "malformed input";
    case ARB_ESCHEMA:
        return "input does not have the expected shape";
    case ARB_EUSAGE:
        return "invalid request";
    case ARB_ETOOBIG:
        return "input exceeds a size or depth limit";
    case ARB_EINTERNAL:
        return "internal library failure";
    case ARB_EDB:
        return "database failure";
    case ARB_EREMOTE:
        return "remote service failure";
    }
    return "unknown status";
}

enum arb_status arb_err_set(struct arb_err *err, enum arb_status st, const char *fmt, ...)
{
    va_list ap;

    if (!err)
        return st;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    return st;
}

enum arb_status arb_err_prefix(struct arb_err *err, enum arb_status st, const char *fmt, ...)
{
    char prefix[sizeof(err->msg)];
    char old[sizeof(err->msg)];
    char both[2 * sizeof(err->msg) + 2];
    va_list ap;

    if (!err)
        return st;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof(prefix), fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof(old));
    old[sizeof(old) - 1] = '\0';
    /* Join in a buffer large enough for both, then truncate into msg. */
    if (old[0])
        snprintf(both, sizeof(both), "%s: %s", prefix, old);
    else
        snprintf(both, sizeof(both), "%s", prefix);
    memcpy(err->msg, both, sizeof(err->msg) - 1);
    err->msg[sizeof(err->msg) - 1] = '\0';
    return st;
}
