-- Dashboards over a year of history in milliseconds. The ledger is also summed per UTC hour
-- and model (usage_hour), per UTC hour (usage_hour_sum) and per UTC day and model
-- (usage_day_model), and tool calls per UTC day and tool (tool_day). A query takes whole hours
-- (days) from these and the quarter hours at the edges of its period from the finer rollups;
-- queries for one project, and time zones whose offset is not whole hours, use the finer
-- rollups alone. New rows are added per batch by the storage layer; updates and deletes
-- adjust the sums through the triggers below.

CREATE TABLE usage_hour (
  hour                   INTEGER NOT NULL,  -- start of the UTC hour, epoch ms
  provider               TEXT NOT NULL,
  model                  TEXT NOT NULL,
  rows                   INTEGER NOT NULL DEFAULT 0,
  turns                  INTEGER NOT NULL DEFAULT 0,
  input_tokens           INTEGER NOT NULL DEFAULT 0,
  output_tokens          INTEGER NOT NULL DEFAULT 0,
  cache_read_tokens      INTEGER NOT NULL DEFAULT 0,
  cache_write_5m_tokens  INTEGER NOT NULL DEFAULT 0,
  cache_write_1h_tokens  INTEGER NOT NULL DEFAULT 0,
  reasoning_tokens       INTEGER NOT NULL DEFAULT 0,
  cost_usd               REAL NOT NULL DEFAULT 0,
  baseline_cost_usd      REAL NOT NULL DEFAULT 0,
  unpriced_turns         INTEGER NOT NULL DEFAULT 0,
  inexact_turns          INTEGER NOT NULL DEFAULT 0,
  expected_pct_sum       REAL NOT NULL DEFAULT 0,
  expected_pct_count     INTEGER NOT NULL DEFAULT 0,
  actual_pct_sum         REAL NOT NULL DEFAULT 0,
  actual_pct_count       INTEGER NOT NULL DEFAULT 0,
  prefix_rewrites        INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (hour, provider, model)
) WITHOUT ROWID;

INSERT INTO usage_hour (hour, provider, model, rows, turns, input_tokens, output_tokens, cache_read_tokens, cache_write_5m_tokens, cache_write_1h_tokens, reasoning_tokens, cost_usd, baseline_cost_usd, unpriced_turns, inexact_turns, expected_pct_sum, expected_pct_count, actual_pct_sum, actual_pct_count, prefix_rewrites)
SELECT bucket - (bucket % 3600000), provider, model, sum(rows), sum(turns), sum(input_tokens), sum(output_tokens), sum(cache_read_tokens), sum(cache_write_5m_tokens), sum(cache_write_1h_tokens), sum(reasoning_tokens), sum(cost_usd), sum(baseline_cost_usd), sum(unpriced_turns), sum(inexact_turns), sum(expected_pct_sum), sum(expected_pct_count), sum(actual_pct_sum), sum(actual_pct_count), sum(prefix_rewrites)
FROM usage_rollup GROUP BY 1, 2, 3;

CREATE TRIGGER usage_hour_ad AFTER DELETE ON ledger BEGIN
  UPDATE usage_hour SET
    rows = rows - (1),
    turns = turns - (old.error IS NULL),
    input_tokens = input_tokens - (old.input_tokens),
    output_tokens = output_tokens - (old.output_tokens),
    cache_read_tokens = cache_read_tokens - (old.cache_read_tokens),
    cache_write_5m_tokens = cache_write_5m_tokens - (old.cache_write_5m_tokens),
    cache_write_1h_tokens = cache_write_1h_tokens - (old.cache_write_1h_tokens),
    reasoning_tokens = reasoning_tokens - (old.reasoning_tokens),
    cost_usd = cost_usd - (coalesce(old.cost_usd, 0)),
    baseline_cost_usd = baseline_cost_usd - (coalesce(old.baseline_cost_usd, 0)),
    unpriced_turns = unpriced_turns - (old.cost_usd IS NULL),
    inexact_turns = inexact_turns - (old.usage_exact = 0),
    expected_pct_sum = expected_pct_sum - (coalesce(old.expected_cache_read_pct, 0)),
    expected_pct_count = expected_pct_count - (old.expected_cache_read_pct IS NOT NULL),
    actual_pct_sum = actual_pct_sum - (coalesce(old.actual_cache_read_pct, 0)),
    actual_pct_count = actual_pct_count - (old.actual_cache_read_pct IS NOT NULL),
    prefix_rewrites = prefix_rewrites - (old.prefix_rewrite)
  WHERE hour = old.created_at - (old.created_at % 3600000) AND provider = old.provider AND model = old.model;
  DELETE FROM usage_hour WHERE rows = 0 AND hour = old.created_at - (old.created_at % 3600000) AND provider = old.provider AND model = old.model;
