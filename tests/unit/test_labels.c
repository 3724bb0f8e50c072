/*
 * test_labels.c - human labels in the store (labels.h) on a real SQLite file
 * (store_fixture.c): two annotators' labels stored, one replaced keeping when
 * it was first made, the winner derived under both blind orders and both
 * display orders, every refusal, the labelling queue (arb_store_label_next)
 * skipping what is labelled and pairs missing an output, the annotators, a
 * selection of cases, and the JSONL that `calibrate --run` reads, exactly and
 * read back by its loader (arb_calib_load_named_text).
 *
 * The run has three systems (baseline, candidate, other: three pairs a case)
 * and five cases; c3 has no output of the candidate.  Each case's pairs are
 * blinded alternately: in c1, c3, c5 the later system is shown first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/buf.h"
#include "arbiter/calibrate.h"
#include "arbiter/labels.h"
#include "arbiter/select.h"
#include "arbiter/status.h"
#include "arbiter/store.h"
#include "store_fixture.h"

static const char *const systems[3] = {"baseline", "candidate", "other"};

/* The pair (i, j), i < j, of case k as its blinding row names it. */
static void pair_of(int k, int i, int j, const char **a, const char **b)
{
    int swap = k % 2 == 1; /* c1, c3, c5 (k 1, 3, 5) show the later system first */

    *a = systems[swap ? j : i];
    *b = systems[swap ? i : j];
}

static void put_output(struct arb_store *st, int64_t run, const char *case_id, const char *sys)
{
    struct arb_output_row o = {case_id, sys, "", "text", 4, 0, "00", NULL, 0};
    struct arb_err err = {{0}};

    cr_assert_eq(arb_store_put_output(st, run, &o, &err), ARB_OK, "%s", err.msg);
}

/* The run of the file comment (id 1), in a store open for writing. */
static struct arb_store *fill(void)
{
    struct arb_store *st = fx_open_store(0);
    struct arb_run_row r = {
        .suite_path = "suite.json",
        .suite_name = "labels",
        .suite_sha256 = "00",
        .suite_json = "{}",
        .systems_json = "[{\"name\":\"baseline\"},{\"name\":\"candidate\"},{\"name\":\"other\"}]",
        .version = "0.1.0",
    };
    struct arb_err err = {{0}};
    int64_t id = 0;

    cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_run_create(st, &r, &id, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(id, 1);
    for (int k = 1; k <= 5; k++) {
        char case_id[8];

        snprintf(case_id, sizeof(case_id), "c%d", k);
        cr_assert_eq(arb_store_put_case(st, 1, case_id, k - 1, "q", NULL, "{}", &err), ARB_OK, "%s",
                     err.msg);
        for (int i = 0; i < 3; i++)
            if (!(k == 3 && i == 1))
                put_output(st, 1, case_id, systems[i]);
        for (int i = 0; i < 3; i++)
            for (int j = i + 1; j < 3; j++) {
                const char *a, *b;

                pair_of(k, i, j, &a, &b);
                cr_assert_eq(arb_store_put_blinding(st, 1, case_id, a, b, "00", &err), ARB_OK, "%s",
                             err.msg);
            }
    }
    cr_assert_eq(arb_store_commit(st, &err), ARB_OK, "%s", err.msg);
    return st;
}

/* A label of the pair (i, j) of case k, shown in its blind order unless flipped. */
static struct arb_label_row label(int k, int i, int j, const char *annotator, int flipped,
                                  const char *choice)
{
    static char ids[6][8];
    struct arb_label_row l;

    memset(&l, 0, sizeof(l));
    snprintf(ids[k], sizeof(ids[k]), "c%d", k);
    l.run = 1;
    l.case_id = ids[k];
    pair_of(k, i, j, &l.system_a, &l.system_b);
    l.annotator = annotator;
    l.shown_first = flipped ? l.system_b : l.system_a;
    l.choice = choice;
    return l;
}

static void put(struct arb_store *st, const struct arb_label_row *l)
{
    struct arb_err err = {{0}};

    cr_assert_eq(arb_store_put_label(st, l, &err), ARB_OK, "%s", err.msg);
}

/* ---- reading back ------------------------------------------------------------------------ */

struct seen {
    struct arb_buf text; /* "case annotator shown_first choice winner criteria note;" */
    int n;
};

static int see(void *ctx, const struct arb_label_row *l)
{
    struct seen *s = ctx;

    cr_assert_eq(l->run, 1);
    cr_assert_eq(strlen(l->created_at), 20, "created_at '%s'", l->created_at);
    cr_assert_eq(strlen(l->updated_at), 20, "updated_at '%s'", l->updated_at);
    cr_assert_eq(arb_buf_printf(&s->text, "%s %s/%s %s %s %s %s %s %s;", l->case_id, l->system_a,
                                l->system_b, l->annotator, l->shown_first, l->choice, l->winner,
                                l->criteria_json ? l->criteria_json : "-", l->note ? l->note : "-"),
                 ARB_OK);
    s->n++;
    return 0;
}

static char *all_labels(struct arb_store *st, const char *case_id, const char *annotator)
{
    struct seen s;
    struct arb_err err = {{0}};
    size_t len;

    memset(&s, 0, sizeof(s));
    arb_buf_init(&s.text, 0);
    cr_assert_eq(arb_buf_adds(&s.text, ""), ARB_OK);
    cr_assert_eq(arb_store_labels(st, 1, case_id, annotator, see, &s, &err), ARB_OK, "%s", err.msg);
    return arb_buf_detach(&s.text, &len);
}

Test(labels, should_store_two_annotators_and_derive_the_winner_in_both_blind_orders,
     .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = fill();
    struct arb_label_row l;
    char *got;

    /* c1 blinds baseline/candidate as candidate first; c2 as baseline first. */
    l = label(1, 0, 1, "alice", 0, "A"); /* shown candidate first: A is the candidate */
    l.criteria_json = "{\"helpfulness\": \"B\", \"clarity\": \"tie\"}";
    l.note = "sharper";
    put(st, &l);
    l = label(2, 0, 1, "alice", 0, "B"); /* shown baseline first: B is the candidate */
    put(st, &l);
    l = label(1, 0, 1, "bob", 1, "A"); /* shown baseline first, against the blind order */
    put(st, &l);
    l = label(2, 0, 1, "bob", 1, "tie");
    l.note = "";            /* an empty note is none */
    l.criteria_json = "{}"; /* no criterion judged is none */
    put(st, &l);
    l = label(2, 1, 2, "bob", 0, "B"); /* another pair: candidate/other, candidate first */
    put(st, &l);
    got = all_labels(st, NULL, NULL);
    cr_assert_str_eq(got, "c1 candidate/baseline alice candidate A candidate "
                          "{\"clarity\":\"tie\",\"helpfulness\":\"B\"} sharper;"
                          "c1 candidate/baseline bob baseline A baseline - -;"
                          "c2 baseline/candidate alice baseline B candidate - -;"
                          "c2 baseline/candidate bob candidate tie TIE - -;"
                          "c2 candidate/other bob candidate B other - -;");
    free(got);
    got = all_labels(st, "c2", "bob");
    cr_assert_str_eq(got, "c2 baseline/candidate bob candidate tie TIE - -;"
                          "c2 candidate/other bob candidate B other - -;");
    free(got);
    arb_store_close(st);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM labels"), 5);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM labels WHERE created_at = updated_at AND "
                            "created_at GLOB '20[0-9][0-9]-[01][0-9]-[0-3][0-9]T*Z'"),
                 5);
}

