-- Ownership with fencing (P2, R3): a session's epoch is its owner's fencing token. Taking a
-- session over increments it in the same transaction that claims the row, and every write
-- of the session's content is conditional on the writer's epoch, so a process that was
-- suspended past the liveness window and lost the session cannot write over its successor.

ALTER TABLE sessions ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0;
-- When the current owner took the session (the "when" of a takeover message).
ALTER TABLE sessions ADD COLUMN owner_since INTEGER;
-- What the owner is doing, for peers: idle, a reply, a tool (set with the heartbeat).
ALTER TABLE sessions ADD COLUMN activity TEXT;
