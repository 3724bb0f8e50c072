-- Migration 4: faster writes and case-ordered reads; no data changes.
--
-- checks.verdict was constrained with IN ('pass', 'fail', 'unresolved'): SQLite checks an IN
-- list of three or more values by building a temporary b-tree for it on every INSERT, which
-- cost a run about a tenth of its time (a run stores a dozen check records per case).  The
-- same rule written with = and OR needs none.  SQLite cannot change a CHECK constraint in
-- place, so the table is rebuilt (in this migration's transaction), and the two views that
-- read it are dropped first and created again unchanged (ALTER TABLE ... RENAME re-reads
-- every view).  Ids, and with them the insert order, are kept.
DROP VIEW IF EXISTS v_expectation_pass_rates;
DROP VIEW IF EXISTS v_system_pass_rates;
CREATE TABLE checks_v4 (
    id          INTEGER PRIMARY KEY,         -- insert order
    run         INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    case_id     TEXT NOT NULL,
    system      TEXT NOT NULL,
    kind        TEXT NOT NULL,
    item        TEXT NOT NULL,
    verdict     TEXT NOT NULL CHECK (verdict = 'pass' OR verdict = 'fail' OR verdict = 'unresolved'),
    score       REAL,
    record_json TEXT NOT NULL,
    UNIQUE (run, case_id, system, kind, item)
);
INSERT INTO checks_v4 (id, run, case_id, system, kind, item, verdict, score, record_json)
SELECT id, run, case_id, system, kind, item, verdict, score, record_json FROM checks;
DROP TABLE checks;
ALTER TABLE checks_v4 RENAME TO checks;

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

-- Reports read every verdict in case order, driven by this index: with case_id in it they
-- need not visit the cases' rows (which carry each case's JSON) to find the ids.
CREATE INDEX IF NOT EXISTS cases_by_seq_id ON cases (run, seq, case_id);
DROP INDEX IF EXISTS cases_by_seq;
