import type { Db } from "./db.ts";

/** Saved settings (budget presets, defaults). Values are JSON text; secrets only as `env:NAME`. */
export class SettingsStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Every setting of a scope ('global' or a project root). */
  all(scope = "global"): Map<string, string> {
    const rows = this.#db.prepare("SELECT key, value FROM settings WHERE scope = ? ORDER BY key")
      .all(scope) as {
        key: string;
        value: string;
      }[];
    return new Map(rows.map((r) => [r.key, r.value]));
  }

  /** One setting's JSON text, or null. */
  get(key: string, scope = "global"): string | null {
    const row = this.#db.prepare("SELECT value FROM settings WHERE scope = ? AND key = ?").get(
      scope,
      key,
    ) as
      | { value: string }
      | undefined;
    return row?.value ?? null;
  }

  /** Saves (or with null removes) a setting. The value is redacted like every stored text. */
  set(key: string, value: string | null, scope = "global"): void {
    const db = this.#db;
    db.write(() => {
      if (value === null) {
        db.prepare("DELETE FROM settings WHERE scope = ? AND key = ?").run(scope, key);
      } else {
        db.prepare(
          `INSERT INTO settings (scope, key, value, updated_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
        ).run(scope, key, db.redactor.redact(value), db.clock.now());
      }
    });
  }
}
