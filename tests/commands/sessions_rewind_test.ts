import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { type Harness, harness } from "../support/agent_harness.ts";
import { anthropic } from "../support/sse_scripts.ts";
import { cli, ScriptedPrompter, testWorld } from "../support/world.ts";

const signal = () => new AbortController().signal;

/** Two prompts; the second writes b.txt and runs a command. Returns the second prompt's seq. */
async function twoTurns(h: Harness): Promise<number> {
  const call = (id: string, name: string, args: Record<string, unknown>) => ({
    id,
    name,
    json: JSON.stringify(args),
  });
  h.server.anthropic(
    { events: anthropic.reply({ text: "Hello." }) },
    {
      events: anthropic.reply({
        calls: [
          call("w1", "write", { path: "b.txt", content: "bee\n" }),
          call("x1", "exec", { command: "touch made-by-exec" }),
        ],
      }),
    },
    { events: anthropic.reply({ text: "Wrote b.txt." }) },
  );
  await h.agent.run("hello", { signal: signal() });
  h.clock.advance(60_000);
  const second = h.runtime.lastSeq + 1;
  await h.agent.run("write b", { signal: signal() });
  h.runtime.flush();
  h.clock.advance(60_000);
  return second;
}

function world(h: Harness, options: { pid?: number; prompter?: ScriptedPrompter } = {}) {
  return testWorld({
    home: join(dirname(h.root), "home"),
    cwd: h.root,
    clock: h.clock,
    ...options,
  });
}

Deno.test("bonsai sessions rewind --json moves the rest to a linked session and reports exec calls", async () => {
  await using h = await harness();
  const second = await twoTurns(h);
  const usage = world(h);
  assert.equal(await cli(usage.world, "usage", "--json"), 0);
  const { world: w, stdout, stderr } = world(h);
  const id = h.runtime.id.slice(0, 10);
  assert.equal(
    await cli(w, "sessions", "rewind", id, "--to", String(second), "--yes", "--json"),
    0,
    stderr.text,
  );
  const out = JSON.parse(stdout.text);
  assert.equal(out.to_seq, second);
  assert.equal(out.prompt, "write b");
  assert.equal(out.session.id, h.runtime.id);
  assert.equal(out.session.message_count, second - 1);
  assert.equal(out.linked_session.message_count, out.kept_messages + out.moved_messages);
  assert.match(out.linked_session.title, /^rewound from 'hello' at #\d+$/);
  assert.deepEqual(out.exec_calls.map((c: { command: string }) => c.command), [
    "touch made-by-exec",
  ]);
  assert.deepEqual(out.changed_files, ["b.txt"]);
  assert.equal(out.files, null);
  assert.equal(stderr.text, "");
  // Usage across sessions is what it was; only the split between the two sessions is new.
  const after = world(h);
  assert.equal(await cli(after.world, "usage", "--json"), 0);
  const [was, now] = [JSON.parse(usage.stdout.text), JSON.parse(after.stdout.text)];
  const bySession = (d: { sessions: { sessions: { turns: number }[] } }) =>
    d.sessions.sessions.map((x) => x.turns).sort();
  assert.deepEqual(bySession(was), [3]);
  assert.deepEqual(bySession(now), [1, 2]);
  delete was.sessions;
  delete now.sessions;
  assert.deepEqual(now, was);
  // The linked session is listed, with its parent, and can be shown.
  const list = world(h);
  assert.equal(await cli(list.world, "sessions", "--json"), 0);
  assert.equal(JSON.parse(list.stdout.text).length, 2);
});

Deno.test("bonsai sessions rewind asks first, refuses without a terminal, and says what cannot be undone", async () => {
  await using h = await harness();
  const second = await twoTurns(h);
  const noTty = world(h);
  assert.equal(
    await cli(noTty.world, "sessions", "rewind", h.runtime.id, "--to", String(second)),
    2,
  );
  assert.match(noTty.stderr.text, /pass --yes/);
  const no = world(h, { prompter: new ScriptedPrompter(true, [false]) });
  assert.equal(
    await cli(no.world, "sessions", "rewind", h.runtime.id, "--to", String(second), "--files"),
    130,
  );
  assert.match(
    no.stderr.text,
    /warning: what 1 exec call in the rewound part did cannot be undone: touch made-by-exec/,
  );
  assert.match(no.stderr.text, /Nothing changed/);
  assert.equal(await Deno.readTextFile(join(h.root, "b.txt")), "bee\n");
  assert.equal(h.rows("SELECT id FROM sessions").length, 1);

  const yes = world(h, { prompter: new ScriptedPrompter(true, [true]) });
  assert.equal(
    await cli(yes.world, "sessions", "rewind", h.runtime.id, "--to", String(second), "--files"),
    0,
    yes.stderr.text,
  );
  assert.match(yes.stderr.text, /Reverted 1 file: b\.txt \(deleted\)/);
  assert.match(yes.stderr.text, /to undo, continue it: bonsai -c \w{10}/);
  await assert.rejects(Deno.stat(join(h.root, "b.txt")), Deno.errors.NotFound);
  await Deno.stat(join(h.root, "made-by-exec"));
});

Deno.test("bonsai sessions rewind --files refuses (exit 5) when a file changed since, unless --force", async () => {
  await using h = await harness();
  const second = await twoTurns(h);
  await Deno.writeTextFile(join(h.root, "b.txt"), "changed by hand\n");
  const refused = world(h);
  const args = ["sessions", "rewind", h.runtime.id, "--to", String(second), "--files", "--yes"];
  assert.equal(await cli(refused.world, ...args), 5);
  assert.match(refused.stderr.text, /changed since bonsai wrote them: b\.txt/);
  assert.equal(await Deno.readTextFile(join(h.root, "b.txt")), "changed by hand\n");
  assert.equal(h.rows("SELECT id FROM sessions").length, 1, "nothing moved");
  const forced = world(h);
  assert.equal(await cli(forced.world, ...args, "--force", "--json"), 0, forced.stderr.text);
  const out = JSON.parse(forced.stdout.text);
  assert.deepEqual(out.files.changed_since, ["b.txt"]);
  assert.deepEqual(out.files.reverted, [{ path: "b.txt", action: "deleted" }]);
});

Deno.test("bonsai sessions rewind refuses a session live in another process (exit 5) and bad arguments (exit 2)", async () => {
  await using h = await harness();
  const second = await twoTurns(h);
  h.runtime.heartbeat(h.clock.now());
  const other = world(h, { pid: 999 });
  assert.equal(
    await cli(other.world, "sessions", "rewind", h.runtime.id, "--to", String(second), "--yes"),
    5,
  );
  assert.match(other.stderr.text, /Cannot rewind session '.*': it is live in process 4242/);
  const missing = world(h);
  assert.equal(await cli(missing.world, "sessions", "rewind", h.runtime.id, "--yes"), 2);
  const notPrompt = world(h);
  assert.equal(
    await cli(notPrompt.world, "sessions", "rewind", h.runtime.id, "--to", "2", "--yes"),
    2,
  );
  assert.match(notPrompt.stderr.text, /prompts are at 1, \d+/);
  assert.equal(h.rows("SELECT id FROM sessions").length, 1);
});
