-- New messages are indexed for search by trigger again (0003 had moved it into the storage
-- layer). The storage layer now writes a batch of messages with one INSERT, so the trigger
-- feeds FTS5 inside a single statement and FTS5 still writes one segment per batch.

CREATE TRIGGER messages_ai AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
END;