Test(labels, should_replace_a_label_and_keep_when_it_was_first_made, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_store *st = fill();
    struct arb_label_row l = label(4, 0, 1, "alice", 0, "A");
    char *got;

    l.note = "first look";
    l.criteria_json = "{\"helpfulness\":\"A\"}";
    put(st, &l);
    fx_raw_exec("UPDATE labels SET created_at = '2020-01-01T00:00:00Z', "
                "updated_at = '2020-01-01T00:00:00Z'");
    l = label(4, 0, 1, "alice", 1, "A"); /* shown the other way this time */
    put(st, &l);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM labels"), 1);
    cr_assert_eq(fx_raw_int("SELECT created_at = '2020-01-01T00:00:00Z' AND updated_at > "
                            "'2020' AND updated_at <> created_at FROM labels"),
                 1);
    got = all_labels(st, NULL, "alice");
    cr_assert_eq(strncmp(got, "c4 baseline/candidate alice candidate A candidate - -;", 53), 0,
                 "%s", got);
    free(got);
    arb_store_close(st);
}

/* put l and expect ARB_EUSAGE with msg in the message. */
static void refused(struct arb_store *st, const struct arb_label_row *l, const char *msg)
{
    struct arb_err err = {{0}};

    cr_assert_eq(arb_store_put_label(st, l, &err), ARB_EUSAGE, "accepted, wanted '%s'", msg);
    cr_assert(strstr(err.msg, msg), "'%s' does not say '%s'", err.msg, msg);
}

