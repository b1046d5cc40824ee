-- Tool statistics without scanning tool_calls: calls, failures and durations summed per
-- 15-minute bucket (of started_at), project and tool, like usage_rollup. New rows are added
-- per batch by the storage layer; updates (a call completing) and deletes (forget) adjust
-- the sums through the triggers below. Calls that never started (no started_at) are not
-- counted. The 95th percentile comes from tool_calls_by_duration, walked from the slowest.

ALTER TABLE tool_calls ADD COLUMN project_id INTEGER;
UPDATE tool_calls SET project_id = (SELECT project_id FROM sessions WHERE sessions.id = tool_calls.session_id);

CREATE TABLE tool_rollup (
  bucket      INTEGER NOT NULL,   -- start of the UTC quarter hour of started_at, epoch ms
  project_id  INTEGER NOT NULL,
  tool_name   TEXT NOT NULL,
  calls       INTEGER NOT NULL DEFAULT 0,
  failures    INTEGER NOT NULL DEFAULT 0, -- error, timeout, denied, cancelled, lost
  total_ms    INTEGER NOT NULL DEFAULT 0,
  timed       INTEGER NOT NULL DEFAULT 0, -- calls with a duration
  PRIMARY KEY (bucket, project_id, tool_name)
) WITHOUT ROWID;
CREATE INDEX tool_rollup_by_project ON tool_rollup(project_id, bucket);

INSERT INTO tool_rollup (bucket, project_id, tool_name, calls, failures, total_ms, timed)
SELECT started_at - (started_at % 900000), project_id, tool_name, count(*),
  sum(status IN ('error', 'timeout', 'denied', 'cancelled', 'lost')), coalesce(sum(duration_ms), 0),
  count(duration_ms)
FROM tool_calls WHERE started_at IS NOT NULL AND project_id IS NOT NULL
GROUP BY 1, 2, 3;

DROP INDEX tool_calls_by_name;
CREATE INDEX tool_calls_by_duration ON tool_calls(tool_name, duration_ms) WHERE duration_ms IS NOT NULL;

CREATE TRIGGER tool_rollup_au AFTER UPDATE OF status, duration_ms, started_at, tool_name, project_id
ON tool_calls BEGIN
  UPDATE tool_rollup SET
    calls = calls - 1,
    failures = failures - (old.status IN ('error', 'timeout', 'denied', 'cancelled', 'lost')),
    total_ms = total_ms - coalesce(old.duration_ms, 0),
    timed = timed - (old.duration_ms IS NOT NULL)
  WHERE old.started_at IS NOT NULL AND bucket = old.started_at - (old.started_at % 900000)
    AND project_id = old.project_id AND tool_name = old.tool_name;
  INSERT INTO tool_rollup (bucket, project_id, tool_name, calls, failures, total_ms, timed)
  SELECT new.started_at - (new.started_at % 900000), new.project_id, new.tool_name, 1,
    new.status IN ('error', 'timeout', 'denied', 'cancelled', 'lost'), coalesce(new.duration_ms, 0),
    new.duration_ms IS NOT NULL
  WHERE new.started_at IS NOT NULL AND new.project_id IS NOT NULL
  ON CONFLICT (bucket, project_id, tool_name) DO UPDATE SET
    calls = calls + 1,
    failures = failures + excluded.failures,
    total_ms = total_ms + excluded.total_ms,
    timed = timed + excluded.timed;
END;

CREATE TRIGGER tool_rollup_ad AFTER DELETE ON tool_calls BEGIN
  UPDATE tool_rollup SET
    calls = calls - 1,
    failures = failures - (old.status IN ('error', 'timeout', 'denied', 'cancelled', 'lost')),
    total_ms = total_ms - coalesce(old.duration_ms, 0),
    timed = timed - (old.duration_ms IS NOT NULL)
  WHERE old.started_at IS NOT NULL AND bucket = old.started_at - (old.started_at % 900000)
    AND project_id = old.project_id AND tool_name = old.tool_name;
END;
