-- Arbiter's SQLite schema, migration 1 (PRAGMA user_version = 1).
--
-- Every record of a run hangs off runs(id) and goes with it (ON DELETE CASCADE).
-- Each table the pipeline writes has a natural UNIQUE key, and every write is an
-- INSERT ... ON CONFLICT DO NOTHING on it, so a resumed run can redo a batch
-- without duplicating a record.  SQLite treats NULLs in a UNIQUE key as distinct,
-- so key columns are NOT NULL; problems store '' for "no case" or "no system".
-- Text columns hold the bytes they were given; scores are REAL, NULL when unknown.
--
-- src/store/schema_sql.c embeds this file byte for byte (a unit test compares
-- them); after an edit, run sh src/store/gen_schema_sql.sh.  A released schema is
-- never edited: a change is a new migration.  db/README.md describes the tables and
-- views, with example queries.

CREATE TABLE runs (
    id           INTEGER PRIMARY KEY,
    created_at   TEXT NOT NULL,              -- UTC, ISO 8601: 2026-11-22T10:04:05Z
    status       TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'complete')),
    suite_path   TEXT NOT NULL,
    suite_name   TEXT,
    suite_sha256 TEXT NOT NULL,
    suite_json   TEXT NOT NULL,              -- the suite as loaded (RFC 8785 text)
    systems_json TEXT NOT NULL,              -- [{"name": ..., "path": ...}, ...]
    seed         INTEGER NOT NULL,           -- a uint64 stored as its int64 bit pattern
    version      TEXT NOT NULL,              -- Arbiter's version
    judge_json   TEXT                        -- judge config without secrets, or NULL
);

-- The systems of a run in the order the suite lists them (position from 0).
CREATE TABLE systems (
    run      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    name     TEXT NOT NULL,
    path     TEXT,
    position INTEGER NOT NULL,
    UNIQUE (run, name)
);

-- The cases of a run in reading order (seq from 0).
CREATE TABLE cases (
    run           INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    case_id       TEXT NOT NULL,
    seq           INTEGER NOT NULL,
    prompt        TEXT,
    expected_json TEXT,
    case_json     TEXT,
    UNIQUE (run, case_id)
);
CREATE INDEX cases_by_seq ON cases (run, seq);

-- One file of one system's output for one case; file is '' for a single-file output.
-- Binary files keep content NULL with their size and hash.
CREATE TABLE outputs (
    id        INTEGER PRIMARY KEY,
    run       INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    case_id   TEXT NOT NULL,
    system    TEXT NOT NULL,
    file      TEXT NOT NULL,
    content   TEXT,
    size      INTEGER NOT NULL,
    binary    INTEGER NOT NULL CHECK (binary IN (0, 1)),
    sha256    TEXT NOT NULL,
    meta_json TEXT,                          -- trajectory, timing, toolErrors..., or NULL
    UNIQUE (run, case_id, system, file)
);

-- Which system is shown to the judge as A and which as B, and the HMAC that chose it:
-- one row per case and pair of systems (with two systems, one row per case).
CREATE TABLE blinding (
    run      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    case_id  TEXT NOT NULL,
    system_a TEXT NOT NULL,
    system_b TEXT NOT NULL,
    hmac     TEXT NOT NULL,
    UNIQUE (run, case_id, system_a, system_b)
);

-- One check record: for (case, system) the item it decides (kind 'expectation',
-- 'criterion' or 'fields'; item its id or name), the full result record, and its
-- verdict and score.
CREATE TABLE checks (
    id          INTEGER PRIMARY KEY,         -- insert order
    run         INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    case_id     TEXT NOT NULL,
    system      TEXT NOT NULL,
    kind        TEXT NOT NULL,
    item        TEXT NOT NULL,
    verdict     TEXT NOT NULL CHECK (verdict IN ('pass', 'fail', 'unresolved')),
    score       REAL,
    record_json TEXT NOT NULL,
    UNIQUE (run, case_id, system, kind, item)
);

-- The verdict on one case between two systems (system_a is the one shown as A).
-- status is 'decided', 'pending_judge' or 'missing_output'; winner a system's name,
-- 'TIE', or NULL.
CREATE TABLE verdicts (
    id              INTEGER PRIMARY KEY,
    run             INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    case_id         TEXT NOT NULL,
    system_a        TEXT NOT NULL,
    system_b        TEXT NOT NULL,
    status          TEXT NOT NULL,
    winner          TEXT,
    score_a         REAL,
    score_b         REAL,
    pass_rate_a     REAL,
    pass_rate_b     REAL,
    comparison_json TEXT,                    -- comparison.json, no system names
    UNIQUE (run, case_id, system_a, system_b)
);

-- A problem found while loading ('duplicate_output', 'unknown_case', 'missing_output'...).
-- case_id and system are '' when the problem has none.
CREATE TABLE problems (
    id      INTEGER PRIMARY KEY,
    run     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    kind    TEXT NOT NULL,
    case_id TEXT NOT NULL DEFAULT '',
    system  TEXT NOT NULL DEFAULT '',
    message TEXT NOT NULL,
    UNIQUE (run, kind, case_id, system)
);

-- ---- views for the common reports ----------------------------------------------

-- Runs with their counts.
CREATE VIEW v_runs AS
SELECT r.id, r.created_at, r.status, r.suite_name, r.suite_path, r.seed, r.version,
       (SELECT count(*) FROM cases c WHERE c.run = r.id) AS n_cases,
       (SELECT count(*) FROM verdicts v WHERE v.run = r.id) AS n_verdicts,
       (SELECT count(*) FROM problems p WHERE p.run = r.id) AS n_problems
FROM runs r;

-- Each verdict in case order, with which system was shown as A.
CREATE VIEW v_case_verdicts AS
SELECT v.run, c.seq, v.case_id, v.system_a, v.system_b, v.status, v.winner,
       v.score_a, v.score_b, v.pass_rate_a, v.pass_rate_b
FROM verdicts v
LEFT JOIN cases c ON c.run = v.run AND c.case_id = v.case_id;

-- Wins, losses and ties per system per run over decided verdicts (a TIE counts as a
-- tie for both systems); win_rate counts a tie as half a win.
CREATE VIEW v_system_wins AS
WITH sides (run, system, winner) AS (
    SELECT run, system_a, winner FROM verdicts WHERE status = 'decided'
    UNION ALL
    SELECT run, system_b, winner FROM verdicts WHERE status = 'decided'
)
SELECT run, system,
       sum(winner = system) AS wins,
       sum(winner IS NOT NULL AND winner <> system AND winner <> 'TIE') AS losses,
       sum(winner = 'TIE') AS ties,
       count(*) AS decided,
       (sum(winner = system) + 0.5 * sum(winner = 'TIE')) / count(*) AS win_rate
FROM sides
GROUP BY run, system;

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
