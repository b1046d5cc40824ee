-- bonsai schema v1. Times are integer epoch milliseconds; ids of sessions are ULIDs.
-- Forward-only: never edit this file once released; add 0002_... instead.

CREATE TABLE projects (
  id          INTEGER PRIMARY KEY,
  root_path   TEXT NOT NULL UNIQUE,           -- canonical workspace root
  created_at  INTEGER NOT NULL
);

CREATE TABLE sessions (
  id                 TEXT PRIMARY KEY,        -- ULID: sorting by id is sorting by creation
  project_id         INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  parent_id          TEXT REFERENCES sessions(id) ON DELETE SET NULL, -- rotation or subagent origin
  title              TEXT NOT NULL DEFAULT 'New conversation',
  title_source       TEXT NOT NULL DEFAULT 'default'
                     CHECK (title_source IN ('default', 'derived', 'agent', 'user', 'import')),
  status             TEXT NOT NULL DEFAULT 'active'
                     CHECK (status IN ('active', 'completed', 'interrupted', 'budget_exhausted', 'failed', 'cancelled')),
  end_reason         TEXT,                    -- typed: quit, clear, new, max_turns, session_cost, crash, sigterm, ...
  end_detail         TEXT,                    -- JSON: {limit, used} for budgets, message for failures
  pinned             INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
  provider           TEXT,
  model              TEXT,
  reasoning          TEXT,
  cache_key          TEXT NOT NULL,           -- conversation cache route (OpenAI prompt_cache_key)
  source             TEXT NOT NULL DEFAULT 'bonsai' CHECK (source IN ('bonsai', 'claude-code', 'codex')),
  external_id        TEXT,                    -- the session's id in the tool it was imported from
  created_at         INTEGER NOT NULL,
  content_updated_at INTEGER NOT NULL,        -- content recency: what /resume orders by
  heartbeat_at       INTEGER,                 -- liveness of the owning process, separate from content
  active_ms          INTEGER NOT NULL DEFAULT 0, -- foreground run time, for session-time budgets
  owner_pid          INTEGER,
  owner_host         TEXT,
  -- Rollups maintained by triggers so listings never scan messages or the ledger.
  message_count      INTEGER NOT NULL DEFAULT 0,
  turns              INTEGER NOT NULL DEFAULT 0,
  total_tokens       INTEGER NOT NULL DEFAULT 0,
  cost_usd           REAL NOT NULL DEFAULT 0,
  unpriced_turns     INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX sessions_by_project ON sessions(project_id, pinned DESC, content_updated_at DESC);
CREATE INDEX sessions_by_recency ON sessions(pinned DESC, content_updated_at DESC);
CREATE INDEX sessions_active ON sessions(status) WHERE status = 'active';
CREATE UNIQUE INDEX sessions_external ON sessions(source, external_id) WHERE external_id IS NOT NULL;

-- The rendered transcript: everything the user saw, in order. Append-mostly; the tail may be
-- updated while a reply streams.
CREATE TABLE messages (
  id            INTEGER PRIMARY KEY,          -- rowid of the FTS indexes
  session_id    TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq           INTEGER NOT NULL,
  role          TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool', 'system')),
  kind          TEXT NOT NULL DEFAULT 'text'
                CHECK (kind IN ('text', 'thinking', 'tool_call', 'tool_result', 'permission', 'error', 'notice', 'summary')),
  text          TEXT NOT NULL DEFAULT '',     -- plain text: what search indexes
  tool_call_id  TEXT,
  tool_name     TEXT,
  tool_args     TEXT,                         -- JSON, in full
  tool_result   TEXT,                         -- in full
  is_error      INTEGER NOT NULL DEFAULT 0 CHECK (is_error IN (0, 1)),
  status        TEXT NOT NULL DEFAULT 'complete' CHECK (status IN ('complete', 'streaming', 'cancelled', 'failed')),
  ledger_id     INTEGER REFERENCES ledger(id) ON DELETE SET NULL, -- token usage of the response
  external_id   TEXT,                         -- imported record id, for idempotent import
  created_at    INTEGER NOT NULL,
  UNIQUE (session_id, seq)
);
CREATE INDEX messages_by_time ON messages(created_at);
CREATE UNIQUE INDEX messages_external ON messages(session_id, external_id) WHERE external_id IS NOT NULL;

-- Word index over messages.text (external content: the text is stored once, in messages).
CREATE VIRTUAL TABLE messages_fts USING fts5(
  text, content = 'messages', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2'
);
-- CJK index: overlapping character bigrams of Han/Kana/Hangul runs, written by the storage
-- layer; contentless, rows removed by the triggers below.
CREATE VIRTUAL TABLE messages_cjk USING fts5(grams, content = '', contentless_delete = 1);

CREATE TRIGGER messages_ai AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
  UPDATE sessions SET message_count = message_count + 1 WHERE id = new.session_id;
END;
CREATE TRIGGER messages_ad AFTER DELETE ON messages BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
  DELETE FROM messages_cjk WHERE rowid = old.id;
  UPDATE sessions SET message_count = message_count - 1 WHERE id = old.session_id;
END;
CREATE TRIGGER messages_au AFTER UPDATE OF text ON messages BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
  DELETE FROM messages_cjk WHERE rowid = old.id;
END;

-- Model-facing context: the messages as the provider sees them (authoritative on resume).
CREATE TABLE context_items (
  session_id   TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq          INTEGER NOT NULL,
  role         TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
  body         TEXT NOT NULL,                 -- JSON content blocks
  message_seq  INTEGER,                       -- transcript message it came from
  tokens_est   INTEGER NOT NULL DEFAULT 0,
  created_at   INTEGER NOT NULL,
  PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;

-- Small whole-value snapshot groups (plan, todos, ...), each with a content signature.
CREATE TABLE snapshot_groups (
  session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  grp         TEXT NOT NULL,
  signature   TEXT NOT NULL,
  body        TEXT NOT NULL,
  updated_at  INTEGER NOT NULL,
  PRIMARY KEY (session_id, grp)
) WITHOUT ROWID;

-- One row per provider response (or failed attempt).
CREATE TABLE ledger (
  id                       INTEGER PRIMARY KEY,
  session_id               TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  project_id               INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  seq                      INTEGER NOT NULL,  -- order within the session
  lane                     TEXT NOT NULL DEFAULT 'parent'
                           CHECK (lane IN ('parent', 'subagent', 'self-review', 'compaction')),
  provider                 TEXT NOT NULL,
  model                    TEXT NOT NULL,
  attempt                  INTEGER NOT NULL DEFAULT 1,
  request_id               TEXT,
  response_id              TEXT,
  input_tokens             INTEGER NOT NULL DEFAULT 0, -- uncached input
  output_tokens            INTEGER NOT NULL DEFAULT 0, -- includes reasoning
  cache_read_tokens        INTEGER NOT NULL DEFAULT 0,
  cache_write_5m_tokens    INTEGER NOT NULL DEFAULT 0,
  cache_write_1h_tokens    INTEGER NOT NULL DEFAULT 0,
  reasoning_tokens         INTEGER NOT NULL DEFAULT 0,
  usage_exact              INTEGER NOT NULL DEFAULT 1 CHECK (usage_exact IN (0, 1)),
  output_chars             INTEGER NOT NULL DEFAULT 0, -- streamed characters (budgets)
  cost_usd                 REAL,              -- NULL: no known price
  baseline_cost_usd        REAL,              -- the same tokens with no cache
  finish_reason            TEXT,
  error                    TEXT,
  latency_ms               INTEGER,
  ttft_ms                  INTEGER,
  prefix_hash              TEXT,
  prefix_rewrite           INTEGER NOT NULL DEFAULT 0 CHECK (prefix_rewrite IN (0, 1)),
  expected_cache_read_pct  REAL,
  actual_cache_read_pct    REAL,
  external_id              TEXT,              -- imported message id + request id
  created_at               INTEGER NOT NULL
);
CREATE INDEX ledger_by_session ON ledger(session_id, seq);
CREATE INDEX ledger_by_time ON ledger(created_at);
CREATE INDEX ledger_by_project_time ON ledger(project_id, created_at);
CREATE UNIQUE INDEX ledger_external ON ledger(session_id, external_id) WHERE external_id IS NOT NULL;

CREATE TRIGGER ledger_ai AFTER INSERT ON ledger BEGIN
  UPDATE sessions SET
    turns = turns + 1,
    total_tokens = total_tokens + new.input_tokens + new.output_tokens + new.cache_read_tokens
                   + new.cache_write_5m_tokens + new.cache_write_1h_tokens,
    cost_usd = cost_usd + coalesce(new.cost_usd, 0),
    unpriced_turns = unpriced_turns + (new.cost_usd IS NULL)
  WHERE id = new.session_id;
END;
CREATE TRIGGER ledger_ad AFTER DELETE ON ledger BEGIN
  UPDATE sessions SET
    turns = turns - 1,
    total_tokens = total_tokens - (old.input_tokens + old.output_tokens + old.cache_read_tokens
                   + old.cache_write_5m_tokens + old.cache_write_1h_tokens),
    cost_usd = cost_usd - coalesce(old.cost_usd, 0),
    unpriced_turns = unpriced_turns - (old.cost_usd IS NULL)
  WHERE id = old.session_id;
END;

CREATE TABLE tool_calls (
  id            INTEGER PRIMARY KEY,
  session_id    TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  call_id       TEXT NOT NULL,                -- the provider's tool-use id
  message_seq   INTEGER,
  tool_name     TEXT NOT NULL,
  args          TEXT NOT NULL,                -- JSON as sent by the model
  status        TEXT NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'running', 'ok', 'error', 'denied', 'cancelled', 'timeout', 'lost')),
  result        TEXT,                         -- full output
  diff          TEXT,                         -- unified diff for file changes
  exit_code     INTEGER,
  started_at    INTEGER,
  ended_at      INTEGER,
  duration_ms   INTEGER,
  UNIQUE (session_id, call_id)
);
CREATE INDEX tool_calls_by_time ON tool_calls(started_at);

