import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { generateClaudeLogs } from "../../scripts/gen_claude_logs.ts";
import { baseEnv, runBonsai } from "../support/bonsai_process.ts";
import { tempDir } from "../support/temp.ts";
import { TmpfsHome, tmpfsTest } from "../support/tmpfs.ts";

/** What an import produced, in numbers that must not depend on how often it was stopped. */
function summary(db: DatabaseSync) {
  const one = (sql: string) => Number(Object.values(db.prepare(sql).get()!)[0]);
  return {
    sessions: one("SELECT count(*) FROM sessions"),
    messages: one("SELECT count(*) FROM messages"),
    counted: one("SELECT coalesce(sum(message_count), 0) FROM sessions"),
    ledger: one("SELECT count(*) FROM ledger"),
    tokens: one(
      "SELECT coalesce(sum(input_tokens + output_tokens + cache_read_tokens + cache_write_5m_tokens + cache_write_1h_tokens), 0) FROM ledger",
    ),
    rollup: one(
      "SELECT coalesce(sum(input_tokens + output_tokens + cache_read_tokens + cache_write_5m_tokens + cache_write_1h_tokens), 0) FROM usage_rollup",
    ),
    cost: one("SELECT round(coalesce(sum(cost_usd), 0), 6) FROM ledger"),
    tools: one("SELECT count(*) FROM tool_calls"),
  };
}

/** Every imported response and message, by its source id. */
function sourceIds(db: DatabaseSync): Set<string> {
  const rows = db.prepare(
    `SELECT 'ledger:' || external_id AS id FROM ledger
     UNION ALL SELECT 'message:' || session_id || ':' || external_id FROM messages`,
  ).all() as { id: string }[];
  return new Set(rows.map((r) => r.id));
}

function openCopy(path: string): DatabaseSync {
  const db = new DatabaseSync(path);
  const check = db.prepare("PRAGMA integrity_check").get() as { integrity_check: string };
  assert.equal(check.integrity_check, "ok");
  return db;
}

await tmpfsTest(
  "bonsai import on a full disk exits 4 saying so, keeps its commits, and resumes to one clean run's result",
  async () => {
    await using dir = await tempDir();
    const logs = join(dir.path, "claude");
    await generateClaudeLogs({ out: logs, entries: 6000, seed: 11, days: 10 });
    const args = ["import", "claude-code", "--path", logs];

    const clean = join(dir.path, "clean");
    const once = await runBonsai([...args, "--json"], { cwd: dir.path, env: baseEnv(clean) });
    assert.equal(once.code, 0, once.stderr);
    const cleanDb = openCopy(join(clean, "bonsai.db"));
    const expected = summary(cleanDb);
    cleanDb.close();
    const size = (await Deno.stat(join(clean, "bonsai.db"))).size;

    await using tmpfs = await TmpfsHome.mount({ sizeBytes: 4 * size });
    const env = baseEnv(tmpfs.home);
    // Room for the schema and a commit or two, not for the whole import.
    await tmpfs.fill(Math.floor(size / 2));
    const failed = await tmpfs.run(args, { cwd: dir.path, env });
    assert.equal(failed.code, 4, failed.stderr);
    assert.equal(failed.stdout, "", "no summary claims success");
    const lines = failed.stderr.trimEnd().split("\n");
    assert.equal(lines.length, 1, failed.stderr);
    assert.match(
      lines[0]!,
      new RegExp(
        `^bonsai: Cannot write to '${tmpfs.home}' \\(BONSAI_HOME\\): the disk is full \\(\\d+(\\.\\d)? (B|KiB|MiB) free\\); what was already saved is kept\\. Free some space and try again \\(the import resumes where it stopped\\)$`,
      ),
    );

    // Still full: --json reports the same failure as one JSON error.
    const again = await tmpfs.run([...args, "--json"], { cwd: dir.path, env });
    assert.equal(again.code, 4, again.stderr);
    assert.equal(again.stdout, "");
    const error = JSON.parse(again.stderr).error;
    assert.equal(error.code, "DISK_FULL");
    assert.match(error.message, /the disk is full/);
    assert.equal(error.data.path, tmpfs.home);
    assert.ok(error.data.free_bytes < 1 << 20, `free_bytes ${error.data.free_bytes}`);

    const partialDb = openCopy(await tmpfs.copyDatabase(join(dir.path, "partial")));
    const partial = summary(partialDb);
    const kept = sourceIds(partialDb);
    partialDb.close();
    assert.ok(partial.ledger > 0, "a batch was committed before the disk filled");
    assert.ok(partial.ledger < expected.ledger, "the disk filled before the import ended");
    assert.equal(partial.counted, partial.messages, "committed batches are whole");
    assert.equal(partial.rollup, partial.tokens, "committed batches are whole");

    await tmpfs.free();
    const resumed = await tmpfs.run([...args, "--json"], { cwd: dir.path, env });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.ok(JSON.parse(resumed.stdout).ledger_rows < expected.ledger, "it resumed");
    const finalDb = openCopy(await tmpfs.copyDatabase(join(dir.path, "final")));
    assert.deepEqual(summary(finalDb), expected);
    const all = sourceIds(finalDb);
    finalDb.close();
    for (const id of kept) assert.ok(all.has(id), `${id} was committed and is kept`);

    const nothing = await tmpfs.run([...args, "--json"], { cwd: dir.path, env });
    assert.equal(nothing.code, 0, nothing.stderr);
    assert.equal(JSON.parse(nothing.stdout).ledger_rows, 0, "a further run adds nothing");
  },
);
