import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { generateClaudeLogs } from "../../scripts/gen_claude_logs.ts";
import { baseEnv, runBonsai, spawnBonsai } from "../support/bonsai_process.ts";
import { tempDir } from "../support/temp.ts";

/** What an import produced, in numbers that must not depend on how it was interrupted. */
function summary(home: string) {
  const db = new DatabaseSync(join(home, "bonsai.db"), { readOnly: true });
  try {
    const one = (sql: string) => Object.values(db.prepare(sql).get()!)[0];
    return {
      sessions: one("SELECT count(*) FROM sessions"),
      messages: one("SELECT count(*) FROM messages"),
      counted: one("SELECT sum(message_count) FROM sessions"),
      fts: one("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'the OR a OR to'"),
      ledger: one("SELECT count(*) FROM ledger"),
      tokens: one(
        "SELECT sum(input_tokens + output_tokens + cache_read_tokens + cache_write_5m_tokens + cache_write_1h_tokens) FROM ledger",
      ),
      rollup: one(
        "SELECT sum(input_tokens + output_tokens + cache_read_tokens + cache_write_5m_tokens + cache_write_1h_tokens) FROM usage_rollup",
      ),
      tools: one("SELECT count(*) FROM tool_calls"),
      pending: one("SELECT count(*) FROM tool_calls WHERE status = 'pending'"),
    };
  } finally {
    db.close();
  }
}

Deno.test({
  name: "bonsai import killed with SIGKILL mid-way resumes to exactly what one clean run imports",
  sanitizeResources: false,
  async fn() {
    await using dir = await tempDir();
    const logs = join(dir.path, "claude");
    await generateClaudeLogs({ out: logs, entries: 12_000, seed: 3, days: 20 });
    const clean = join(dir.path, "clean");
    const env = (home: string) => baseEnv(home);
    const args = ["import", "claude-code", "--path", logs, "--json"];
    const once = await runBonsai(args, { cwd: dir.path, env: env(clean) });
    assert.equal(once.code, 0, once.stderr);
    const expected = summary(clean);
    assert.ok((expected.ledger as number) > 10_000);
    assert.equal(expected.counted, expected.messages, "message counts kept per batch");
    assert.equal(expected.rollup, expected.tokens, "rollups added per batch");

    const killed = join(dir.path, "killed");
    let kills = 0;
    for (let attempt = 0; attempt < 3; attempt++) {
      const child = spawnBonsai(args, { cwd: dir.path, env: env(killed) });
      // Kill it once some (not all) of the files are recorded as read.
      const deadline = Date.now() + 60_000;
      let done = false;
      while (Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 25));
        try {
          const db = new DatabaseSync(join(killed, "bonsai.db"), { readOnly: true });
          const n = (db.prepare("SELECT count(*) AS n FROM import_files").get() as { n: number })
            .n;
          db.close();
          if (n > attempt * 10 + 5) break;
        } catch {
          // not created yet
        }
      }
      try {
        child.kill("SIGKILL");
        kills++;
      } catch {
        done = true; // it finished first
      }
      await child.status;
      if (done) break;
    }
    assert.ok(kills > 0, "the import was interrupted at least once");
    const resumed = await runBonsai(args, { cwd: dir.path, env: env(killed) });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(summary(killed), expected);
    const again = JSON.parse((await runBonsai(args, { cwd: dir.path, env: env(killed) })).stdout);
    assert.equal(again.ledger_rows, 0, "a further run adds nothing");
    assert.equal(again.messages, 0);
  },
});