CREATE TABLE read_evidence (
  id            INTEGER PRIMARY KEY,
  session_id    TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  path          TEXT NOT NULL,                -- relative to the project root
  start_line    INTEGER,
  end_line      INTEGER,
  content_hash  TEXT NOT NULL,                -- of the lines read
  file_hash     TEXT NOT NULL,                -- of the whole file when read
  call_id       TEXT,
  read_at       INTEGER NOT NULL
);
CREATE INDEX read_evidence_by_path ON read_evidence(session_id, path, read_at);

CREATE TABLE changed_files (
  session_id    TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  path          TEXT NOT NULL,
  first_at      INTEGER NOT NULL,
  last_at       INTEGER NOT NULL,
  changes       INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY (session_id, path)
) WITHOUT ROWID;

CREATE TABLE compactions (
  id             INTEGER PRIMARY KEY,
  session_id     TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  method         TEXT NOT NULL CHECK (method IN ('rule', 'model')),
  from_seq       INTEGER NOT NULL,            -- context range replaced (inclusive)
  to_seq         INTEGER NOT NULL,
  summary        TEXT NOT NULL,
  tokens_before  INTEGER NOT NULL,
  tokens_after   INTEGER NOT NULL,
  ledger_id      INTEGER REFERENCES ledger(id) ON DELETE SET NULL,
  created_at     INTEGER NOT NULL
);
CREATE INDEX compactions_by_session ON compactions(session_id, id);

