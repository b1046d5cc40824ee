-- Faster bulk writes (imports write millions of rows; see also the ledger below):
-- 1. New messages are indexed for search by the storage layer, one statement per batch,
--    instead of a trigger per row: FTS5 writes its pending terms out at every statement it
--    takes part in, so a row-by-row trigger made one index segment per message. The same
--    code keeps message counts, once per batch. Updates and deletes keep their triggers.
-- 2. One unique index on the ledger's external id replaces two overlapping ones: imported
--    response keys are unique across sessions, and imports look them up without a session.
-- 3. Nothing queries messages by time alone (search filters the rows FTS finds).

DROP TRIGGER messages_ai;

-- The same for the ledger: session counters and usage rollups are added per batch by the
-- storage layer (one grouped statement each); updates and deletes keep their triggers.
DROP TRIGGER ledger_ai;
DROP TRIGGER usage_rollup_ai;

DROP INDEX ledger_external;
DROP INDEX ledger_by_external;
CREATE UNIQUE INDEX ledger_external ON ledger(external_id) WHERE external_id IS NOT NULL;

DROP INDEX messages_by_time;