Test(labels, should_refuse_what_is_not_a_label_of_the_run, .init = fx_setup, .fini = fx_teardown)
{
    static const char long_name[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                                    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"; /* 101 bytes */
    struct arb_store *st = fill(), *ro;
    struct arb_label_row l = label(2, 0, 1, "alice", 0, "A"), x;
    struct arb_err err = {{0}};
    char *big;

    x = l, x.run = 99;
    refused(st, &x, "label: no run 99 in");
    x = l, x.case_id = "c9";
    refused(st, &x, "case 'c9' is not a case of run 1");
    x = l, x.system_a = l.system_b, x.system_b = l.system_a, x.shown_first = l.system_b;
    refused(st, &x,
            "case 'c2' of run 1 blinds the pair as 'baseline' vs 'candidate', not "
            "'candidate' vs 'baseline'");
    x = l, x.system_b = "nobody";
    refused(st, &x, "'baseline' vs 'nobody' is not a pair of case 'c2' of run 1");
    x = l, x.shown_first = "other";
    refused(st, &x, "the system shown first ('other') is not 'baseline' or 'candidate'");
    x = l, x.shown_first = NULL;
    refused(st, &x, "the system shown first");
    x = l, x.choice = "a";
    refused(st, &x, "choice 'a' is not \"A\", \"B\" or \"tie\"");
    x = l, x.choice = "TIE";
    refused(st, &x, "choice 'TIE'");
    x = l, x.choice = NULL;
    refused(st, &x, "choice ''");
    x = l, x.criteria_json = "{\"helpfulness\": ";
    refused(st, &x, "label: criteria: line 1");
    x = l, x.criteria_json = "[\"A\"]";
    refused(st, &x, "criteria: expected an object");
    x = l, x.criteria_json = "{\"helpfulness\": \"baseline\"}";
    refused(st, &x, "criteria: 'helpfulness' must be \"A\", \"B\" or \"tie\"");
    x = l, x.criteria_json = "{\"helpfulness\": 1}";
    refused(st, &x, "criteria: 'helpfulness' must be");
    x = l, x.criteria_json = "{\"helpfulness\": \"A\", \"helpfulness\": \"B\"}";
    refused(st, &x, "criteria: line 1");
    x = l, x.criteria_json = "{\"\": \"A\"}";
    refused(st, &x, "a criterion's name must be 1 to 200 bytes");
    x = l, x.annotator = "";
    refused(st, &x, "the annotator's name is empty");
    x = l, x.annotator = NULL;
    refused(st, &x, "the annotator's name is empty");
    x = l, x.annotator = long_name;
    refused(st, &x, "the annotator's name is 101 bytes long, more than 100");
    x = l, x.annotator = "ann\xff";
    refused(st, &x, "the annotator's name is not valid UTF-8 (byte 4)");
    x = l, x.annotator = "an\tn";
    refused(st, &x, "the annotator's name holds a control character (byte 3)");
    x = l, x.annotator = "ann\x7f";
    refused(st, &x, "holds a control character (byte 4)");
    x = l, x.annotator = "a\xc2\x85"; /* U+0085, a C1 control */
    refused(st, &x, "holds a control character (byte 2)");
    x = l, x.note = "\xc3\x28";
    refused(st, &x, "the note is not valid UTF-8 (byte 1)");
    big = malloc(65538);
    cr_assert_not_null(big);
    memset(big, 'n', 65537);
    big[65537] = '\0';
    x = l, x.note = big;
    refused(st, &x, "the note is 65537 bytes long, more than 65536");
    x = l, x.case_id = NULL;
    refused(st, &x, "label: no case or pair given");
    cr_assert_eq(arb_store_put_label(st, NULL, &err), ARB_EUSAGE);
    free(big);
    arb_store_close(st);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM labels"), 0);

    /* At the edges: 100 bytes, a name in any script, U+00A0 (not a control). */
    st = fx_open_store(0);
    x = l, x.annotator = long_name + 1;
    put(st, &x);
    x = l, x.annotator = "Zoë Łukasz 名前\xc2\xa0";
    put(st, &x);
    arb_store_close(st);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM labels"), 2);

    /* A reader stores nothing. */
    ro = fx_open_store(ARB_STORE_READONLY);
    cr_assert_eq(arb_store_put_label(ro, &l, &err), ARB_EUSAGE);
    cr_assert(strstr(err.msg, "read-only"), "%s", err.msg);
    arb_store_close(ro);
}

/* ---- the labelling queue ------------------------------------------------------------------- */

/* Label every pair the queue gives annotator, from after, as A; the pairs as "c1:a/b ...". */
static char *drain(struct arb_store *st, const char *annotator, int64_t after)
{
    struct arb_buf seq;
    struct arb_label_next next;
    struct arb_err err = {{0}};
    size_t len;

    arb_buf_init(&seq, 0);
    cr_assert_eq(arb_buf_adds(&seq, ""), ARB_OK);
    for (int guard = 0; guard < 20; guard++) {
        struct arb_label_row l;

        cr_assert_eq(arb_store_label_next(st, 1, annotator, after, &next, &err), ARB_OK, "%s",
                     err.msg);
        if (!next.found)
            break;
        cr_assert_eq(arb_buf_printf(&seq, "%s%s:%s/%s", seq.len ? " " : "", next.case_id,
                                    next.system_a, next.system_b),
                     ARB_OK);
        memset(&l, 0, sizeof(l));
        l.run = 1;
        l.case_id = next.case_id;
        l.system_a = next.system_a;
        l.system_b = next.system_b;
        l.annotator = annotator;
        l.shown_first = next.system_a;
        l.choice = "A";
        put(st, &l);
        arb_label_next_release(&next);
    }
    return arb_buf_detach(&seq, &len);
}

Test(labels, should_queue_unlabelled_pairs_in_order_skipping_missing_outputs, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_store *st = fill();
    struct arb_label_row l = label(1, 0, 2, "alice", 0, "tie");
    struct arb_label_next next;
    struct arb_err err = {{0}};
    char *got;

    put(st, &l); /* alice has already labelled c1's baseline/other */
    /* bob's queue from c3 on: c3's pairs with the candidate (no output) are skipped. */
    cr_assert_eq(arb_store_label_next(st, 1, "bob", 1, &next, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(next.found, 1);
    cr_assert_eq(next.seq, 2);
    cr_assert_str_eq(next.case_id, "c3");
    cr_assert_str_eq(next.system_a, "other");
    cr_assert_str_eq(next.system_b, "baseline");
    arb_label_next_release(&next);
    got = drain(st, "alice", -1);
    cr_assert_str_eq(got, "c1:candidate/baseline c1:other/candidate "
                          "c2:baseline/candidate c2:baseline/other c2:candidate/other "
                          "c3:other/baseline "
                          "c4:baseline/candidate c4:baseline/other c4:candidate/other "
                          "c5:candidate/baseline c5:other/baseline c5:other/candidate");
    free(got);
    cr_assert_eq(arb_store_label_next(st, 1, "alice", -1, &next, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(next.found, 0);
    cr_assert_null(next.case_id);
    /* bob's queue is his own: after c4 (seq 3), c5's three pairs. */
    got = drain(st, "bob", 3);
    cr_assert_str_eq(got, "c5:candidate/baseline c5:other/baseline c5:other/candidate");
    free(got);
    arb_store_close(st);
}

static int on_pair_text(void *ctx, const char *a, const char *b)
{
    struct arb_buf *t = ctx;

    cr_assert_eq(arb_buf_printf(t, "%s%s/%s", t->len ? " " : "", a, b), ARB_OK);
    return 0;
}

/* A case's pairs in the queue's order (the suite's order of pairs), each in its blind order. */
Test(labels, should_list_a_case_pairs_in_the_queue_order, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = fill();
    struct arb_err err = {{0}};
    struct arb_buf t;

    arb_buf_init(&t, 0);
    cr_assert_eq(arb_buf_adds(&t, ""), ARB_OK);
    cr_assert_eq(arb_store_label_pairs(st, 1, "c1", on_pair_text, &t, &err), ARB_OK, "%s", err.msg);
    cr_assert_str_eq(t.ptr, "candidate/baseline other/baseline other/candidate");
    arb_buf_reset(&t);
    cr_assert_eq(arb_buf_adds(&t, ""), ARB_OK);
    cr_assert_eq(arb_store_label_pairs(st, 1, "c2", on_pair_text, &t, &err), ARB_OK, "%s", err.msg);
    cr_assert_str_eq(t.ptr, "baseline/candidate baseline/other candidate/other");
    arb_buf_reset(&t);
    cr_assert_eq(arb_buf_adds(&t, ""), ARB_OK);
    cr_assert_eq(arb_store_label_pairs(st, 1, "nope", on_pair_text, &t, &err), ARB_OK, "%s",
                 err.msg);
    cr_assert_str_eq(t.ptr, "");
    arb_buf_release(&t);
    arb_store_close(st);
}

/* A case id of 4 KB and system names of 300 bytes come out of the queue whole. */
Test(labels, should_queue_a_pair_with_long_names_whole, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(0);
    char id[4097], a[301], b[301], systems_json[700];
    struct arb_run_row r = {.suite_path = "suite.json",
                            .suite_name = "long",
                            .suite_sha256 = "00",
                            .suite_json = "{}",
                            .version = "0.1.0"};
    struct arb_label_next next;
    struct arb_err err = {{0}};
    int64_t run = 0;

    memset(id, 'i', sizeof(id) - 1);
    id[sizeof(id) - 1] = '\0';
    memset(a, 'a', sizeof(a) - 1);
    a[sizeof(a) - 1] = '\0';
    memset(b, 'b', sizeof(b) - 1);
    b[sizeof(b) - 1] = '\0';
    snprintf(systems_json, sizeof(systems_json), "[{\"name\":\"%s\"},{\"name\":\"%s\"}]", a, b);
    r.systems_json = systems_json;
    cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_run_create(st, &r, &run, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_put_case(st, run, id, 0, "q", NULL, "{}", &err), ARB_OK, "%s", err.msg);
    put_output(st, run, id, a);
    put_output(st, run, id, b);
    cr_assert_eq(arb_store_put_blinding(st, run, id, b, a, "00", &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_commit(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_label_next(st, run, "ann", -1, &next, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(next.found, 1);
    cr_assert_str_eq(next.case_id, id);
    cr_assert_str_eq(next.system_a, b);
    cr_assert_str_eq(next.system_b, a);
    arb_label_next_release(&next);
    cr_assert_null(next.case_id);
    arb_store_close(st);
}

struct who {
    char text[200];
};

static int see_annotator(void *ctx, const char *annotator, int64_t n)
{
    struct who *w = ctx;
    size_t at = strlen(w->text);

    snprintf(w->text + at, sizeof(w->text) - at, "%s=%lld;", annotator, (long long)n);
    return 0;
}

Test(labels, should_list_annotators_and_follow_a_selection, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = fill();
    struct arb_label_row l;
    struct arb_err err = {{0}};
    struct who w;
    static const char *const ids[] = {"c2"};
    struct arb_case_select sel = {0, ids, 1};
    char *got;

    l = label(1, 0, 1, "zed", 0, "A");
    put(st, &l);
    l = label(2, 0, 1, "Zed", 0, "A");
    put(st, &l);
    l = label(2, 1, 2, "zed", 0, "B");
    put(st, &l);
    memset(&w, 0, sizeof(w));
    cr_assert_eq(arb_store_label_annotators(st, 1, see_annotator, &w, &err), ARB_OK, "%s", err.msg);
    cr_assert_str_eq(w.text, "Zed=1;zed=2;"); /* bytewise: 'Z' before 'z' */
    arb_store_close(st);

    /* A reader limited to c2 (report, export --cases) sees c2's labels only. */
    st = fx_open_store(ARB_STORE_READONLY);
    cr_assert_eq(arb_store_scope(st, 1, &sel, &err), ARB_OK, "%s", err.msg);
    got = all_labels(st, NULL, NULL);
    cr_assert_str_eq(got, "c2 baseline/candidate Zed baseline A baseline - -;"
                          "c2 candidate/other zed candidate B other - -;");
    free(got);
    memset(&w, 0, sizeof(w));
    cr_assert_eq(arb_store_label_annotators(st, 1, see_annotator, &w, &err), ARB_OK, "%s", err.msg);
    cr_assert_str_eq(w.text, "Zed=1;zed=1;");
    arb_store_close(st);
}

/* ---- the JSONL of calibrate --run ------------------------------------------------------------ */

static char *jsonl(struct arb_store *st, const char *const *annotators, size_t n)
{
    struct arb_buf out;
    struct arb_err err = {{0}};
    size_t len;

    arb_buf_init(&out, 0);
    cr_assert_eq(arb_buf_adds(&out, ""), ARB_OK);
    cr_assert_eq(arb_labels_jsonl(st, 1, annotators, n, &out, &err), ARB_OK, "%s", err.msg);
    return arb_buf_detach(&out, &len);
}

Test(labels, should_write_the_first_pair_as_calibrate_reads_it, .init = fx_setup,
     .fini = fx_teardown)
{
    static const char want[] =
        "{\"id\":\"c1\",\"human\":[\"candidate\",\"baseline\"],"
        "\"criteria\":{\"clarity\":[\"baseline\",\"tie\"],\"helpfulness\":[\"candidate\"]},"
        "\"note\":\"alice: A \\\"quoted\\\" \\u0001 word\\nbob: line one\\nline two\"}\n"
        "{\"id\":\"c2\",\"human\":[\"tie\"]}\n"
        "{\"id\":\"c4\",\"human\":[\"candidate\",\"candidate\"],"
        "\"criteria\":{\"helpfulness\":[\"baseline\"]}}\n";
    static const char *const bob[] = {"bob", "nobody"};
    struct arb_store *st = fill();
    struct arb_calib_set *set = NULL;
    const char *const pair[2] = {"baseline", "candidate"};
    struct arb_label_row l;
    struct arb_err err = {{0}};
    char *got;

    /* c1 shows candidate first: alice's A is the candidate, her clarity B the baseline. */
    l = label(1, 0, 1, "alice", 0, "A");
    l.criteria_json = "{\"helpfulness\":\"A\",\"clarity\":\"B\"}";
    l.note = "A \"quoted\" \x01 word";
    put(st, &l);
    l = label(1, 0, 1, "bob", 1, "A"); /* bob was shown the baseline first */
    l.criteria_json = "{\"clarity\":\"tie\"}";
    l.note = "line one\nline two";
    put(st, &l);
    l = label(2, 0, 1, "alice", 0, "tie");
    put(st, &l);
    l = label(4, 0, 1, "bob", 0, "B");
    put(st, &l);
    l = label(4, 0, 1, "alice", 1, "A");
    l.criteria_json = "{\"helpfulness\":\"B\"}";
    put(st, &l);
    l = label(5, 1, 2, "alice", 0, "A"); /* not the first pair: not written */
    put(st, &l);
    got = jsonl(st, NULL, 0);
    cr_assert_str_eq(got, want);
    /* The loader of a LABELS file reads it as the same labels. */
    cr_assert_eq(
        arb_calib_load_named_text(got, strlen(got), "labels of run 1 in x.db", pair, &set, &err),
        ARB_OK, "%s", err.msg);
    cr_assert_eq(set->n, 3);
    cr_assert_str_eq(set->items[0].id, "c1");
    cr_assert_eq(set->items[0].n_human, 2);
    cr_assert_eq(set->items[0].human[0], ARB_V_2);
    cr_assert_eq(set->items[0].human[1], ARB_V_1);
    cr_assert_eq(set->items[0].n_crit, 2);
    cr_assert_eq(set->items[1].human[0], ARB_V_TIE);
    arb_calib_set_free(set);
    free(got);
    got = jsonl(st, bob, 2);
    cr_assert_str_eq(got, "{\"id\":\"c1\",\"human\":[\"baseline\"],"
                          "\"criteria\":{\"clarity\":[\"tie\"]},"
                          "\"note\":\"bob: line one\\nline two\"}\n"
                          "{\"id\":\"c4\",\"human\":[\"candidate\"]}\n");
    free(got);
    got = jsonl(st, (const char *const[]){"carol"}, 1);
    cr_assert_str_eq(got, "");
    free(got);
    arb_store_close(st);
}

Test(labels, should_name_the_text_in_the_loaders_errors, .init = fx_setup, .fini = fx_teardown)
{
    const char *const pair[2] = {"baseline", "candidate"};
    struct arb_calib_set *set = NULL;
    struct arb_err err = {{0}};
    const char text[] = "{\"id\":\"c1\",\"human\":[\"baseline\"]}\n"
                        "{\"id\":\"c2\",\"human\":[\"winner\"]}"; /* no final LF */

    cr_assert_eq(
        arb_calib_load_named_text(text, strlen(text), "labels of run 1 in x.db", pair, &set, &err),
        ARB_ESCHEMA);
    cr_assert_null(set);
    cr_assert(strstr(err.msg, "labels of run 1 in x.db:2:21: /human/0: 'winner' is not a "
                              "system of this run"),
              "%s", err.msg);
    cr_assert_eq(arb_calib_load_named_text("", 0, "labels of run 1 in x.db", pair, &set, &err),
                 ARB_ESCHEMA);
    cr_assert_str_eq(err.msg, "labels of run 1 in x.db: no labelled items");
    /* The last line without its LF is read like any other. */
    cr_assert_eq(
        arb_calib_load_named_text(text, (size_t)(strchr(text, '\n') - text), "t", pair, &set, &err),
        ARB_OK, "%s", err.msg);
    cr_assert_eq(set->n, 1);
    arb_calib_set_free(set);
}

Test(labels, should_refuse_the_jsonl_of_no_pair, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = fill();
    struct arb_run_row r = {.suite_path = "s",
                            .suite_name = "one",
                            .suite_sha256 = "00",
                            .suite_json = "{}",
                            .systems_json = "[{\"name\":\"solo\"}]",
                            .version = "0.1.0"};
    struct arb_buf out;
    struct arb_err err = {{0}};
    int64_t id = 0;

    cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_run_create(st, &r, &id, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_commit(st, &err), ARB_OK, "%s", err.msg);
    arb_buf_init(&out, 0);
    cr_assert_eq(arb_labels_jsonl(st, 42, NULL, 0, &out, &err), ARB_EUSAGE);
    cr_assert(strstr(err.msg, "no run 42 in"), "%s", err.msg);
    cr_assert_eq(arb_labels_jsonl(st, id, NULL, 0, &out, &err), ARB_EUSAGE);
    cr_assert(strstr(err.msg, "has 1 system: labels are of a pair"), "%s", err.msg);
    cr_assert_eq(out.len, 0);
    arb_buf_release(&out);
    arb_store_close(st);
}
