-- Migration 7: calibration measures the decision procedure a run uses.
--
-- runs.kind: 'run' (arbiter run, replay, compare) or 'calibration' (the run `arbiter
-- calibrate` makes of labelled pairs, or the one that holds its judge's calls).  A
-- calibration run is never "latest"; `arbiter runs` marks it.  Runs that calibrate made
-- before this migration (their suite_json has a "calibration" member) become 'calibration'.
--
-- runs.procedure_hash: the identity of the run's decision procedure, hex SHA-256 of the
-- RFC 8785 text of {"judge": the judge config hash (model, parameters, prompt template) or
-- null, "task", "rubric": every criterion with its dimension, description, anchors, check
-- and the SHA-256 of each expected_file the check reads, "expectations": the suite's own,
-- the same way, "redact", "policy": decide_by, position_inconsistent and tie_epsilon,
-- "v": 1}.  Two runs with the same procedure decide a case the same way.  NULL for runs
-- stored before this migration.
--
-- calibrations.procedure_hash: the procedure whose verdicts a study measured (`calibrate
-- --suite`, `calibrate --run`); NULL for a study of the judge's own per-order winners
-- (`calibrate LABELS`), which only names judge_hash.  `run --require-calibrated` and the
-- report's judge health look studies up by the run's procedure_hash.
--
-- calibrations.source: 'labels' (calibrate LABELS), 'suite' (calibrate --suite: the
-- labelled pairs run through the suite's procedure, in the calibration run named by run),
-- 'run' (calibrate --run: the stored verdicts of the run named by run); NULL before this
-- migration.
ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'run'
    CHECK (kind IN ('run', 'calibration'));
ALTER TABLE runs ADD COLUMN procedure_hash TEXT;
ALTER TABLE calibrations ADD COLUMN procedure_hash TEXT;
ALTER TABLE calibrations ADD COLUMN source TEXT;
CREATE INDEX IF NOT EXISTS calibrations_by_procedure ON calibrations (procedure_hash, id);
UPDATE runs SET kind = 'calibration'
    WHERE json_valid(suite_json) AND json_type(suite_json, '$.calibration') IS NOT NULL;