END;

CREATE TRIGGER usage_hour_au AFTER UPDATE ON ledger BEGIN
  UPDATE usage_hour SET
    rows = rows - (1),
    turns = turns - (old.error IS NULL),
    input_tokens = input_tokens - (old.input_tokens),
    output_tokens = output_tokens - (old.output_tokens),
    cache_read_tokens = cache_read_tokens - (old.cache_read_tokens),
    cache_write_5m_tokens = cache_write_5m_tokens - (old.cache_write_5m_tokens),
    cache_write_1h_tokens = cache_write_1h_tokens - (old.cache_write_1h_tokens),
    reasoning_tokens = reasoning_tokens - (old.reasoning_tokens),
    cost_usd = cost_usd - (coalesce(old.cost_usd, 0)),
    baseline_cost_usd = baseline_cost_usd - (coalesce(old.baseline_cost_usd, 0)),
    unpriced_turns = unpriced_turns - (old.cost_usd IS NULL),
    inexact_turns = inexact_turns - (old.usage_exact = 0),
    expected_pct_sum = expected_pct_sum - (coalesce(old.expected_cache_read_pct, 0)),
    expected_pct_count = expected_pct_count - (old.expected_cache_read_pct IS NOT NULL),
    actual_pct_sum = actual_pct_sum - (coalesce(old.actual_cache_read_pct, 0)),
    actual_pct_count = actual_pct_count - (old.actual_cache_read_pct IS NOT NULL),
    prefix_rewrites = prefix_rewrites - (old.prefix_rewrite)
  WHERE hour = old.created_at - (old.created_at % 3600000) AND provider = old.provider AND model = old.model;
  DELETE FROM usage_hour WHERE rows = 0 AND hour = old.created_at - (old.created_at % 3600000) AND provider = old.provider AND model = old.model;
  INSERT INTO usage_hour (hour, provider, model, rows, turns, input_tokens, output_tokens, cache_read_tokens, cache_write_5m_tokens, cache_write_1h_tokens, reasoning_tokens, cost_usd, baseline_cost_usd, unpriced_turns, inexact_turns, expected_pct_sum, expected_pct_count, actual_pct_sum, actual_pct_count, prefix_rewrites)
  VALUES (new.created_at - (new.created_at % 3600000), new.provider, new.model, 1, new.error IS NULL, new.input_tokens, new.output_tokens, new.cache_read_tokens, new.cache_write_5m_tokens, new.cache_write_1h_tokens, new.reasoning_tokens, coalesce(new.cost_usd, 0), coalesce(new.baseline_cost_usd, 0), new.cost_usd IS NULL, new.usage_exact = 0, coalesce(new.expected_cache_read_pct, 0), new.expected_cache_read_pct IS NOT NULL, coalesce(new.actual_cache_read_pct, 0), new.actual_cache_read_pct IS NOT NULL, new.prefix_rewrite)
  ON CONFLICT (hour, provider, model) DO UPDATE SET
    rows = rows + excluded.rows,
    turns = turns + excluded.turns,
    input_tokens = input_tokens + excluded.input_tokens,
    output_tokens = output_tokens + excluded.output_tokens,
    cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
    cache_write_5m_tokens = cache_write_5m_tokens + excluded.cache_write_5m_tokens,
    cache_write_1h_tokens = cache_write_1h_tokens + excluded.cache_write_1h_tokens,
    reasoning_tokens = reasoning_tokens + excluded.reasoning_tokens,
    cost_usd = cost_usd + excluded.cost_usd,
    baseline_cost_usd = baseline_cost_usd + excluded.baseline_cost_usd,
    unpriced_turns = unpriced_turns + excluded.unpriced_turns,
    inexact_turns = inexact_turns + excluded.inexact_turns,
    expected_pct_sum = expected_pct_sum + excluded.expected_pct_sum,
    expected_pct_count = expected_pct_count + excluded.expected_pct_count,
    actual_pct_sum = actual_pct_sum + excluded.actual_pct_sum,
    actual_pct_count = actual_pct_count + excluded.actual_pct_count,
    prefix_rewrites = prefix_rewrites + excluded.prefix_rewrites;
