import assert from "node:assert/strict";
import { join } from "node:path";
import { isBonsaiError } from "../../../core/errors.ts";
import type { HostEvent } from "../../../core/service/host_events.ts";
import { anthropic } from "../../support/sse_scripts.ts";
import { hostHarness } from "../../support/repl_harness.ts";

/** Two sessions of one project in separate connections, as two processes have. */
async function pair() {
  const a = await hostHarness({ pid: 4242 });
  const b = await hostHarness({
    dir: a.dir,
    server: a.server,
    pid: 5151,
    host: { allow: ["exec"] },
  });
  const events: HostEvent[] = [];
  b.host.subscribe((e) => events.push(e));
  const both = {
    a,
    b,
    events,
    /** Time passes for both processes (each has its own clock). */
    advance(ms: number) {
      a.clock.advance(ms);
      b.clock.advance(ms);
    },
    async [Symbol.asyncDispose]() {
      await b[Symbol.asyncDispose]();
      await a[Symbol.asyncDispose]();
    },
  };
  return both;
}

const messagesOf = (events: HostEvent[]) =>
  events.filter((e) => e.type === "peer_message").map((e) =>
    e.type === "peer_message" ? e.text : ""
  );

Deno.test("peers: a message reaches an idle peer once, as a note in its transcript and a marked message in its context", async () => {
  await using p = await pair();
  const { a, b } = p;
  assert.deepEqual(a.host.peers.list().map((x) => x.sessionId), [b.host.session.id]);
  assert.match(
    a.host.peers.send(b.host.session.id.slice(0, 8), "please leave src/db.ts to me"),
    /^Sent to 'New conversation'/,
  );
  b.timers.fire();
  b.timers.fire();
  assert.deepEqual(messagesOf(p.events), ["please leave src/db.ts to me"], "shown once");
  assert.equal(p.events.some((e) => e.type === "peer_message" && e.startsTurn), false);
  const notes = b.rows<{ text: string }>(
    "SELECT text FROM messages WHERE session_id = ? AND kind = 'notice'",
    b.host.session.id,
  );
  assert.equal(notes.length, 1);
  assert.match(
    notes[0]!.text,
    /^Message from peer session 'New conversation' \(\w{10}\): please leave/,
  );
  // The model sees it, marked as coming from a peer, on the next turn.
  b.server.anthropic({ events: anthropic.reply({ text: "ok" }) });
  await b.host.prompt("go on");
  const sent = JSON.stringify(b.server.requests.at(-1)!.body.messages);
  assert.match(
    sent,
    /\[Message from peer session .* not from the user\] please leave src\/db\.ts to me/,
  );
  assert.deepEqual(
    b.rows("SELECT acked_at IS NOT NULL AS acked FROM deliveries"),
    [{ acked: 1 }],
  );
});

Deno.test("peers: a running agent takes a message at its next turn boundary, never between a tool call and its result", async () => {
  await using p = await pair();
  const { a, b } = p;
  b.server.anthropic(
    {
      events: anthropic.reply({
        calls: [{ id: "toolu_s", name: "exec", json: '{"command":"sleep 0.3"}' }],
      }),
    },
    { events: anthropic.reply({ text: "read your note" }) },
  );
  const running = b.host.prompt("do some work");
  await new Promise((r) => setTimeout(r, 100));
  a.host.peers.send(b.host.session.id, "stop touching the tests");
  b.timers.fire(); // the poll leaves it to the turn
  const outcome = await running;
  assert.equal(outcome.result.status, "completed");
  const second = b.server.requests[1]!.body.messages as { role: string; content: unknown }[];
  const last = JSON.stringify(second.at(-1));
  assert.match(last, /stop touching the tests/);
  assert.match(JSON.stringify(second.at(-2)), /tool_result/, "the note follows the tool result");
});

Deno.test("peers: messages are bounded, rate-limited and redacted", async () => {
  await using p = await pair();
  const { a, b } = p;
  const to = b.host.session.id;
  assert.throws(
    () => a.host.peers.send(to, "x".repeat(6001)),
    (err: unknown) =>
      isBonsaiError(err, "USAGE") &&
      /at most 6000 characters \(this one has 6001\)/.test(err.message),
  );
  a.host.peers.send(to, "x".repeat(6000));
  a.host.peers.send(to, "the key is sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789");
  for (let i = 0; i < 28; i++) a.host.peers.send(to, `note ${i}`);
  assert.throws(() => a.host.peers.send(to, "one more"), /sent 30 messages in the last hour/);
  p.advance(3_600_001);
  a.timers.fire(); // heartbeats: both still live an hour later
  b.timers.fire();
  a.host.peers.send(to, "an hour later");
  const bodies = a.rows<{ body: string }>("SELECT body FROM mailbox ORDER BY id");
  assert.equal(bodies.length, 31);
  assert.match(bodies[1]!.body, /the key is \[REDACTED:anthropic-key\]/);
  assert.throws(() => a.host.peers.send("zzzz", "hi"), /No live peer session starts with 'zzzz'/);
});

