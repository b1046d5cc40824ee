import assert from "node:assert/strict";
import { join } from "node:path";
import {
  burstStart,
  forkPrefix,
  originOf,
  ReplayFilter,
  type TimedUsage,
} from "../../../core/import/codex_replay.ts";
import type { RawUsage } from "../../../core/import/codex_usage.ts";
import { importCodex } from "../../../core/import/codex.ts";
import { openTestDb } from "../../support/db.ts";
import { tempDir } from "../../support/temp.ts";

const u = (input: number, output = 1): RawUsage => ({
  input,
  cached: 0,
  cacheWrite: 0,
  output,
  reasoning: 0,
  total: input + output,
});
const T0 = Date.parse("2026-10-01T12:00:00.000Z");

Deno.test("ReplayFilter tells a fork's copied usage from its own, as ccusage 20 does", async (t) => {
  type Case = {
    name: string;
    prefix: TimedUsage[];
    burst: number | null;
    events: [RawUsage, number][];
    replayed: boolean[];
  };
  const cases: Case[] = [
    {
      name: "with the parent: leading events equal to its prefix are copies, then all are own",
      prefix: [{ at: 1, usage: u(100) }, { at: 2, usage: u(200) }],
      burst: null,
      events: [[u(100), T0], [u(200), T0 + 1], [u(300), T0 + 2], [u(100), T0 + 3]],
      replayed: [true, true, false, false],
    },
    {
      name: "with the parent: an own event right after the copy still counts (no timing)",
      prefix: [{ at: 1, usage: u(100) }],
      burst: T0,
      events: [[u(100), T0], [u(5), T0 + 400]],
      replayed: [true, false],
    },
    {
      name: "a first event that matches nothing falls back to the burst",
      prefix: [{ at: 1, usage: u(999) }],
      burst: T0,
      events: [[u(100), T0 + 5], [u(200), T0 + 900], [u(300), T0 + 1_800], [u(1), T0 + 9_000]],
      replayed: [true, true, true, false],
    },
    {
      name: "without the parent: the burst is followed across a second tick",
      prefix: [],
      burst: T0 + 990,
      events: [[u(1), T0 + 995], [u(2), T0 + 1_001], [u(3), T0 + 1_003], [u(4), T0 + 7_000]],
      replayed: [true, true, true, false],
    },
    {
      name: "without the parent and without a burst nothing is a copy",
      prefix: [],
      burst: null,
      events: [[u(1), T0], [u(2), T0 + 10]],
      replayed: [false, false],
    },
    {
      name: "once own usage started, a quick event is not a copy again",
      prefix: [],
      burst: T0,
      events: [[u(1), T0], [u(2), T0 + 5_000], [u(3), T0 + 5_001]],
      replayed: [true, false, false],
    },
    {
      name: "an event before the burst's start ends it",
      prefix: [],
      burst: T0,
      events: [[u(1), T0 - 10]],
      replayed: [false],
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      let asked = 0;
      const filter = new ReplayFilter(c.prefix, () => {
        asked++;
        return c.burst;
      });
      assert.deepEqual(c.events.map(([usage, at]) => filter.replayed(usage, at)), c.replayed);
      assert.ok(asked <= 1, "the file is scanned for a burst at most once");
    });
  }
});

Deno.test("forkPrefix() keeps the parent's events up to the fork; originOf() reads the fork's parent", () => {
  const events = [{ at: 1 }, { at: null }, { at: 5 }, { at: 3 }];
  assert.deepEqual(forkPrefix(events, 4), [{ at: 1 }, { at: null }]);
  assert.deepEqual(forkPrefix(events, null), events);
  const meta = (payload: Record<string, unknown>) => ({
    timestamp: "2026-10-01T12:00:00.000Z",
    type: "session_meta",
    payload: { id: "child", ...payload },
  });
  const spawn = { source: { subagent: { thread_spawn: { parent_thread_id: "lead" } } } };
  assert.deepEqual(originOf(meta({ forked_from_id: "p" })), { id: "child", parentId: "p", at: T0 });
  assert.equal(originOf(meta(spawn)).parentId, "lead");
  assert.equal(originOf(meta({ ...spawn, forked_from_id: "" })).parentId, null, "as ccusage");
  assert.equal(originOf(meta({ source: { subagent: "review" } })).parentId, null);
  assert.equal(originOf({ type: "turn_context", payload: {} }).id, null);
});

Deno.test("burstStart() is the first usage event's time when the second follows within a second", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "r.jsonl");
  const tc = (ms: number, info: unknown) =>
    JSON.stringify({
      timestamp: new Date(T0 + ms).toISOString(),
      type: "event_msg",
      payload: { type: "token_count", info },
    });
  const usage = { total_token_usage: { input_tokens: 1 }, last_token_usage: null };
  const write = (lines: string[]) => Deno.writeTextFile(file, lines.join("\n") + "\n");
  await write([tc(0, null), tc(5, usage), tc(900, usage), tc(50_000, usage)]);
  assert.equal(burstStart(file), T0 + 5, "an event without usage does not start it");
  await write([tc(0, usage), tc(1_001, usage)]);
  assert.equal(burstStart(file), null);
  await write([tc(0, usage)]);
  assert.equal(burstStart(file), null);
});

