-- Saved permission rules (issue 17): allow or deny `write` path globs and `exec` command
-- patterns, for one project (its canonical root) or, with project_root NULL, for every one.
CREATE TABLE permission_rules (
  id            TEXT PRIMARY KEY,       -- ULID: listing by id is listing by creation
  effect        TEXT NOT NULL CHECK (effect IN ('allow', 'deny')),
  kind          TEXT NOT NULL CHECK (kind IN ('write', 'exec')),
  pattern       TEXT NOT NULL,
  project_root  TEXT,                   -- NULL: every project
  created_at    INTEGER NOT NULL
);
CREATE UNIQUE INDEX permission_rules_unique
  ON permission_rules(effect, kind, pattern, COALESCE(project_root, ''));
CREATE INDEX permission_rules_by_project ON permission_rules(project_root);
