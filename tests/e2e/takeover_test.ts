// P2 fencing with real processes: a REPL suspended past the liveness window (Ctrl-Z, a
// sleeping laptop) loses its session to another process, and when it wakes it writes
// nothing over that process's turn: its own turn goes on in a linked session.
import assert from "node:assert/strict";
import { join } from "node:path";
import { LoopbackServer } from "../support/loopback_server.ts";
import { baseEnv, runBonsai, spawnRepl } from "../support/bonsai_process.ts";
import { tempDir } from "../support/temp.ts";
import { collect, lastTurn, providerEnv, query, reply, until } from "../support/tool_turn.ts";

Deno.test("Ctrl-Z the REPL past the liveness window; another process continues the session; the woken REPL forks instead of writing over it", async () => {
  await using dir = await tempDir();
  await using server = await LoopbackServer.start();
  const home = join(dir.path, "home");
  const work = join(dir.path, "work");
  await Deno.mkdir(work);
  server.route((_route, body) => {
    const last = lastTurn(body);
    return {
      events: reply("anthropic", { text: `answer to ${last.kind === "prompt" ? last.text : "?"}` }),
    };
  });
  const env = baseEnv(home, providerEnv(server, "anthropic"));
  const repl = spawnRepl({ cwd: work, env });
  const out = collect(repl.stdout);
  const type = async (line: string) => {
    const writer = repl.stdin.getWriter();
    await writer.write(new TextEncoder().encode(`${line}\n`));
    writer.releaseLock();
  };
  try {
    await type("first");
    // Idle again (the next prompt is shown): Ctrl-Z then lands outside any transaction,
    // as it does for a person who stops a REPL that is waiting for them.
    const idle = () => /answer to first[\s\S]*\n> $/.test(out.text);
    await until(idle, "the first answer and the next prompt");
    const session = query<{ id: string }>(home, "SELECT id FROM sessions")[0]!.id;

    // Ctrl-Z: the REPL stops heartbeating; after 15 s it no longer counts as live.
    repl.kill("SIGSTOP");
    await new Promise((r) => setTimeout(r, 16_500));
    const other = await runBonsai(["-c", "-p", "second", "--json"], { cwd: work, env });
    assert.equal(other.code, 0, other.stderr);
    assert.equal(JSON.parse(other.stdout).session_id, session);

    // fg: the REPL wakes and the person goes on typing.
    repl.kill("SIGCONT");
    await type("third");
    await until(() => out.text.includes("answer to third"), "the third answer");
    assert.match(
      out.text,
      new RegExp(`Session 'first' \\(${session}\\) was taken over by process \\d+`),
    );

    const rows = query<{ session_id: string; seq: number; role: string; text: string }>(
      home,
      "SELECT session_id, seq, role, text FROM messages WHERE role IN ('user', 'assistant') ORDER BY session_id, seq",
    );
    const own = rows.filter((r) => r.session_id === session).map((r) => r.text);
    assert.deepEqual(own, ["first", "answer to first", "second", "answer to second"]);
    const fork = query<{ id: string; parent_id: string; title: string }>(
      home,
      `SELECT id, parent_id, title FROM sessions WHERE id <> '${session}'`,
    );
    assert.equal(fork.length, 1);
    assert.equal(fork[0]!.parent_id, session);
    assert.match(fork[0]!.title, /kept after a takeover/);
    assert.deepEqual(rows.filter((r) => r.session_id === fork[0]!.id).map((r) => r.text), [
      "third",
      "answer to third",
    ]);
    const dupes = query<{ n: number }>(
      home,
      "SELECT count(*) - count(DISTINCT session_id || ':' || seq) AS n FROM messages",
    );
    assert.deepEqual(dupes, [{ n: 0 }], "no message seq is written twice");
    // The model in the fork still sees the conversation it had.
    const third = server.requests.at(-1)!.body.messages as { role: string }[];
    assert.ok(third.length >= 3, "the fork carries the context on");
  } finally {
    repl.kill("SIGCONT");
    await type("/quit").catch(() => {});
    await repl.status;
    await out.done;
  }
});