END;

CREATE TABLE usage_hour_sum (
  hour                   INTEGER NOT NULL,  -- start of the UTC hour, epoch ms
  rows                   INTEGER NOT NULL DEFAULT 0,
  turns                  INTEGER NOT NULL DEFAULT 0,
  input_tokens           INTEGER NOT NULL DEFAULT 0,
  output_tokens          INTEGER NOT NULL DEFAULT 0,
  cache_read_tokens      INTEGER NOT NULL DEFAULT 0,
  cache_write_5m_tokens  INTEGER NOT NULL DEFAULT 0,
  cache_write_1h_tokens  INTEGER NOT NULL DEFAULT 0,
  reasoning_tokens       INTEGER NOT NULL DEFAULT 0,
  cost_usd               REAL NOT NULL DEFAULT 0,
  baseline_cost_usd      REAL NOT NULL DEFAULT 0,
  unpriced_turns         INTEGER NOT NULL DEFAULT 0,
  inexact_turns          INTEGER NOT NULL DEFAULT 0,
  expected_pct_sum       REAL NOT NULL DEFAULT 0,
  expected_pct_count     INTEGER NOT NULL DEFAULT 0,
  actual_pct_sum         REAL NOT NULL DEFAULT 0,
  actual_pct_count       INTEGER NOT NULL DEFAULT 0,
  prefix_rewrites        INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (hour)
) WITHOUT ROWID;

INSERT INTO usage_hour_sum (hour, rows, turns, input_tokens, output_tokens, cache_read_tokens, cache_write_5m_tokens, cache_write_1h_tokens, reasoning_tokens, cost_usd, baseline_cost_usd, unpriced_turns, inexact_turns, expected_pct_sum, expected_pct_count, actual_pct_sum, actual_pct_count, prefix_rewrites)
SELECT bucket - (bucket % 3600000), sum(rows), sum(turns), sum(input_tokens), sum(output_tokens), sum(cache_read_tokens), sum(cache_write_5m_tokens), sum(cache_write_1h_tokens), sum(reasoning_tokens), sum(cost_usd), sum(baseline_cost_usd), sum(unpriced_turns), sum(inexact_turns), sum(expected_pct_sum), sum(expected_pct_count), sum(actual_pct_sum), sum(actual_pct_count), sum(prefix_rewrites)
FROM usage_rollup GROUP BY 1;

