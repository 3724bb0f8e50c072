-- Migration 11: a verdict's comparison.json is stored once per distinct text of a run
-- (issue 21: it was 40% of the bytes a run wrote, and most verdicts decided by the checks of
-- a suite share a handful of texts).
--
-- verdict_texts holds the comparison.json texts of a run's verdicts, each exactly as it was
-- written.  verdicts.comparison is the id of its verdict's text there (NULL: the verdict has
-- none).  The store writes a text once per run and refers to it from every verdict with the
-- same text (it remembers the texts it wrote lately; a text it forgot may be written again).
-- A verdict that will be replaced (status pending_judge or judge_failed: the judge's answer
-- decides it later) gets a text of its own, and replacing the verdict replaces that text in
-- place.  comparison is no foreign key, as checks.record is not (migration 10): a key would
-- make deleting texts search the verdicts; deleting a run deletes both.
--
-- Verdicts stored before this migration keep their text in their own row: the column
-- comparison_json is renamed comparison_inline (NULL for verdicts stored since), so a query
-- that read verdicts.comparison_json fails loudly instead of reading NULL; v_verdicts gives
-- every verdict with its comparison_json, from wherever it is stored.  No row is rewritten:
-- a database of a million verdicts migrates at once.
CREATE TABLE verdict_texts (
    id   INTEGER PRIMARY KEY,
    run  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    body TEXT NOT NULL
);
ALTER TABLE verdicts RENAME COLUMN comparison_json TO comparison_inline;
ALTER TABLE verdicts ADD COLUMN comparison INTEGER;  -- verdict_texts(id)

-- Every verdict with its comparison.json, as the store reads it.
CREATE VIEW v_verdicts AS
SELECT v.id, v.run, v.case_id, v.system_a, v.system_b, v.status, v.winner,
       v.score_a, v.score_b, v.pass_rate_a, v.pass_rate_b,
       coalesce(t.body, v.comparison_inline) AS comparison_json
FROM verdicts v
LEFT JOIN verdict_texts t ON t.id = v.comparison;