/** A small rollout: the lines' times are ms after T0. */
function rollout(lines: [number, string, Record<string, unknown>][]): string {
  return lines.map(([ms, type, payload]) =>
    JSON.stringify({ timestamp: new Date(T0 + ms).toISOString(), type, payload })
  ).join("\n") + "\n";
}

const tokens = (input: number, total: number) => ({
  type: "token_count",
  info: {
    total_token_usage: { input_tokens: total, output_tokens: 0, total_tokens: total },
    last_token_usage: { input_tokens: input, output_tokens: 0, total_tokens: input },
  },
});
const user = (text: string) => ({
  type: "message",
  role: "user",
  content: [{ type: "input_text", text }],
});
const prompt = (text: string) => ({ type: "user_message", message: text });
const call = (id: string) => ({
  type: "function_call",
  name: "exec_command",
  arguments: "{}",
  call_id: id,
});
const output = (id: string, text: string) => ({
  type: "function_call_output",
  call_id: id,
  output: text,
});

const PARENT = "0199aaaa-0000-7000-8000-00000000000a";
const CHILD = "0199aaaa-0000-7000-8000-00000000000b";

/** A parent and its fork at +60 s: a copy of the parent's first turn, then the fork's own. */
async function writeFork(home: string, withParent: boolean) {
  const day = join(home, "sessions/2026/10/01");
  await Deno.mkdir(day, { recursive: true });
  const parentMeta = { id: PARENT, cwd: "/w/app" };
  const turn: [number, string, Record<string, unknown>][] = [
    [1_000, "turn_context", { model: "gpt-5", cwd: "/w/app" }],
    [1_001, "response_item", user("Plan the release")],
    [1_002, "event_msg", prompt("Plan the release")],
    [5_000, "response_item", call("call_a")],
    [5_100, "event_msg", tokens(100, 100)],
    [6_000, "response_item", output("call_a", "Exit code: 1\nWall time: 1 seconds\nOutput:\nx")],
    [9_000, "event_msg", tokens(20, 120)],
  ];
  if (withParent) {
    await Deno.writeTextFile(
      join(day, `rollout-2026-10-01T12-00-00-${PARENT}.jsonl`),
      rollout([[0, "session_meta", parentMeta], ...turn, [
        90_000,
        "event_msg",
        tokens(50, 170),
      ]]),
    );
  }
  // The copy is re-stamped to the fork instant, a millisecond apart.
  const copy = turn.map(([, type, payload], i): [number, string, Record<string, unknown>] => [
    60_002 + i,
    type,
    payload,
  ]);
  await Deno.writeTextFile(
    join(day, `rollout-2026-10-01T12-01-00-${CHILD}.jsonl`),
    rollout([
      [60_000, "session_meta", { id: CHILD, cwd: "/w/app", forked_from_id: PARENT }],
      [60_001, "session_meta", parentMeta],
      ...copy,
      [70_000, "response_item", user("Try it behind a flag")],
      [70_001, "event_msg", prompt("Try it behind a flag")],
      [75_000, "event_msg", tokens(40, 160)],
    ]),
  );
}

for (const withParent of [true, false]) {
  Deno.test(`a Codex fork ${withParent ? "with" : "without"} its parent counts only its own usage and tool calls`, async () => {
    await using dir = await tempDir();
    const home = join(dir.path, "codex");
    await writeFork(home, withParent);
    const { db, ids } = await openTestDb(join(dir.path, "db"));
    using _ = db;
    const stats = await importCodex({ db, ids, roots: [home] });
    assert.equal(stats.forksWithoutParent, withParent ? 0 : 1);
    const child = db.connection.prepare(
      `SELECT s.id, s.title, s.model, s.provider, sum(l.input_tokens) AS input
       FROM sessions s LEFT JOIN ledger l ON l.session_id = s.id WHERE s.external_id = ?`,
    ).get(CHILD) as Record<string, unknown>;
    assert.deepEqual(
      { title: child.title, input: child.input, model: child.model, provider: child.provider },
      { title: "Try it behind a flag", input: 40, model: "gpt-5", provider: "openai" },
    );
    const texts = (db.connection.prepare(
      "SELECT text FROM messages WHERE session_id = ? ORDER BY seq",
    ).all(child.id as string) as { text: string }[]).map((m) => m.text);
    // The copy is the parent's: imported with the fork only when the parent is missing.
    assert.deepEqual(
      texts,
      withParent ? ["Try it behind a flag"] : [
        "Plan the release",
        "exec_command {}",
        "Exit code: 1\nWall time: 1 seconds\nOutput:\nx",
        "Try it behind a flag",
      ],
    );
    const calls = db.connection.prepare(
      "SELECT count(*) AS n FROM tool_calls WHERE session_id = ?",
    ).get(child.id as string) as { n: number };
    assert.equal(calls.n, 0, "the copied call is not a call of the fork");
    const total = db.connection.prepare("SELECT sum(input_tokens) AS n FROM ledger").get() as {
      n: number;
    };
    assert.equal(total.n, withParent ? 100 + 20 + 50 + 40 : 40);
  });
}
