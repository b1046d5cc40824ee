import { isAbsolute, join, resolve } from "node:path";
import { BonsaiError } from "./errors.ts";

/** The process environment as plain data, injected so tests control it. */
export type Env = Readonly<Record<string, string | undefined>>;

/** Where bonsai keeps its state. */
export interface Home {
  /** `$BONSAI_HOME`, default `~/.bonsai`. */
  readonly dir: string;
  /** The database file. */
  readonly dbPath: string;
  /** Online backups taken before migrations and restores. */
  readonly backupsDir: string;
}

/** Resolves the bonsai home from the environment. */
export function homeFrom(env: Env): Home {
  const configured = env.BONSAI_HOME?.trim();
  let dir: string;
  if (configured) {
    dir = isAbsolute(configured) ? configured : resolve(configured);
  } else {
    const userHome = env.HOME ?? env.USERPROFILE;
    if (!userHome) {
      throw new BonsaiError("CONFIG", "Cannot find a home directory: set BONSAI_HOME or HOME");
    }
    dir = join(userHome, ".bonsai");
  }
  return homeAt(dir);
}

/** A home rooted at an explicit directory. */
export function homeAt(dir: string): Home {
  return { dir, dbPath: join(dir, "bonsai.db"), backupsDir: join(dir, "backups") };
}