CREATE TRIGGER usage_hour_sum_ad AFTER DELETE ON ledger BEGIN
  UPDATE usage_hour_sum SET
    rows = rows - (1),
    turns = turns - (old.error IS NULL),
    input_tokens = input_tokens - (old.input_tokens),
    output_tokens = output_tokens - (old.output_tokens),
    cache_read_tokens = cache_read_tokens - (old.cache_read_tokens),
    cache_write_5m_tokens = cache_write_5m_tokens - (old.cache_write_5m_tokens),
    cache_write_1h_tokens = cache_write_1h_tokens - (old.cache_write_1h_tokens),
    reasoning_tokens = reasoning_tokens - (old.reasoning_tokens),
    cost_usd = cost_usd - (coalesce(old.cost_usd, 0)),
    baseline_cost_usd = baseline_cost_usd - (coalesce(old.baseline_cost_usd, 0)),
    unpriced_turns = unpriced_turns - (old.cost_usd IS NULL),
    inexact_turns = inexact_turns - (old.usage_exact = 0),
    expected_pct_sum = expected_pct_sum - (coalesce(old.expected_cache_read_pct, 0)),
    expected_pct_count = expected_pct_count - (old.expected_cache_read_pct IS NOT NULL),
    actual_pct_sum = actual_pct_sum - (coalesce(old.actual_cache_read_pct, 0)),
    actual_pct_count = actual_pct_count - (old.actual_cache_read_pct IS NOT NULL),
    prefix_rewrites = prefix_rewrites - (old.prefix_rewrite)
  WHERE hour = old.created_at - (old.created_at % 3600000);
  DELETE FROM usage_hour_sum WHERE rows = 0 AND hour = old.created_at - (old.created_at % 3600000);
END;

CREATE TRIGGER usage_hour_sum_au AFTER UPDATE ON ledger BEGIN
  UPDATE usage_hour_sum SET
    rows = rows - (1),
    turns = turns - (old.error IS NULL),
    input_tokens = input_tokens - (old.input_tokens),
    output_tokens = output_tokens - (old.output_tokens),
    cache_read_tokens = cache_read_tokens - (old.cache_read_tokens),
    cache_write_5m_tokens = cache_write_5m_tokens - (old.cache_write_5m_tokens),
    cache_write_1h_tokens = cache_write_1h_tokens - (old.cache_write_1h_tokens),
    reasoning_tokens = reasoning_tokens - (old.reasoning_tokens),
    cost_usd = cost_usd - (coalesce(old.cost_usd, 0)),
    baseline_cost_usd = baseline_cost_usd - (coalesce(old.baseline_cost_usd, 0)),
    unpriced_turns = unpriced_turns - (old.cost_usd IS NULL),
    inexact_turns = inexact_turns - (old.usage_exact = 0),
    expected_pct_sum = expected_pct_sum - (coalesce(old.expected_cache_read_pct, 0)),
    expected_pct_count = expected_pct_count - (old.expected_cache_read_pct IS NOT NULL),
    actual_pct_sum = actual_pct_sum - (coalesce(old.actual_cache_read_pct, 0)),
    actual_pct_count = actual_pct_count - (old.actual_cache_read_pct IS NOT NULL),
    prefix_rewrites = prefix_rewrites - (old.prefix_rewrite)
  WHERE hour = old.created_at - (old.created_at % 3600000);
  DELETE FROM usage_hour_sum WHERE rows = 0 AND hour = old.created_at - (old.created_at % 3600000);
  INSERT INTO usage_hour_sum (hour, rows, turns, input_tokens, output_tokens, cache_read_tokens, cache_write_5m_tokens, cache_write_1h_tokens, reasoning_tokens, cost_usd, baseline_cost_usd, unpriced_turns, inexact_turns, expected_pct_sum, expected_pct_count, actual_pct_sum, actual_pct_count, prefix_rewrites)
  VALUES (new.created_at - (new.created_at % 3600000), 1, new.error IS NULL, new.input_tokens, new.output_tokens, new.cache_read_tokens, new.cache_write_5m_tokens, new.cache_write_1h_tokens, new.reasoning_tokens, coalesce(new.cost_usd, 0), coalesce(new.baseline_cost_usd, 0), new.cost_usd IS NULL, new.usage_exact = 0, coalesce(new.expected_cache_read_pct, 0), new.expected_cache_read_pct IS NOT NULL, coalesce(new.actual_cache_read_pct, 0), new.actual_cache_read_pct IS NOT NULL, new.prefix_rewrite)
  ON CONFLICT (hour) DO UPDATE SET
    rows = rows + excluded.rows,
    turns = turns + excluded.turns,
    input_tokens = input_tokens + excluded.input_tokens,
    output_tokens = output_tokens + excluded.output_tokens,
    cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
    cache_write_5m_tokens = cache_write_5m_tokens + excluded.cache_write_5m_tokens,
    cache_write_1h_tokens = cache_write_1h_tokens + excluded.cache_write_1h_tokens,
    reasoning_tokens = reasoning_tokens + excluded.reasoning_tokens,
    cost_usd = cost_usd + excluded.cost_usd,
    baseline_cost_usd = baseline_cost_usd + excluded.baseline_cost_usd,
    unpriced_turns = unpriced_turns + excluded.unpriced_turns,
    inexact_turns = inexact_turns + excluded.inexact_turns,
    expected_pct_sum = expected_pct_sum + excluded.expected_pct_sum,
    expected_pct_count = expected_pct_count + excluded.expected_pct_count,
    actual_pct_sum = actual_pct_sum + excluded.actual_pct_sum,
    actual_pct_count = actual_pct_count + excluded.actual_pct_count,
    prefix_rewrites = prefix_rewrites + excluded.prefix_rewrites;
