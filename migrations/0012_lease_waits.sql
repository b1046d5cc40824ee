-- Peers waiting for a project's write lease (P2): shown to the lease holder and on every
-- peer's status line. A row lives only while its session waits; a crashed waiter's row is
-- ignored once its heartbeat is stale.

CREATE TABLE lease_waits (
  session_id  TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  since       INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX lease_waits_by_project ON lease_waits(project_id);
