import type { Db } from "./db.ts";

/** A workspace root that sessions belong to. */
export interface Project {
  readonly id: number;
  readonly rootPath: string;
  readonly createdAt: number;
}

interface ProjectRecord {
  id: number;
  root_path: string;
  created_at: number;
}

/** Projects keyed by canonical root path. */
export class ProjectStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** The project at `rootPath`, created if new. `rootPath` must already be canonical. */
  ensure(rootPath: string): Project {
    return this.#db.write(() => {
      const found = this.find(rootPath);
      if (found) return found;
      const createdAt = this.#db.clock.now();
      const { lastInsertRowid } = this.#db
        .prepare("INSERT INTO projects (root_path, created_at) VALUES (?, ?)")
        .run(rootPath, createdAt);
      return { id: Number(lastInsertRowid), rootPath, createdAt };
    });
  }

  /** The project at exactly `rootPath`, or null. */
  find(rootPath: string): Project | null {
    const row = this.#db
      .prepare("SELECT id, root_path, created_at FROM projects WHERE root_path = ?")
      .get(rootPath) as ProjectRecord | undefined;
    return row ? { id: row.id, rootPath: row.root_path, createdAt: row.created_at } : null;
  }

  /** Every project, by path. */
  list(): Project[] {
    const rows = this.#db
      .prepare("SELECT id, root_path, created_at FROM projects ORDER BY root_path")
      .all() as unknown as ProjectRecord[];
    return rows.map((r) => ({ id: r.id, rootPath: r.root_path, createdAt: r.created_at }));
  }
}