END;

CREATE TABLE usage_day_model (
  day                    INTEGER NOT NULL,  -- start of the UTC day, epoch ms
  provider               TEXT NOT NULL,
  model                  TEXT NOT NULL,
  rows                   INTEGER NOT NULL DEFAULT 0,
  turns                  INTEGER NOT NULL DEFAULT 0,
  input_tokens           INTEGER NOT NULL DEFAULT 0,
  output_tokens          INTEGER NOT NULL DEFAULT 0,
  cache_read_tokens      INTEGER NOT NULL DEFAULT 0,
  cache_write_5m_tokens  INTEGER NOT NULL DEFAULT 0,
  cache_write_1h_tokens  INTEGER NOT NULL DEFAULT 0,
  reasoning_tokens       INTEGER NOT NULL DEFAULT 0,
  cost_usd               REAL NOT NULL DEFAULT 0,
  baseline_cost_usd      REAL NOT NULL DEFAULT 0,
  unpriced_turns         INTEGER NOT NULL DEFAULT 0,
  inexact_turns          INTEGER NOT NULL DEFAULT 0,
  expected_pct_sum       REAL NOT NULL DEFAULT 0,
  expected_pct_count     INTEGER NOT NULL DEFAULT 0,
  actual_pct_sum         REAL NOT NULL DEFAULT 0,
  actual_pct_count       INTEGER NOT NULL DEFAULT 0,
  prefix_rewrites        INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (day, provider, model)
) WITHOUT ROWID;

INSERT INTO usage_day_model (day, provider, model, rows, turns, input_tokens, output_tokens, cache_read_tokens, cache_write_5m_tokens, cache_write_1h_tokens, reasoning_tokens, cost_usd, baseline_cost_usd, unpriced_turns, inexact_turns, expected_pct_sum, expected_pct_count, actual_pct_sum, actual_pct_count, prefix_rewrites)
SELECT bucket - (bucket % 86400000), provider, model, sum(rows), sum(turns), sum(input_tokens), sum(output_tokens), sum(cache_read_tokens), sum(cache_write_5m_tokens), sum(cache_write_1h_tokens), sum(reasoning_tokens), sum(cost_usd), sum(baseline_cost_usd), sum(unpriced_turns), sum(inexact_turns), sum(expected_pct_sum), sum(expected_pct_count), sum(actual_pct_sum), sum(actual_pct_count), sum(prefix_rewrites)
FROM usage_rollup GROUP BY 1, 2, 3;