CREATE TABLE episodes (
  id             INTEGER PRIMARY KEY,
  session_id     TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  ordinal        INTEGER NOT NULL,
  boundary       TEXT NOT NULL CHECK (boundary IN ('start', 'title', 'compaction', 'reset', 'resume')),
  title          TEXT,
  summary        TEXT,
  start_seq      INTEGER NOT NULL,
  end_seq        INTEGER,
  started_at     INTEGER NOT NULL,
  ended_at       INTEGER,
  UNIQUE (session_id, ordinal)
);

CREATE TABLE verification_runs (
  id             INTEGER PRIMARY KEY,
  session_id     TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  kind           TEXT NOT NULL CHECK (kind IN ('verify', 'self-review')),
  command        TEXT,
  exit_code      INTEGER,
  duration_ms    INTEGER,
  output         TEXT,
  findings       TEXT,                        -- JSON for self-review
  ledger_id      INTEGER REFERENCES ledger(id) ON DELETE SET NULL,
  created_at     INTEGER NOT NULL
);
CREATE INDEX verification_by_session ON verification_runs(session_id, id);

-- Shells and background tasks are process-local; on resume running ones become 'lost'.
CREATE TABLE background_tasks (
  id             INTEGER PRIMARY KEY,
  session_id     TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  kind           TEXT NOT NULL CHECK (kind IN ('shell', 'task')),
  command        TEXT NOT NULL,
  status         TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'exited', 'killed', 'lost')),
  pid            INTEGER,
  exit_code      INTEGER,
  started_at     INTEGER NOT NULL,
  ended_at       INTEGER
);
CREATE INDEX background_running ON background_tasks(session_id) WHERE status = 'running';

