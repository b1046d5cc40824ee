import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { LoopbackServer } from "../support/loopback_server.ts";
import { anthropic } from "../support/sse_scripts.ts";
import { baseEnv, runBonsai, spawnRepl } from "../support/bonsai_process.ts";
import { tempDir } from "../support/temp.ts";

/** Every table's rows, in a stable order: the database's logical content. */
function dump(path: string): string {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const tables = db.prepare(
      "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name",
    )
      .all() as { name: string }[];
    return JSON.stringify(
      tables.map(({ name }) => [name, db.prepare(`SELECT * FROM "${name}" ORDER BY 1, 2`).all()]),
    );
  } finally {
    db.close();
  }
}

Deno.test("resuming a session another live process owns, or another project's, is refused and changes nothing", async () => {
  await using dir = await tempDir();
  await using server = await LoopbackServer.start();
  const home = join(dir.path, "home");
  const work = join(dir.path, "work");
  const elsewhere = join(dir.path, "elsewhere");
  await Deno.mkdir(work);
  await Deno.mkdir(elsewhere);
  server.route(() => ({ events: anthropic.reply({ text: "hello from the owner" }) }));
  const env = baseEnv(home, {
    ANTHROPIC_API_KEY: "sk-ant-test-0000000000000000000000",
    ANTHROPIC_BASE_URL: server.url,
  });
  // Process A: a REPL that keeps its session live (stdin stays open).
  const owner = spawnRepl({ cwd: work, env });
  const writer = owner.stdin.getWriter();
  await writer.write(new TextEncoder().encode("say hello\n"));
  let out = "";
  const reading = (async () => {
    for await (const chunk of owner.stdout) out += new TextDecoder().decode(chunk);
  })();
  try {
    const deadline = Date.now() + 15_000;
    while (!out.includes("hello from the owner") && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(out.includes("hello from the owner"), out);
    await new Promise((r) => setTimeout(r, 600)); // one persister tick
    const dbPath = join(home, "bonsai.db");
    const id =
      (JSON.parse((await runBonsai(["sessions", "--json"], { cwd: work, env })).stdout) as {
        id: string;
        status: string;
      }[])[0]!;
    assert.equal(id.status, "active");
    // Freeze the owner so its own heartbeat cannot move the bytes while B tries.
    Deno.kill(owner.pid, "SIGSTOP");
    try {
      const before = dump(dbPath);
      const live = await runBonsai(["-c", id.id, "-p", "take over", "--json"], { cwd: work, env });
      assert.equal(live.code, 5, live.stderr);
      assert.match(live.stderr, /is live in process/);
      const liveRepl = await runBonsai(["-c", id.id.slice(0, 12)], { cwd: work, env });
      assert.equal(liveRepl.code, 5);
      const cross = await runBonsai(["-c", id.id, "-p", "wrong project"], { cwd: elsewhere, env });
      assert.equal(cross.code, 5);
      assert.match(cross.stderr, /belongs to project/);
      assert.equal(dump(dbPath), before, "refused resumes leave the database as it was");
    } finally {
      Deno.kill(owner.pid, "SIGCONT");
    }
  } finally {
    await writer.close();
    await owner.status;
    await reading;
  }
  // Once the owner has quit, the session can be continued.
  const after = await runBonsai(["-c", "-p", "my turn now", "--json"], { cwd: work, env });
  assert.equal(after.code, 0, after.stderr);
});
