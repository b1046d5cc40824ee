-- `bonsai serve`'s optional login password (X4): one scrypt hash, never the password.
CREATE TABLE server_password (
  id      INTEGER PRIMARY KEY CHECK (id = 1),
  hash    TEXT NOT NULL,               -- scrypt$<N>$<r>$<p>$<salt b64url>$<key b64url>
  set_at  INTEGER NOT NULL
);
