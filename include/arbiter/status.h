/*
 * status.h - status codes and the caller-owned error buffer.
 *
 * Every library call that can fail returns an enum arb_status and, when given
 * a struct arb_err, writes one line of detail into it: what was wrong, where
 * (file, line:column or JSON path) and what was expected.  The buffer is left
 * untouched on success, so calls can be chained and the first failure kept.
 * The library never prints and never exits; src/cli/ maps statuses to exit codes.
 */
#ifndef ARBITER_STATUS_H
#define ARBITER_STATUS_H

#include <stdarg.h>

enum arb_status {
    ARB_OK = 0,
    ARB_ENOMEM,    /* an allocation failed */
    ARB_EIO,       /* a file could not be read or written */
    ARB_EPARSE,    /* input is not well-formed (JSON, JSONL, UTF-8) */
    ARB_ESCHEMA,   /* input is well-formed but not what was expected */
    ARB_EUSAGE,    /* a caller or user asked for something impossible */
    ARB_ETOOBIG,   /* input exceeds a documented size or depth cap */
    ARB_EINTERNAL, /* a library misbehaved (PCRE2, OpenSSL) */
    ARB_EDB,       /* the database: locked, unwritable, not a database, full */
    ARB_EREMOTE    /* a remote service refused or failed: the judge's 401/403 */
};

/* One line of detail.  Messages are lower case with no full stop. */
struct arb_err {
    char msg[1024];
};

/* A static, human description of a status ("out of memory"). Never NULL. */
const char *arb_strerror(enum arb_status st);

/*
 * Format a message into err (which may be NULL) and return st, so that
 * `return arb_err_set(err, ARB_EPARSE, "...", ...)` reads as one step.
 * Long messages are truncated, never overflowed.
 */
enum arb_status arb_err_set(struct arb_err *err, enum arb_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* As arb_err_set, but prefixes the existing message: "prefix: old message". */
enum arb_status arb_err_prefix(struct arb_err *err, enum arb_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
