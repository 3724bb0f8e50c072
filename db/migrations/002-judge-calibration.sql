-- Migration 2: the judge's cache and judgments, and calibration studies.
-- IF NOT EXISTS throughout: databases made by development builds already had some of these
-- tables at user_version 1; for them, and for new databases, this migration is safe.

-- Judge requests and their replies: the cache.  key is the SHA-256 of the canonical request
-- (provider, model, parameters, messages, schema, sample index).  A request whose reply is
-- stored ('ok') is never sent again, by this run or any other; a 'failed' one (no reply after
-- every retry) is sent again by a later run or --resume.  No API key is ever stored: keys
-- travel in HTTP headers, and requests are stored as their bodies.
CREATE TABLE IF NOT EXISTS judge_calls (
    key               TEXT PRIMARY KEY,
    provider          TEXT NOT NULL,
    model             TEXT NOT NULL,
    request_json      TEXT NOT NULL,
    reply_json        TEXT,
    status            TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    http_status       INTEGER,
    attempts          INTEGER NOT NULL,
    latency_s         REAL,
    prompt_tokens     INTEGER,
    completion_tokens INTEGER,
    error             TEXT,
    created_at        TEXT NOT NULL
);

-- Which judge call a run used for a case, pair, order ('AB' = A shown first) and sample;
-- attempt 1 is the retry that carried the validation error of attempt 0.
CREATE TABLE IF NOT EXISTS judgments (
    id          INTEGER PRIMARY KEY,
    run         INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    case_id     TEXT NOT NULL,
    system_a    TEXT NOT NULL,
    system_b    TEXT NOT NULL,
    ord         TEXT NOT NULL CHECK (ord IN ('AB', 'BA')),
    sample      INTEGER NOT NULL,
    attempt     INTEGER NOT NULL,
    key         TEXT NOT NULL,
    valid       INTEGER NOT NULL,
    cached      INTEGER NOT NULL,
    answer_json TEXT,
    error       TEXT,
    UNIQUE (run, case_id, system_a, system_b, ord, sample, attempt)
);
CREATE INDEX IF NOT EXISTS judgments_case ON judgments (run, case_id);

-- A judge calibration study (arbiter calibrate): how a judge config agrees with human
-- labels.  judge_hash is the config's hash (NULL for recorded verdicts of no named judge);
-- kappa and accuracy are the combined verdict's against the human majority (NULL when
-- undefined); study_json is the whole study, every per-item verdict included; run is the run
-- whose judgments recorded the judge's calls (NULL for an offline study).
CREATE TABLE IF NOT EXISTS calibrations (
    id          INTEGER PRIMARY KEY,
    judge_hash  TEXT,
    created_at  TEXT NOT NULL,
    labels_path TEXT NOT NULL,
    n           INTEGER NOT NULL,
    kappa       REAL,
    accuracy    REAL,
    study_json  TEXT NOT NULL,
    run         INTEGER REFERENCES runs(id) ON DELETE SET NULL
);
CREATE INDEX IF NOT EXISTS calibrations_by_judge ON calibrations (judge_hash, id);