CREATE TRIGGER usage_day_model_ad AFTER DELETE ON ledger BEGIN
  UPDATE usage_day_model SET
    rows = rows - (1),
    turns = turns - (old.error IS NULL),
    input_tokens = input_tokens - (old.input_tokens),
    output_tokens = output_tokens - (old.output_tokens),
    cache_read_tokens = cache_read_tokens - (old.cache_read_tokens),
    cache_write_5m_tokens = cache_write_5m_tokens - (old.cache_write_5m_tokens),
    cache_write_1h_tokens = cache_write_1h_tokens - (old.cache_write_1h_tokens),
    reasoning_tokens = reasoning_tokens - (old.reasoning_tokens),
    cost_usd = cost_usd - (coalesce(old.cost_usd, 0)),
    baseline_cost_usd = baseline_cost_usd - (coalesce(old.baseline_cost_usd, 0)),
    unpriced_turns = unpriced_turns - (old.cost_usd IS NULL),
    inexact_turns = inexact_turns - (old.usage_exact = 0),
    expected_pct_sum = expected_pct_sum - (coalesce(old.expected_cache_read_pct, 0)),
    expected_pct_count = expected_pct_count - (old.expected_cache_read_pct IS NOT NULL),
    actual_pct_sum = actual_pct_sum - (coalesce(old.actual_cache_read_pct, 0)),
    actual_pct_count = actual_pct_count - (old.actual_cache_read_pct IS NOT NULL),
    prefix_rewrites = prefix_rewrites - (old.prefix_rewrite)
  WHERE day = old.created_at - (old.created_at % 86400000) AND provider = old.provider AND model = old.model;
  DELETE FROM usage_day_model WHERE rows = 0 AND day = old.created_at - (old.created_at % 86400000) AND provider = old.provider AND model = old.model;
END;

CREATE TRIGGER usage_day_model_au AFTER UPDATE ON ledger BEGIN
  UPDATE usage_day_model SET
    rows = rows - (1),
    turns = turns - (old.error IS NULL),
    input_tokens = input_tokens - (old.input_tokens),
    output_tokens = output_tokens - (old.output_tokens),
    cache_read_tokens = cache_read_tokens - (old.cache_read_tokens),
    cache_write_5m_tokens = cache_write_5m_tokens - (old.cache_write_5m_tokens),
    cache_write_1h_tokens = cache_write_1h_tokens - (old.cache_write_1h_tokens),
    reasoning_tokens = reasoning_tokens - (old.reasoning_tokens),
    cost_usd = cost_usd - (coalesce(old.cost_usd, 0)),
    baseline_cost_usd = baseline_cost_usd - (coalesce(old.baseline_cost_usd, 0)),
    unpriced_turns = unpriced_turns - (old.cost_usd IS NULL),
    inexact_turns = inexact_turns - (old.usage_exact = 0),
    expected_pct_sum = expected_pct_sum - (coalesce(old.expected_cache_read_pct, 0)),
    expected_pct_count = expected_pct_count - (old.expected_cache_read_pct IS NOT NULL),
    actual_pct_sum = actual_pct_sum - (coalesce(old.actual_cache_read_pct, 0)),
    actual_pct_count = actual_pct_count - (old.actual_cache_read_pct IS NOT NULL),
    prefix_rewrites = prefix_rewrites - (old.prefix_rewrite)
  WHERE day = old.created_at - (old.created_at % 86400000) AND provider = old.provider AND model = old.model;
  DELETE FROM usage_day_model WHERE rows = 0 AND day = old.created_at - (old.created_at % 86400000) AND provider = old.provider AND model = old.model;
  INSERT INTO usage_day_model (day, provider, model, rows, turns, input_tokens, output_tokens, cache_read_tokens, cache_write_5m_tokens, cache_write_1h_tokens, reasoning_tokens, cost_usd, baseline_cost_usd, unpriced_turns, inexact_turns, expected_pct_sum, expected_pct_count, actual_pct_sum, actual_pct_count, prefix_rewrites)
  VALUES (new.created_at - (new.created_at % 86400000), new.provider, new.model, 1, new.error IS NULL, new.input_tokens, new.output_tokens, new.cache_read_tokens, new.cache_write_5m_tokens, new.cache_write_1h_tokens, new.reasoning_tokens, coalesce(new.cost_usd, 0), coalesce(new.baseline_cost_usd, 0), new.cost_usd IS NULL, new.usage_exact = 0, coalesce(new.expected_cache_read_pct, 0), new.expected_cache_read_pct IS NOT NULL, coalesce(new.actual_cache_read_pct, 0), new.actual_cache_read_pct IS NOT NULL, new.prefix_rewrite)
  ON CONFLICT (day, provider, model) DO UPDATE SET
    rows = rows + excluded.rows,
    turns = turns + excluded.turns,
    input_tokens = input_tokens + excluded.input_tokens,
    output_tokens = output_tokens + excluded.output_tokens,
    cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
    cache_write_5m_tokens = cache_write_5m_tokens + excluded.cache_write_5m_tokens,
    cache_write_1h_tokens = cache_write_1h_tokens + excluded.cache_write_1h_tokens,
    reasoning_tokens = reasoning_tokens + excluded.reasoning_tokens,
    cost_usd = cost_usd + excluded.cost_usd,
    baseline_cost_usd = baseline_cost_usd + excluded.baseline_cost_usd,
    unpriced_turns = unpriced_turns + excluded.unpriced_turns,
    inexact_turns = inexact_turns + excluded.inexact_turns,
    expected_pct_sum = expected_pct_sum + excluded.expected_pct_sum,
    expected_pct_count = expected_pct_count + excluded.expected_pct_count,
    actual_pct_sum = actual_pct_sum + excluded.actual_pct_sum,
    actual_pct_count = actual_pct_count + excluded.actual_pct_count,
    prefix_rewrites = prefix_rewrites + excluded.prefix_rewrites;
