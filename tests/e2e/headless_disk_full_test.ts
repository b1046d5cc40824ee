import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { LoopbackServer } from "../support/loopback_server.ts";
import { anthropic } from "../support/sse_scripts.ts";
import { baseEnv } from "../support/bonsai_process.ts";
import { tempDir } from "../support/temp.ts";
import { TmpfsHome, tmpfsTest } from "../support/tmpfs.ts";

/** The rows a run leaves, table by table, for "nothing committed was lost" comparisons. */
function rows(path: string): Record<string, unknown[]> {
  const db = new DatabaseSync(path);
  try {
    const check = db.prepare("PRAGMA integrity_check").get() as { integrity_check: string };
    assert.equal(check.integrity_check, "ok");
    const all = (sql: string) => db.prepare(sql).all().map((r) => JSON.stringify(r));
    return {
      sessions: all("SELECT id, project_id, title, created_at FROM sessions ORDER BY id"),
      messages: all(
        "SELECT session_id, seq, role, kind, text FROM messages ORDER BY session_id, seq",
      ),
      ledger: all(
        "SELECT session_id, seq, model, input_tokens, output_tokens, cost_usd FROM ledger ORDER BY session_id, seq",
      ),
    };
  } finally {
    db.close();
  }
}

await tmpfsTest(
  "headless run on a full disk exits 4 with a JSON error and loses nothing committed",
  async () => {
    await using dir = await tempDir();
    const work = join(dir.path, "work");
    await Deno.mkdir(work);
    await using server = await LoopbackServer.start();
    await using tmpfs = await TmpfsHome.mount({ sizeBytes: 8 << 20 });
    const env = baseEnv(tmpfs.home, {
      ANTHROPIC_API_KEY: "sk-ant-test-0000000000000000000000",
      ANTHROPIC_BASE_URL: server.url,
    });
    server.anthropic(
      { events: anthropic.reply({ text: "The first answer, saved whole." }) },
      // Two megabytes of answer, more than the disk will have room for, streamed slowly
      // enough (over a second) for the run to save its start first.
      {
        events: anthropic.reply({
          text: "lorem ipsum dolor sit amet ".repeat(80_000),
          split: 64 << 10,
        }),
        delayMs: 40,
      },
    );

    const first = await tmpfs.run(["-p", "first question", "--json"], { cwd: work, env });
    assert.equal(first.code, 0, first.stderr);
    assert.equal(JSON.parse(first.stdout).status, "completed");
    const before = rows(await tmpfs.copyDatabase(join(dir.path, "before")));
    assert.ok(before.messages!.length >= 2, "the first run saved its messages");

    await tmpfs.fill(256 << 10);
    const second = await tmpfs.run(["-p", "second question", "--json"], { cwd: work, env });
    assert.equal(second.code, 4, `exit code ${second.code}: ${second.stderr}`);
    const errorLine = second.stderr.trimEnd().split("\n").at(-1)!;
    const error = JSON.parse(errorLine).error;
    assert.equal(error.code, "DISK_FULL", errorLine);
    assert.match(
      error.message,
      new RegExp(
        `^Cannot write to '${tmpfs.home}' \\(BONSAI_HOME\\): the disk is full \\(\\d+(\\.\\d)? (B|KiB) free\\); what was already saved is kept`,
      ),
    );
    if (second.stdout.trim() !== "") {
      assert.notEqual(JSON.parse(second.stdout).status, "completed", second.stdout);
    }

    await tmpfs.free();
    const after = rows(await tmpfs.copyDatabase(join(dir.path, "after")));
    for (const [table, kept] of Object.entries(before)) {
      for (const row of kept) assert.ok(after[table]!.includes(row), `${table} kept ${row}`);
    }
    // The second run's start was saved before the disk filled, and is kept too.
    assert.equal(after.sessions!.length, before.sessions!.length + 1);
    assert.ok(after.messages!.some((m) => String(m).includes('"text":"second question"')));
    // The disk has room again: bonsai works on the same database.
    server.anthropic({ events: anthropic.reply({ text: "Third time lucky." }) });
    const third = await tmpfs.run(["-p", "third question", "--json"], { cwd: work, env });
    assert.equal(third.code, 0, third.stderr);
    assert.equal(JSON.parse(third.stdout).result, "Third time lucky.");
  },
);
