-- Migration 8: human labels of a run's pairs, made blind (`arbiter view --label`), which
-- `arbiter export RUN --labels` writes and `arbiter calibrate --run RUN --labels-from-db`
-- measures (include/arbiter/labels.h, src/store/store_labels.c).
--
-- One row per (run, case, pair, annotator).  system_a and system_b are the pair as its
-- blinding row names it (system_a shown first by the blind order); shown_first is the system
-- the annotator saw as "Response A"; choice is the annotator's word as shown: 'A', 'B' or
-- 'tie'; winner is what it means, derived when the label is stored (choice A: shown_first,
-- B: the other system of the pair, tie: 'TIE').  criteria_json is {"NAME": "A"|"B"|"tie"}
-- as shown (RFC 8785 text), or NULL; note free text, or NULL.  Labelling the same pair again
-- replaces shown_first, choice, winner, criteria_json and note and sets updated_at; created_at
-- stays the time of the first label (both UTC, ISO 8601).
--
-- There is no foreign key to blinding: the store checks the pair when it puts a label, and a
-- later migration that rebuilds blinding must not cascade into people's work.
CREATE TABLE IF NOT EXISTS labels (
    id            INTEGER PRIMARY KEY,
    run           INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    case_id       TEXT NOT NULL,
    system_a      TEXT NOT NULL,
    system_b      TEXT NOT NULL,
    annotator     TEXT NOT NULL,
    shown_first   TEXT NOT NULL CHECK (shown_first = system_a OR shown_first = system_b),
    choice        TEXT NOT NULL CHECK (choice = 'A' OR choice = 'B' OR choice = 'tie'),
    winner        TEXT NOT NULL CHECK (winner = system_a OR winner = system_b OR winner = 'TIE'),
    criteria_json TEXT,
    note          TEXT,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL,
    UNIQUE (run, case_id, system_a, system_b, annotator)
);
