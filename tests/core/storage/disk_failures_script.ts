// Runs inside the namespace of a tmpfs home (tests/support/tmpfs.ts): makes the storage
// layer meet a full disk, a read-only file system and a forbidden folder for real, and
// prints one JSON line per case with the error bonsai raised and the SQLite error under
// it. Usage: deno run -A disk_failures_script.ts <tmpfs root> [denied home]
import { statfsSync } from "node:fs";
import { join } from "node:path";
import { isBonsaiError } from "../../../core/errors.ts";
import { sqliteExtendedCode } from "../../../core/storage/sqlite_errors.ts";
import { MIGRATIONS } from "../../../migrations/mod.ts";
import { openTestDb } from "../../support/db.ts";
import { type Db, hasIndex } from "../../../core/storage/db.ts";
import type { Ids } from "../../../core/ids.ts";
import { importClaudeCode } from "../../../core/import/claude_code.ts";
import { EXTERNAL_INDEX } from "../../../core/storage/ledger.ts";
import { DURATION_INDEX } from "../../../core/storage/tool_calls.ts";
import { generateClaudeLogs } from "../../../scripts/gen_claude_logs.ts";

const [root, deniedHome] = Deno.args as [string, string | undefined];
const filler = join(root, "filler");

function freeBytes(): number {
  const s = statfsSync(root);
  return Number(s.bavail) * Number(s.bsize);
}

/** Fills the tmpfs until at most `leave` bytes are free. */
function fill(leave: number): void {
  using file = Deno.openSync(filler, { create: true, append: true });
  for (let free = freeBytes(); free > leave; free = freeBytes()) {
    try {
      file.writeSync(new Uint8Array(Math.max(4096, Math.min(1 << 20, free - leave))));
    } catch (err) {
      if ((err as { code?: string }).code === "ENOSPC") return;
      throw err;
    }
  }
}

function unfill(): void {
  Deno.removeSync(filler);
}

/** The error bonsai raised, and the raw SQLite or file error under it. */
function report(err: unknown) {
  if (!isBonsaiError(err)) {
    return { code: null, message: String(err), raw: null };
  }
  let cause: unknown = err.cause;
  while (isBonsaiError(cause)) cause = cause.cause;
  return {
    code: err.code,
    message: err.message,
    data: err.data,
    raw: cause instanceof Error
      ? {
        errcode: sqliteExtendedCode(cause),
        code: (cause as { code?: unknown }).code,
        message: cause.message,
      }
      : null,
  };
}

async function failure(fn: () => unknown): Promise<ReturnType<typeof report>> {
  try {
    await fn();
  } catch (err) {
    return report(err);
  }
  throw new Error("expected a failure");
}

function fillerRows(db: Db): number {
  return (db.prepare("SELECT count(*) AS n FROM filler").get() as { n: number }).n;
}

function integrity(db: Db): string {
  return (db.prepare("PRAGMA integrity_check").get() as { integrity_check: string })
    .integrity_check;
}

/** Reopens a home after its failure, with the space back: what survived. */
async function survivors(home: string) {
  const { db } = await openTestDb(home);
  try {
    return { rows: fillerRows(db), integrity: integrity(db) };
  } finally {
    db.close();
  }
}

/** What an import stored, by source ids (session ids differ from run to run). */
function imported(db: Db) {
  const all = (sql: string) => db.prepare(sql).all().map((r) => Object.values(r).join("|"));
  return {
    sessions: all("SELECT external_id, title, message_count FROM sessions ORDER BY external_id"),
    messages: all("SELECT count(*), count(DISTINCT external_id) FROM messages"),
    ledger: all(
      `SELECT external_id, input_tokens, output_tokens, cache_read_tokens, cache_write_5m_tokens,
         cache_write_1h_tokens FROM ledger ORDER BY external_id`,
    ),
    rollup: all(
      "SELECT sum(input_tokens), sum(output_tokens), sum(cache_read_tokens) FROM usage_rollup",
    ),
    tools: all("SELECT count(*), count(DISTINCT call_id) FROM tool_calls"),
  };
}

async function seeded(home: string): Promise<Db> {
  const { db } = await openTestDb(home);
  db.write(() => {
    db.connection.exec("CREATE TABLE filler(x)");
    db.prepare("INSERT INTO filler VALUES ('committed before the disk filled')").run();
  });
  return db;
}

