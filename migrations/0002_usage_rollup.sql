-- Usage rollups: the ledger summed per 15-minute UTC bucket, session, provider, model and
-- lane, kept in sync by triggers, so dashboards never scan the ledger. Every real time zone
-- is a whole number of quarter hours from UTC, so local days and hours are exact sums of
-- buckets.

CREATE TABLE usage_rollup (
  bucket                 INTEGER NOT NULL,  -- start of the UTC quarter hour, epoch ms
  session_id             TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  project_id             INTEGER NOT NULL,
  provider               TEXT NOT NULL,
  model                  TEXT NOT NULL,
  lane                   TEXT NOT NULL,
  rows                   INTEGER NOT NULL DEFAULT 0, -- ledger rows (attempts)
  turns                  INTEGER NOT NULL DEFAULT 0, -- completed responses
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
  PRIMARY KEY (bucket, session_id, provider, model, lane)
) WITHOUT ROWID;
CREATE INDEX usage_rollup_by_project ON usage_rollup(project_id, bucket);
CREATE INDEX usage_rollup_by_session ON usage_rollup(session_id);

-- Imports find duplicates (the same API response in several files) by external id.
CREATE INDEX ledger_by_external ON ledger(external_id) WHERE external_id IS NOT NULL;
-- Tool statistics by name and time.
CREATE INDEX tool_calls_by_name ON tool_calls(tool_name, started_at);

CREATE TRIGGER usage_rollup_ai AFTER INSERT ON ledger BEGIN
  INSERT INTO usage_rollup (bucket, session_id, project_id, provider, model, lane, rows, turns,
    input_tokens, output_tokens, cache_read_tokens, cache_write_5m_tokens, cache_write_1h_tokens,
    reasoning_tokens, cost_usd, baseline_cost_usd, unpriced_turns, inexact_turns, expected_pct_sum,
    expected_pct_count, actual_pct_sum, actual_pct_count, prefix_rewrites)
  VALUES (new.created_at - (new.created_at % 900000), new.session_id, new.project_id, new.provider,
    new.model, new.lane, 1, new.error IS NULL, new.input_tokens, new.output_tokens,
    new.cache_read_tokens, new.cache_write_5m_tokens, new.cache_write_1h_tokens, new.reasoning_tokens,
    coalesce(new.cost_usd, 0), coalesce(new.baseline_cost_usd, 0), new.cost_usd IS NULL,
    new.usage_exact = 0, coalesce(new.expected_cache_read_pct, 0),
    new.expected_cache_read_pct IS NOT NULL, coalesce(new.actual_cache_read_pct, 0),
    new.actual_cache_read_pct IS NOT NULL, new.prefix_rewrite)
  ON CONFLICT (bucket, session_id, provider, model, lane) DO UPDATE SET
    rows = rows + 1,
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

CREATE TRIGGER usage_rollup_ad AFTER DELETE ON ledger BEGIN
  UPDATE usage_rollup SET
    rows = rows - 1,
    turns = turns - (old.error IS NULL),
    input_tokens = input_tokens - old.input_tokens,
    output_tokens = output_tokens - old.output_tokens,
    cache_read_tokens = cache_read_tokens - old.cache_read_tokens,
    cache_write_5m_tokens = cache_write_5m_tokens - old.cache_write_5m_tokens,
    cache_write_1h_tokens = cache_write_1h_tokens - old.cache_write_1h_tokens,
    reasoning_tokens = reasoning_tokens - old.reasoning_tokens,
    cost_usd = cost_usd - coalesce(old.cost_usd, 0),
    baseline_cost_usd = baseline_cost_usd - coalesce(old.baseline_cost_usd, 0),
    unpriced_turns = unpriced_turns - (old.cost_usd IS NULL),
    inexact_turns = inexact_turns - (old.usage_exact = 0),
    expected_pct_sum = expected_pct_sum - coalesce(old.expected_cache_read_pct, 0),
    expected_pct_count = expected_pct_count - (old.expected_cache_read_pct IS NOT NULL),
    actual_pct_sum = actual_pct_sum - coalesce(old.actual_cache_read_pct, 0),
    actual_pct_count = actual_pct_count - (old.actual_cache_read_pct IS NOT NULL),
    prefix_rewrites = prefix_rewrites - old.prefix_rewrite
  WHERE bucket = old.created_at - (old.created_at % 900000) AND session_id = old.session_id
    AND provider = old.provider AND model = old.model AND lane = old.lane;
  DELETE FROM usage_rollup WHERE rows = 0 AND bucket = old.created_at - (old.created_at % 900000)
    AND session_id = old.session_id AND provider = old.provider AND model = old.model AND lane = old.lane;
END;

