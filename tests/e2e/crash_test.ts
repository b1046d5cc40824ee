import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { Prng } from "../../scripts/lib/prng.ts";
import { LoopbackServer } from "../support/loopback_server.ts";
import { anthropic } from "../support/sse_scripts.ts";
import { baseEnv, runBonsai, spawnRepl } from "../support/bonsai_process.ts";
import { tempDir } from "../support/temp.ts";

const ROUNDS = 20;
const STORY = `STORY: ${Array.from({ length: 160 }, (_, i) => `word${i}`).join(" ")}`;

Deno.test("kill -9 the REPL mid-stream 20 times: intact database, nothing seen >500 ms before the kill is lost, resumable", async () => {
  await using dir = await tempDir();
  await using server = await LoopbackServer.start();
  const home = join(dir.path, "home");
  const work = join(dir.path, "work");
  await Deno.mkdir(work);
  server.route((_route, body) => {
    const messages = body.messages as {
      role: string;
      content: { type: string; text?: string }[];
    }[];
    const last = messages.at(-1)!.content.at(-1)!;
    if (last.text === "continue after the crash") {
      return { events: anthropic.reply({ text: "continued" }) };
    }
    return { events: anthropic.reply({ text: STORY, split: 6 }), delayMs: 12 };
  });
  const env = baseEnv(home, {
    ANTHROPIC_API_KEY: "sk-ant-test-0000000000000000000000",
    ANTHROPIC_BASE_URL: server.url,
  });
  const seed = Number(Deno.env.get("BONSAI_CRASH_SEED") ?? 20261130);
  const rng = new Prng(seed);
  for (let round = 0; round < ROUNDS; round++) {
    const child = spawnRepl({ cwd: work, env });
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode("tell me the long story\n"));
    // Read what the user sees, with the time each piece arrived.
    const seen: { at: number; text: string }[] = [];
    let all = "";
    const reading = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of child.stdout) {
        all += decoder.decode(chunk, { stream: true });
        seen.push({ at: Date.now(), text: all });
      }
    })();
    const start = Date.now();
    while (!all.includes("STORY:") && Date.now() - start < 15_000) {
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.ok(all.includes("STORY:"), `round ${round}: the stream never started:\n${all}`);
    await new Promise((r) => setTimeout(r, 100 + Math.floor(rng.next() * 1400)));
    const killedAt = Date.now();
    child.kill("SIGKILL");
    await child.status;
    await reading.catch(() => {});
    await writer.close().catch(() => {});

    const before = [...seen].reverse().find((s) => s.at < killedAt - 500)?.text ?? "";
    const shown = before.includes("STORY:") ? before.slice(before.indexOf("STORY:")) : "";
    const db = new DatabaseSync(join(home, "bonsai.db"), { readOnly: true });
    try {
      const check = db.prepare("PRAGMA integrity_check").get() as { integrity_check: string };
      assert.equal(check.integrity_check, "ok", `round ${round} (seed ${seed})`);
      const reply = db.prepare(
        "SELECT m.text FROM messages m JOIN sessions s ON s.id = m.session_id WHERE m.role = 'assistant' ORDER BY m.id DESC LIMIT 1",
      ).get() as { text: string } | undefined;
      const stored = reply?.text ?? "";
      if (Deno.env.get("CRASH_DEBUG")) {
        console.log(`round ${round}: shown ${shown.length}, stored ${stored.length}`);
      }
      assert.ok(
        stored.startsWith(shown),
        `round ${round} (seed ${seed}): the user saw ${shown.length} chars more than 500 ms before the kill, the database has ${stored.length}`,
      );
    } finally {
      db.close();
    }
    // The next start finds the crashed session and marks it interrupted; -c continues it.
    const list = await runBonsai(["sessions", "--json"], { cwd: work, env });
    const sessions = JSON.parse(list.stdout) as { id: string; status: string }[];
    assert.equal(sessions[0]!.status, "interrupted", `round ${round}`);
    if (round % 5 === 4) {
      const resumed = await runBonsai(["-c", "-p", "continue after the crash", "--json"], {
        cwd: work,
        env,
      });
      assert.equal(resumed.code, 0, resumed.stderr);
      const json = JSON.parse(resumed.stdout);
      assert.equal(json.session_id, sessions[0]!.id);
      assert.equal(json.result, "continued");
    }
  }
});