Deno.test("peers: a wake fires once when the peer's turn ends, may start a turn, and mutual or cyclic waits are refused", async () => {
  await using p = await pair();
  const { a, b } = p;
  assert.match(b.host.peers.wait(a.host.session.id), /will be woken once when/);
  assert.equal(a.host.statusInfo().waitingPeers, 1, "a peer waits on this session");
  assert.throws(
    () => a.host.peers.wait(b.host.session.id),
    /already waits .* for this session; waiting for it too would leave both waiting for ever/,
  );
  a.server.anthropic({ events: anthropic.reply({ text: "the migration is done" }) });
  await a.host.prompt("finish the migration");
  assert.equal(a.host.statusInfo().waitingPeers, 0);
  b.timers.fire();
  b.timers.fire();
  const wakes = p.events.filter((e) => e.type === "wake");
  assert.equal(wakes.length, 1, "woken once");
  assert.deepEqual(
    p.events.filter((e) => e.type === "peer_message").map((e) =>
      e.type === "peer_message" && e.startsTurn
    ),
    [true],
    "the front end is told a turn follows (it does not draw its prompt in between)",
  );
  assert.match(messagesOf(p.events)[0]!, /finished its turn \(completed\): the migration is done/);
  // The woken session goes on from its context, without a new prompt.
  b.server.anthropic({ events: anthropic.reply({ text: "picking it up" }) });
  const woke = await b.host.continueTurn((wakes[0] as { hops: number }).hops);
  assert.equal(woke.result.result, "picking it up");
  const sent = b.server.requests.at(-1)!.body.messages as { role: string }[];
  assert.equal(sent.at(-1)!.role, "user");
  assert.match(JSON.stringify(sent.at(-1)), /\[Wake from peer session/);
});

Deno.test("peers: a cycle of waits through a third session is refused", async () => {
  await using p = await pair();
  const { a, b } = p;
  await using c = await hostHarness({ dir: a.dir, server: a.server, pid: 6161 });
  a.host.peers.wait(b.host.session.id);
  b.host.peers.wait(c.host.session.id);
  assert.throws(
    () => c.host.peers.wait(a.host.session.id),
    /already waits \(directly or through others\)/,
  );
});

Deno.test("peers: automatic wakes are limited in hops and rate", async () => {
  await using p = await pair();
  const { a, b } = p;
  const item = (hops: number) => ({
    id: 1,
    projectId: 1,
    fromSession: a.host.session.id,
    fromTitle: "a",
    toSession: b.host.session.id,
    kind: "wake" as const,
    body: "done",
    hops,
    createdAt: 0,
  });
  const port = b.host.peers as unknown as { mayAutoWake(i: ReturnType<typeof item>): boolean };
  assert.equal(port.mayAutoWake(item(3)), true);
  assert.equal(port.mayAutoWake(item(4)), false, "too far down a chain of wakes");
  for (let i = 0; i < 11; i++) {
    b.host.peers.wait(a.host.session.id);
    (a.host.peers as unknown as { fireWakes(h: number, s: string): number }).fireWakes(0, "done");
    b.timers.fire();
  }
  assert.equal(port.mayAutoWake(item(1)), false, "more than 10 in an hour");
  assert.equal(p.events.filter((e) => e.type === "wake").length, 10);
});

Deno.test("peers: claims are advisory, expire, and a write to a claimed path says who holds it", async () => {
  await using p = await pair();
  const { a, b } = p;
  const signal = new AbortController().signal;
  assert.match(
    await a.host.peers.claim("src/**", "refactoring the parser", 1, signal),
    /^Claimed src\/\*\* until/,
  );
  assert.deepEqual(b.host.peers.claims().map((c) => [c.pathGlob, c.note]), [[
    "src/**",
    "refactoring the parser",
  ]]);
  await Deno.mkdir(join(b.root, "src"));
  b.server.anthropic(
    {
      events: anthropic.reply({
        calls: [{ id: "toolu_w", name: "write", json: '{"path":"src/x.ts","content":"x\\n"}' }],
      }),
    },
    { events: anthropic.reply({ text: "written" }) },
  );
  const tools: string[] = [];
  // A third session of the project that may write without asking.
  await using allowed = await hostHarness({
    dir: a.dir,
    server: a.server,
    pid: 7171,
    host: { allow: ["write"] },
  });
  allowed.host.subscribe((e) => {
    if (e.type === "tool_end") tools.push(e.summary);
  });
  await allowed.host.prompt("write src/x.ts");
  assert.match(tools.join("\n"), /created \+1 -0 · claimed by 'New conversation' \(\w{10}\)/);
  const result = allowed.rows<{ result: string }>(
    "SELECT result FROM tool_calls WHERE call_id = 'toolu_w'",
  )[0]!;
  assert.match(
    result.result,
    /is claimed by .* \(refactoring the parser\)\. Claims are advisory: the change was made/,
  );
  assert.equal(await Deno.readTextFile(join(b.root, "src/x.ts")), "x\n");
  p.advance(61_000);
  a.timers.fire();
  b.timers.fire();
  assert.deepEqual(b.host.peers.claims(), [], "expired");
  assert.equal(a.host.peers.release(null), "Released 1 claim");
});