-- An updated row (an import found a later, larger copy of the same response) moves its
-- numbers: out of the old key, into the new one; the session rollups likewise.
CREATE TRIGGER usage_rollup_au AFTER UPDATE ON ledger BEGIN
  UPDATE usage_rollup SET
    rows = rows - 1,
    turns = turns - (old.error IS NULL),
    input_tokens = input_tokens - old.input_tokens,
    output_tokens = output_tokens - old.output_tokens,
    cache_read_tokens = cache_read_tokens - old.cache_read_tokens,
    cache_write_5m_tokens = cache_write_5m_tokens - old.cache_write_5m_tokens,
    cache_write_1h_tokens = cache_write_1h_tokens - old.cache_write_1h_tokens,
    reasoning_tokens = reasoning_tokens - old.reasoning_tokens,
    cost_usd = cost_usd - coalesce(old.cost_usd, 0),
    baseline_cost_usd = baseline_cost_usd - coalesce(old.baseline_cost_usd, 0),
    unpriced_turns = unpriced_turns - (old.cost_usd IS NULL),
    inexact_turns = inexact_turns - (old.usage_exact = 0),
    expected_pct_sum = expected_pct_sum - coalesce(old.expected_cache_read_pct, 0),
    expected_pct_count = expected_pct_count - (old.expected_cache_read_pct IS NOT NULL),
    actual_pct_sum = actual_pct_sum - coalesce(old.actual_cache_read_pct, 0),
    actual_pct_count = actual_pct_count - (old.actual_cache_read_pct IS NOT NULL),
    prefix_rewrites = prefix_rewrites - old.prefix_rewrite
  WHERE bucket = old.created_at - (old.created_at % 900000) AND session_id = old.session_id
    AND provider = old.provider AND model = old.model AND lane = old.lane;
  DELETE FROM usage_rollup WHERE rows = 0 AND bucket = old.created_at - (old.created_at % 900000)
    AND session_id = old.session_id AND provider = old.provider AND model = old.model AND lane = old.lane;
  INSERT INTO usage_rollup (bucket, session_id, project_id, provider, model, lane, rows, turns,
    input_tokens, output_tokens, cache_read_tokens, cache_write_5m_tokens, cache_write_1h_tokens,
    reasoning_tokens, cost_usd, baseline_cost_usd, unpriced_turns, inexact_turns, expected_pct_sum,
    expected_pct_count, actual_pct_sum, actual_pct_count, prefix_rewrites)
  VALUES (new.created_at - (new.created_at % 900000), new.session_id, new.project_id, new.provider,
    new.model, new.lane, 1, new.error IS NULL, new.input_tokens, new.output_tokens,
    new.cache_read_tokens, new.cache_write_5m_tokens, new.cache_write_1h_tokens, new.reasoning_tokens,
    coalesce(new.cost_usd, 0), coalesce(new.baseline_cost_usd, 0), new.cost_usd IS NULL,
    new.usage_exact = 0, coalesce(new.expected_cache_read_pct, 0),
    new.expected_cache_read_pct IS NOT NULL, coalesce(new.actual_cache_read_pct, 0),
    new.actual_cache_read_pct IS NOT NULL, new.prefix_rewrite)
  ON CONFLICT (bucket, session_id, provider, model, lane) DO UPDATE SET
    rows = rows + 1,
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
  UPDATE sessions SET
    total_tokens = total_tokens
      - (old.input_tokens + old.output_tokens + old.cache_read_tokens + old.cache_write_5m_tokens + old.cache_write_1h_tokens)
      + (new.input_tokens + new.output_tokens + new.cache_read_tokens + new.cache_write_5m_tokens + new.cache_write_1h_tokens),
    cost_usd = cost_usd - coalesce(old.cost_usd, 0) + coalesce(new.cost_usd, 0),
    unpriced_turns = unpriced_turns - (old.cost_usd IS NULL) + (new.cost_usd IS NULL)
  WHERE id = new.session_id;
END;

-- Rows written before this migration.
INSERT INTO usage_rollup (bucket, session_id, project_id, provider, model, lane, rows, turns,
  input_tokens, output_tokens, cache_read_tokens, cache_write_5m_tokens, cache_write_1h_tokens,
  reasoning_tokens, cost_usd, baseline_cost_usd, unpriced_turns, inexact_turns, expected_pct_sum,
  expected_pct_count, actual_pct_sum, actual_pct_count, prefix_rewrites)
SELECT created_at - (created_at % 900000), session_id, project_id, provider, model, lane, count(*),
  sum(error IS NULL), sum(input_tokens), sum(output_tokens), sum(cache_read_tokens),
  sum(cache_write_5m_tokens), sum(cache_write_1h_tokens), sum(reasoning_tokens),
  coalesce(sum(cost_usd), 0), coalesce(sum(baseline_cost_usd), 0), sum(cost_usd IS NULL),
  sum(usage_exact = 0), coalesce(sum(expected_cache_read_pct), 0),
  count(expected_cache_read_pct), coalesce(sum(actual_cache_read_pct), 0),
  count(actual_cache_read_pct), sum(prefix_rewrite)
FROM ledger GROUP BY 1, 2, 4, 5, 6;
