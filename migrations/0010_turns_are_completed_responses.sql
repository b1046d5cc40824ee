-- A session's `turns` counts completed responses only, as the ledger, `usage` and the
-- headless JSON do; the counter of responses without a known price counts every attempt
-- (failed ones too), so it is named for that.

ALTER TABLE sessions RENAME COLUMN unpriced_turns TO unpriced_attempts;

DROP TRIGGER ledger_ad;
CREATE TRIGGER ledger_ad AFTER DELETE ON ledger BEGIN
  UPDATE sessions SET
    turns = turns - (old.error IS NULL),
    total_tokens = total_tokens - (old.input_tokens + old.output_tokens + old.cache_read_tokens
                   + old.cache_write_5m_tokens + old.cache_write_1h_tokens),
    cost_usd = cost_usd - coalesce(old.cost_usd, 0),
    unpriced_attempts = unpriced_attempts - (old.cost_usd IS NULL)
  WHERE id = old.session_id;
END;

UPDATE sessions SET turns = (
  SELECT count(*) FROM ledger WHERE ledger.session_id = sessions.id AND ledger.error IS NULL
) WHERE turns > 0;

-- The dashboard's top sessions: every session that used tokens (a session whose only
-- responses failed has no turns but may still have spent tokens).
DROP INDEX sessions_by_cost;
CREATE INDEX sessions_by_cost ON sessions(cost_usd DESC, total_tokens DESC) WHERE total_tokens > 0;