END;

CREATE TABLE tool_day (
  day         INTEGER NOT NULL,   -- start of the UTC day of started_at, epoch ms
  tool_name   TEXT NOT NULL,
  calls       INTEGER NOT NULL DEFAULT 0,
  failures    INTEGER NOT NULL DEFAULT 0,
  total_ms    INTEGER NOT NULL DEFAULT 0,
  timed       INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (day, tool_name)
) WITHOUT ROWID;

INSERT INTO tool_day (day, tool_name, calls, failures, total_ms, timed)
SELECT bucket - (bucket % 86400000), tool_name, sum(calls), sum(failures), sum(total_ms), sum(timed)
FROM tool_rollup GROUP BY 1, 2;

CREATE TRIGGER tool_day_au AFTER UPDATE OF status, duration_ms, started_at, tool_name ON tool_calls
BEGIN
  UPDATE tool_day SET
    calls = calls - 1,
    failures = failures - (old.status IN ('error', 'timeout', 'denied', 'cancelled', 'lost')),
    total_ms = total_ms - coalesce(old.duration_ms, 0),
    timed = timed - (old.duration_ms IS NOT NULL)
  WHERE old.started_at IS NOT NULL AND day = old.started_at - (old.started_at % 86400000)
    AND tool_name = old.tool_name;
  INSERT INTO tool_day (day, tool_name, calls, failures, total_ms, timed)
  SELECT new.started_at - (new.started_at % 86400000), new.tool_name, 1,
    new.status IN ('error', 'timeout', 'denied', 'cancelled', 'lost'), coalesce(new.duration_ms, 0),
    new.duration_ms IS NOT NULL
  WHERE new.started_at IS NOT NULL
  ON CONFLICT (day, tool_name) DO UPDATE SET
    calls = calls + 1,
    failures = failures + excluded.failures,
    total_ms = total_ms + excluded.total_ms,
    timed = timed + excluded.timed;
END;

CREATE TRIGGER tool_day_ad AFTER DELETE ON tool_calls BEGIN
  UPDATE tool_day SET
    calls = calls - 1,
    failures = failures - (old.status IN ('error', 'timeout', 'denied', 'cancelled', 'lost')),
    total_ms = total_ms - coalesce(old.duration_ms, 0),
    timed = timed - (old.duration_ms IS NOT NULL)
  WHERE old.started_at IS NOT NULL AND day = old.started_at - (old.started_at % 86400000)
    AND tool_name = old.tool_name;
END;

-- The 95th-percentile walk reads only the index, whatever the period or project.
DROP INDEX tool_calls_by_duration;
CREATE INDEX tool_calls_by_duration ON tool_calls(tool_name, duration_ms, started_at, project_id)
  WHERE duration_ms IS NOT NULL;
