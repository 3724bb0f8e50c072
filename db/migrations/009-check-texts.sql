-- Migration 9: a check record keeps its output's text once, and each distinct record text of
-- a run once (issue 21: a check record repeated its output's text, about a tenth of a run's
-- database, and most records of a run are the same text but for it).
--
-- check_texts holds the texts of a run's check records.  observed_at is NULL when body is the
-- whole record, exactly as it was written.  Otherwise the record's "observed" member was the
-- text of the output it checked, and body has the four bytes null in its place, at byte
-- offset observed_at; that output is the one row of outputs of the check's run, case and
-- system with file '' and the lowest trial (the compared trial's single file).  The record is
-- body with those four bytes replaced by the output's text as the record writer writes a JSON
-- string (src/compare/record.c: the bytes it was given, escaped, with U+FFFD for each byte
-- that is not UTF-8); src/store/store_checks.c puts them back byte for byte, and v_checks
-- does the same in SQL (json_quote, the same for text that is UTF-8 without NUL).
--
-- checks.record is the id of its text in check_texts.  The store writes a record's text once
-- per run and refers to it from every check record with the same text (it remembers the
-- texts it wrote recently; a text it forgot may be written again).  A record that may still
-- be replaced (verdict unresolved: an llm_judge check, decided when the judge answers) gets
-- a text of its own, and replacing it replaces that text.  record is no foreign key: a key
-- would make deleting texts search the checks; deleting a run deletes both.
--
-- Records stored before this migration keep their whole text (observed_at NULL), one per
-- check, with the id of the check.  The table is rebuilt (ids kept) and the two views that
-- read it are dropped first and created again unchanged.
DROP VIEW IF EXISTS v_expectation_pass_rates;
DROP VIEW IF EXISTS v_system_pass_rates;
CREATE TABLE check_texts (
    id          INTEGER PRIMARY KEY,
    run         INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    observed_at INTEGER CHECK (observed_at >= 0),
    body        TEXT NOT NULL
);
CREATE TABLE checks_v9 (
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
INSERT INTO check_texts (id, run, observed_at, body)
SELECT id, run, NULL, record_json FROM checks;
INSERT INTO checks_v9 (id, run, case_id, system, kind, item, verdict, score, record)
SELECT id, run, case_id, system, kind, item, verdict, score, id FROM checks;
DROP TABLE checks;
ALTER TABLE checks_v9 RENAME TO checks;

-- Every check record with its whole text, record_json, as the store reads it.
CREATE VIEW v_checks AS
SELECT c.id, c.run, c.case_id, c.system, c.kind, c.item, c.verdict, c.score,
       CASE WHEN t.observed_at IS NULL THEN t.body
            ELSE substr(CAST(t.body AS BLOB), 1, t.observed_at) ||
                 json_quote((SELECT o.content FROM outputs o
                             WHERE o.run = c.run AND o.case_id = c.case_id
                               AND o.system = c.system AND o.file = ''
                             ORDER BY o.trial LIMIT 1)) ||
                 substr(CAST(t.body AS BLOB), t.observed_at + 5) END AS record_json
FROM checks c
JOIN check_texts t ON t.id = c.record;

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
