-- Migration 3: trials (several outputs per case and system).
--
-- An output line may carry "trial": N (a non-negative integer, 0 when absent).  outputs gains
-- the trial column and it joins the natural key; SQLite cannot change a table's UNIQUE
-- constraint in place, so the table is rebuilt (in this migration's transaction; nothing
-- references outputs(id)).  Each system's lowest-numbered trial of a case is the one that is
-- compared, checked (checks), judged and decided (verdicts), exactly as without trials.
CREATE TABLE outputs_v3 (
    id        INTEGER PRIMARY KEY,
    run       INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    case_id   TEXT NOT NULL,
    system    TEXT NOT NULL,
    trial     INTEGER NOT NULL DEFAULT 0 CHECK (trial >= 0),
    file      TEXT NOT NULL,
    content   TEXT,
    size      INTEGER NOT NULL,
    binary    INTEGER NOT NULL CHECK (binary IN (0, 1)),
    sha256    TEXT NOT NULL,
    meta_json TEXT,                          -- trajectory, timing, toolErrors..., or NULL
    UNIQUE (run, case_id, system, trial, file)
);
INSERT INTO outputs_v3 (id, run, case_id, system, trial, file, content, size, binary, sha256,
                        meta_json)
SELECT id, run, case_id, system, 0, file, content, size, binary, sha256, meta_json FROM outputs;
DROP TABLE outputs;
ALTER TABLE outputs_v3 RENAME TO outputs;

-- One trial of one system on one case, when the system has several trials of that case: its
-- expectations decided by the deterministic checks alone (the judge sees only the compared
-- trial), the counts, and whether the trial passed (every expectation passed: 1; one failed:
-- 0; none failed but some are unresolved: NULL).  records_json is the array of its
-- expectation check records, in the suite's order.  pass@k and pass^k are computed from
-- these rows (src/report/trials.c).
CREATE TABLE trials (
    run          INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    case_id      TEXT NOT NULL,
    system       TEXT NOT NULL,
    trial        INTEGER NOT NULL CHECK (trial >= 0),
    passed       INTEGER CHECK (passed IN (0, 1)),
    n_pass       INTEGER NOT NULL,
    n_fail       INTEGER NOT NULL,
    n_unresolved INTEGER NOT NULL,
    records_json TEXT NOT NULL,
    UNIQUE (run, case_id, system, trial)
);

-- Per run, system and case: trials (n), trials that passed (c), and those left unresolved.
CREATE VIEW v_case_trials AS
SELECT run, system, case_id,
       sum(passed IS NOT NULL) AS n,
       sum(passed = 1) AS c,
       sum(passed IS NULL) AS unresolved
FROM trials
GROUP BY run, system, case_id;
