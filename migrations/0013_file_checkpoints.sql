-- File checkpoints for rewind (Z5): a write or edit call records which file it changed, the
-- hash of the content before (NULL: the file did not exist) and after, and the content
-- before itself when it is small enough (NULL above the limit, see ToolCallStore). A rewind
-- with --files restores a file to the content before the first change after the step, after
-- checking the file still has the hash the last change left.
-- Calls recorded before this migration have no checkpoint: their files cannot be reverted.

ALTER TABLE tool_calls ADD COLUMN file_path TEXT;         -- relative to the project root
ALTER TABLE tool_calls ADD COLUMN file_before_hash TEXT;  -- sha256 of the bytes before; NULL: created
ALTER TABLE tool_calls ADD COLUMN file_before TEXT;       -- the content before, when stored
ALTER TABLE tool_calls ADD COLUMN file_after_hash TEXT;   -- sha256 of the content the call left
