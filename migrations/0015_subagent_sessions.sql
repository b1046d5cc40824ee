-- Subagents (the task tool) keep their transcripts as child sessions: `kind` tells them from
-- the sessions a person runs, so listings and `-c` pass them by and `sessions show` lists
-- them under their parent. Their usage rows are filed under the parent (lane 'subagent').
ALTER TABLE sessions ADD COLUMN kind TEXT NOT NULL DEFAULT 'main' CHECK (kind IN ('main', 'subagent'));
CREATE INDEX sessions_by_parent ON sessions(parent_id) WHERE parent_id IS NOT NULL;
