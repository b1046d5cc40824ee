import type { Db } from "./db.ts";

/** An API token as listed: never the token, only the public part of its hash. */
export interface ApiTokenRow {
  /** The first 12 hex digits of the token's SHA-256: enough to name it, useless to log in. */
  readonly id: string;
  readonly name: string;
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
}

/** Length of a token's public id (hex digits of its hash). */
export const TOKEN_ID_LENGTH = 12;

/** Bearer tokens of `bonsai serve` (X4), stored as SHA-256 hashes in `api_tokens`. */
export class ApiTokenStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Stores a new token's hash under a name. */
  add(hash: string, name: string): ApiTokenRow {
    const db = this.#db;
    const now = db.clock.now();
    db.write(() =>
      db.prepare("INSERT INTO api_tokens (hash, label, created_at) VALUES (?, ?, ?)").run(
        hash,
        name,
        now,
      )
    );
    return { id: hash.slice(0, TOKEN_ID_LENGTH), name, createdAt: now, lastUsedAt: null };
  }

  /** Every token, oldest first. */
  list(): ApiTokenRow[] {
    const rows = this.#db.prepare(
      "SELECT hash, label, created_at, last_used_at FROM api_tokens ORDER BY created_at, hash",
    ).all() as { hash: string; label: string; created_at: number; last_used_at: number | null }[];
    return rows.map((r) => ({
      id: r.hash.slice(0, TOKEN_ID_LENGTH),
      name: r.label,
      createdAt: r.created_at,
      lastUsedAt: r.last_used_at,
    }));
  }

  /** Whether a token with this hash exists; stamps its last use (at most once a minute). */
  use(hash: string): boolean {
    const db = this.#db;
    const row = db.prepare("SELECT last_used_at FROM api_tokens WHERE hash = ?").get(hash) as
      | { last_used_at: number | null }
      | undefined;
    if (!row) return false;
    const now = db.clock.now();
    if (row.last_used_at === null || now - row.last_used_at > 60_000) {
      db.write(() =>
        db.prepare("UPDATE api_tokens SET last_used_at = ? WHERE hash = ?").run(now, hash)
      );
    }
    return true;
  }

  /** Removes the tokens whose id starts with `prefix`; returns the ones removed. */
  revoke(prefix: string): ApiTokenRow[] {
    const db = this.#db;
    return db.write(() => {
      const hits = this.list().filter((t) => t.id.startsWith(prefix.toLowerCase()));
      if (hits.length !== 1) return hits.length === 0 ? [] : hits;
      db.prepare("DELETE FROM api_tokens WHERE substr(hash, 1, ?) = ?").run(
        TOKEN_ID_LENGTH,
        hits[0]!.id,
      );
      return hits;
    });
  }

  /** The saved login password's scrypt hash, or null. */
  password(): string | null {
    const row = this.#db.prepare("SELECT hash FROM server_password WHERE id = 1").get() as
      | { hash: string }
      | undefined;
    return row?.hash ?? null;
  }

  /** Saves (or with null removes) the login password's scrypt hash. */
  setPassword(hash: string | null): void {
    const db = this.#db;
    db.write(() => {
      if (hash === null) db.prepare("DELETE FROM server_password").run();
      else {
        db.prepare(
          `INSERT INTO server_password (id, hash, set_at) VALUES (1, ?, ?)
           ON CONFLICT (id) DO UPDATE SET hash = excluded.hash, set_at = excluded.set_at`,
        ).run(hash, db.clock.now());
      }
    });
  }
}