const cases: Record<string, (home: string) => Promise<Record<string, unknown>>> = {
  async "open on a full disk"(home) {
    fill(0);
    const error = await failure(() => openTestDb(home));
    unfill();
    return { error };
  },
  async "commit that fills the WAL"(home) {
    const db = await seeded(home);
    fill(64 << 10);
    const error = await failure(() =>
      db.write(() => db.prepare("INSERT INTO filler VALUES (randomblob(1000000))").run())
    );
    db.close();
    unfill();
    return { error, after: await survivors(home) };
  },
  async "checkpoint into a full disk"(home) {
    const db = await seeded(home);
    db.setAutoCheckpoint(0);
    db.write(() => db.prepare("INSERT INTO filler VALUES (randomblob(1000000))").run());
    fill(0);
    const error = await failure(() => db.checkpoint());
    db.close();
    unfill();
    return { error, after: await survivors(home) };
  },
  async "WAL index (-shm) that cannot grow"(home) {
    const db = await seeded(home);
    db.setAutoCheckpoint(0);
    const frames = () => (Deno.statSync(`${home}/bonsai.db-wal`).size - 32) / (4096 + 24);
    // The second 32 KiB region of the WAL index covers frames up to 8158.
    const last = 4062 + 4096;
    db.write(() => {
      const insert = db.prepare("INSERT INTO filler VALUES (randomblob(3000))");
      for (let i = 0; i < last - 300; i++) insert.run();
    });
    const small = db.prepare("INSERT INTO filler VALUES ('x')");
    while (frames() < last - 2) db.write(() => small.run());
    // Room for the frames before the boundary, not for the next 32 KiB of index.
    fill((last + 1 - frames()) * 8192);
    const error = await failure(() => {
      for (let i = 0; i < 10; i++) db.write(() => small.run());
    });
    const rows = fillerRows(db);
    db.close();
    unfill();
    const after = await survivors(home);
    return { error, after, committedRowsKept: after.rows >= rows };
  },
  async "backup before an upgrade"(home) {
    const { db } = await openTestDb(home, { migrations: MIGRATIONS.slice(0, -1) });
    db.write(() => db.connection.exec("CREATE TABLE filler(x)"));
    db.write(() => db.prepare("INSERT INTO filler VALUES (randomblob(1000000))").run());
    db.close();
    fill(256 << 10);
    const error = await failure(() => openTestDb(home));
    const leftovers = [...Deno.readDirSync(join(home, "backups"))].map((e) => e.name);
    unfill();
    const after = await survivors(home);
    return { error, leftovers, after };
  },
  async "bulk import that fills the disk"(home) {
    // The logs, and a clean import to compare with, live on the real disk.
    const work = await Deno.makeTempDir({ prefix: "bonsai-bulk-import-" });
    try {
      const logs = join(work, "logs");
      await generateClaudeLogs({ out: logs, entries: 1500, seed: 7, days: 5 });
      // Bulk from the first commit on: the indexes are dropped, and rebuilt at the end.
      const run = ({ db, ids }: { db: Db; ids: Ids }) =>
        importClaudeCode({
          db,
          ids,
          roots: [logs],
          bulkRecords: 1,
          commitRecords: 500,
          parallel: false,
        });
      const clean = await openTestDb(join(work, "clean"));
      await run(clean);
      const expected = imported(clean.db);
      clean.db.close();
      const first = await openTestDb(home);
      fill(Deno.statSync(join(work, "clean", "bonsai.db")).size / 2);
      const error = await failure(() => run(first));
      const indexesDropped = !hasIndex(first.db, EXTERNAL_INDEX) &&
        !hasIndex(first.db, DURATION_INDEX);
      const committed = imported(first.db).ledger.length;
      first.db.close();
      unfill();
      const second = await openTestDb(home);
      await run(second);
      const result = imported(second.db);
      const rebuilt = hasIndex(second.db, EXTERNAL_INDEX) && hasIndex(second.db, DURATION_INDEX);
      second.db.close();
      return {
        error,
        indexesDropped,
        committed,
        expected: expected.ledger.length,
        sameAsClean: JSON.stringify(result) === JSON.stringify(expected),
        rebuilt,
      };
    } finally {
      Deno.removeSync(work, { recursive: true });
    }
  },
  async "read-only file system"(home) {
    (await seeded(home)).close();
    const run = (command: string, ...args: string[]) => {
      const out = new Deno.Command(command, { args }).outputSync();
      if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
    };
    run("mount", "--bind", home, home);
    run("mount", "-o", "remount,bind,ro", home);
    const error = await failure(() => openTestDb(home));
    run("umount", home);
    return { error };
  },
};

for (const [name, run] of Object.entries(cases)) {
  const home = join(root, name.replace(/\W+/g, "-"));
  console.log(JSON.stringify({ case: name, home, ...await run(home) }));
  Deno.removeSync(home, { recursive: true }); // the next case gets the whole disk
}
if (deniedHome !== undefined) {
  const error = await failure(() => openTestDb(deniedHome));
  console.log(JSON.stringify({ case: "permission denied", home: deniedHome, error }));
}
