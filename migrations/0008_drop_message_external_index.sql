-- Imports skip transcript entries they already hold by (session, external id). A unique
-- index on that pair cost a write per imported message and a tenth of the database; an
-- import now reads a session's external ids once per commit, and only for sessions that
-- existed before it (a re-read file), never for the sessions it creates.

DROP INDEX messages_external;
