-- Migration 10: a check record keeps its output's text once, its case's expected value once,
-- and each distinct record text of a run once (issue 21: every check record repeated its
-- output's text, and a check without an expected value of its own the case's; most records of
-- a run are the same text but for those).
--
-- check_texts holds the texts of a run's check records.  With expected_at and observed_at
-- NULL, body is the whole record exactly as it was written.  observed_at not NULL: the
-- record's "observed" member was the text of the output it checked, and body has the four
-- bytes null in its place, at byte offset observed_at; that output is the one row of outputs
-- of the check's run, case and system with file '' and the lowest trial (the compared trial's
-- single file), and its text goes back as the record writer writes a JSON string
-- (src/compare/record.c: the bytes it was given, escaped, with U+FFFD for each byte that is
-- not UTF-8).  expected_at not NULL: the record's "expected" member was its case's expected
-- value (the check had none of its own), and body has null in its place at that offset (before
-- observed_at's); it goes back as the case's expected_json (RFC 8785 text, as the record
-- writes it).  src/store/store_checks.c puts both back byte for byte; v_checks does the same
-- in SQL (with json_quote: the same bytes for text that is UTF-8 without NUL).
--
-- checks.record is the id of its text in check_texts.  The store writes a record's text once
-- per run and refers to it from every check record with the same text (it remembers the
-- texts it wrote lately; a text it forgot may be written again).  A record that may still be
-- replaced (verdict unresolved: an llm_judge check, decided when the judge answers) gets a
-- text of its own, and replacing it replaces that text.  record is no foreign key: a key would
-- make deleting texts search the checks; deleting a run deletes both.
--
-- Records stored before this migration keep their whole text, one per check, with the id of
-- the check.  The table is rebuilt (ids kept) and the two views that read it are dropped
-- first and created again unchanged.
DROP VIEW IF EXISTS v_expectation_pass_rates;
DROP VIEW IF EXISTS v_system_pass_rates;
CREATE TABLE check_texts (
    id          INTEGER PRIMARY KEY,
    run         INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    expected_at INTEGER CHECK (expected_at >= 0),
    observed_at INTEGER CHECK (observed_at >= 0),
    body        TEXT NOT NULL
);
CREATE TABLE checks_v10 (
    id      INTEGER PRIMARY KEY,            -- insert order
    run     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    case_id TEXT NOT NULL,
    system  TEXT NOT NULL,
    kind    TEXT NOT NULL,
    item    TEXT NOT NULL,
    verdict TEXT NOT NULL CHECK (verdict = 'pass' OR verdict = 'fail' OR verdict = 'unresolved'),
    score   REAL,
    record  INTEGER NOT NULL,               -- check_texts(id)
    UNIQUE (run, case_id, system, kind, item)
);
INSERT INTO check_texts (id, run, expected_at, observed_at, body)
SELECT id, run, NULL, NULL, record_json FROM checks;
INSERT INTO checks_v10 (id, run, case_id, system, kind, item, verdict, score, record)
SELECT id, run, case_id, system, kind, item, verdict, score, id FROM checks;
DROP TABLE checks;
ALTER TABLE checks_v10 RENAME TO checks;

-- Every check record with its whole text, record_json, as the store reads it.
CREATE VIEW v_checks AS
SELECT id, run, case_id, system, kind, item, verdict, score,
       CASE WHEN e IS NULL AND o IS NULL THEN body
            WHEN o IS NULL THEN substr(b, 1, e) || x || substr(b, e + 5)
            WHEN e IS NULL THEN substr(b, 1, o) || q || substr(b, o + 5)
            ELSE substr(b, 1, e) || x || substr(b, e + 5, o - e - 4) || q || substr(b, o + 5)
       END AS record_json
FROM (SELECT c.id, c.run, c.case_id, c.system, c.kind, c.item, c.verdict, c.score,
             t.body AS body, CAST(t.body AS BLOB) AS b, t.expected_at AS e, t.observed_at AS o,
             CASE WHEN t.expected_at IS NOT NULL THEN
                 (SELECT k.expected_json FROM cases k WHERE k.run = c.run AND k.case_id = c.case_id)
             END AS x,
             CASE WHEN t.observed_at IS NOT NULL THEN
                 json_quote((SELECT o.content FROM outputs o
                             WHERE o.run = c.run AND o.case_id = c.case_id
                               AND o.system = c.system AND o.file = ''
                             ORDER BY o.trial LIMIT 1))
             END AS q
      FROM checks c
      JOIN check_texts t ON t.id = c.record);

-- Per run, system and expectation: passes, fails, unresolved, and the pass rate over
-- the decided ones (NULL when none was decided).
CREATE VIEW v_expectation_pass_rates AS
SELECT run, system, item AS expectation,
       sum(verdict = 'pass') AS passes,
       sum(verdict = 'fail') AS fails,
       sum(verdict = 'unresolved') AS unresolved,
       CASE WHEN sum(verdict <> 'unresolved') > 0
            THEN 1.0 * sum(verdict = 'pass') / sum(verdict <> 'unresolved') END AS pass_rate
FROM checks
WHERE kind = 'expectation'
GROUP BY run, system, item;

-- The same over all expectations of a system.
CREATE VIEW v_system_pass_rates AS
SELECT run, system,
       sum(verdict = 'pass') AS passes,
       sum(verdict = 'fail') AS fails,
       sum(verdict = 'unresolved') AS unresolved,
       CASE WHEN sum(verdict <> 'unresolved') > 0
            THEN 1.0 * sum(verdict = 'pass') / sum(verdict <> 'unresolved') END AS pass_rate
FROM checks
WHERE kind = 'expectation'
GROUP BY run, system;