-- Saved settings (budget presets, defaults). Values are JSON; secrets only as references.
CREATE TABLE settings (
  scope       TEXT NOT NULL DEFAULT 'global',  -- 'global' or a project root
  key         TEXT NOT NULL,
  value       TEXT NOT NULL,
  updated_at  INTEGER NOT NULL,
  PRIMARY KEY (scope, key)
) WITHOUT ROWID;

-- Peer sessions: the project write lease; its row id is the fencing token.
CREATE TABLE leases (
  token          INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id     INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  owner_session  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  acquired_at    INTEGER NOT NULL,
  expires_at     INTEGER NOT NULL,
  released_at    INTEGER
);
CREATE INDEX leases_current ON leases(project_id, token DESC);

CREATE TABLE mailbox (
  id             INTEGER PRIMARY KEY,
  project_id     INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  from_session   TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  to_session     TEXT REFERENCES sessions(id) ON DELETE CASCADE, -- NULL: every peer
  kind           TEXT NOT NULL DEFAULT 'message' CHECK (kind IN ('message', 'wake')),
  body           TEXT NOT NULL,
  hops           INTEGER NOT NULL DEFAULT 0,
  created_at     INTEGER NOT NULL
);
CREATE INDEX mailbox_by_sender ON mailbox(from_session, created_at);

CREATE TABLE deliveries (
  message_id     INTEGER NOT NULL REFERENCES mailbox(id) ON DELETE CASCADE,
  consumer       TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  lease_until    INTEGER,
  attempts       INTEGER NOT NULL DEFAULT 0,
  acked_at       INTEGER,
  PRIMARY KEY (message_id, consumer)
) WITHOUT ROWID;
CREATE INDEX deliveries_pending ON deliveries(consumer) WHERE acked_at IS NULL;

CREATE TABLE wakes (
  id             INTEGER PRIMARY KEY,
  waiter         TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  target         TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  hops           INTEGER NOT NULL DEFAULT 0,
  created_at     INTEGER NOT NULL,
  fired_at       INTEGER,
  UNIQUE (waiter, target)
);

CREATE TABLE claims (
  id             INTEGER PRIMARY KEY,
  project_id     INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  session_id     TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  path_glob      TEXT NOT NULL,
  note           TEXT,
  created_at     INTEGER NOT NULL,
  expires_at     INTEGER
);
CREATE INDEX claims_by_project ON claims(project_id);

-- HTTP API login tokens: only a hash is stored.
CREATE TABLE api_tokens (
  hash           TEXT PRIMARY KEY,
  label          TEXT NOT NULL,
  created_at     INTEGER NOT NULL,
  last_used_at   INTEGER
) WITHOUT ROWID;

-- Import bookkeeping: how far each source file has been read.
CREATE TABLE import_files (
  source         TEXT NOT NULL CHECK (source IN ('claude-code', 'codex')),
  path           TEXT NOT NULL,
  size           INTEGER NOT NULL,
  mtime_ms       INTEGER NOT NULL,
  offset_bytes   INTEGER NOT NULL DEFAULT 0,
  imported_at    INTEGER NOT NULL,
  PRIMARY KEY (source, path)
) WITHOUT ROWID;
