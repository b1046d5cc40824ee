-- The usage dashboard's top sessions (by cost, then tokens) without sorting every session.

CREATE INDEX sessions_by_cost ON sessions(cost_usd DESC, total_tokens DESC) WHERE turns > 0;
