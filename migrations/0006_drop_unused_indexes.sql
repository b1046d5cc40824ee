-- Indexes nothing reads any more (dashboards read the rollups), each a random write per row:
-- ledger and tool calls by time were for scanning the ledger before migration 0002/0004.

DROP INDEX ledger_by_time;
DROP INDEX ledger_by_project_time;
DROP INDEX tool_calls_by_time;
