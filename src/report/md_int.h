/*
 * md_int.h - what the markdown writers of src/report/ (markdown.c, md_stats.c,
 * md_strategy.c) share: reading a figure out of the report tree, writing it as
 * a table cell, and table-safe text.
 */
#ifndef ARBITER_MD_INT_H
#define ARBITER_MD_INT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "arbiter/buf.h"
#include "arbiter/status.h"

/* o's member k as a number, NAN when absent or not a number. */
double md_num(const cJSON *o, const char *k);

/* o's member k as a string, "" when absent or not a string. */
const char *md_str(const cJSON *o, const char *k);

/* A table cell: "-" for NAN, else v with decimals ("12.5%" of 0.125 when percent). */
void md_cell(char *out, size_t len, double v, int decimals, int percent);

/* "[lo, hi]" of an interval [lo, hi] as md_cell writes each end; "-" when iv is not one. */
void md_ci(char *out, size_t len, const cJSON *iv, int decimals, int percent);

/* Table-safe text: a pipe escaped, a line break as a space. */
enum arb_status md_text(struct arb_buf *out, const char *s);

/* md_text of about the first max bytes of s (cut on a UTF-8 boundary), then " [...]" when
 * it was cut. */
enum arb_status md_text_cut(struct arb_buf *out, const char *s, size_t max);

#endif
