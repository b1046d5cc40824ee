import assert from "node:assert/strict";
import { join } from "node:path";
import { importCodex } from "../../../core/import/codex.ts";
import { buildDashboard } from "../../../core/usage/dashboard.ts";
import { generateCodexLogs } from "../../../scripts/gen_codex_logs.ts";
import { openTestDb } from "../../support/db.ts";
import { tempDir } from "../../support/temp.ts";

const FIXTURES = new URL("../../fixtures/ccusage/", import.meta.url).pathname;

interface CodexDay {
  date: string;
  inputTokens: number;
  cacheReadTokens: number;
  outputTokens: number;
  reasoningOutputTokens: number;
  totalTokens: number;
  costUSD: number;
  models: Record<string, { inputTokens: number; cacheReadTokens: number; outputTokens: number }>;
}

Deno.test("Codex import: per-day and per-model tokens equal ccusage 20's; re-emitted token counts are not counted twice", async () => {
  await using dir = await tempDir();
  const logs = join(dir.path, "codex");
  await generateCodexLogs({ out: logs, sessions: 8, seed: 7 });
  const { db, ids } = await openTestDb(join(dir.path, "home"));
  using _ = db;
  const stats = await importCodex({ db, ids, roots: [logs] });
  assert.equal(stats.sessions, 8);
  assert.equal(stats.duplicates, 54, "every re-emitted token_count is recognised");
  const expected = JSON.parse(await Deno.readTextFile(join(FIXTURES, "codex_daily.json"))) as {
    daily: CodexDay[];
  };
  const dash = buildDashboard(db, {}, {
    timeZone: "UTC",
    now: Date.UTC(2026, 11, 1),
    breakdown: true,
  });
  const ours = new Map(dash.activity.days.map((d) => [d.date, d]));
  assert.equal(ours.size, expected.daily.length);
  for (const day of expected.daily) {
    const o = ours.get(day.date)!;
    assert.ok(o, day.date);
    assert.deepEqual(
      [
        o.inputTokens,
        o.cacheReadTokens,
        o.outputTokens,
        o.reasoningTokens,
        o.inputTokens + o.cacheReadTokens + o.outputTokens,
      ],
      [
        day.inputTokens,
        day.cacheReadTokens,
        day.outputTokens,
        day.reasoningOutputTokens,
        day.totalTokens,
      ],
      day.date,
    );
    assert.ok(
      Math.abs(o.costUsd - day.costUSD) <= day.costUSD * 0.005 + 1e-9,
      `${day.date}: ${o.costUsd} vs ${day.costUSD}`,
    );
    for (const [model, m] of Object.entries(day.models)) {
      const om = (o.models ?? []).find((x) => x.model === model);
      assert.ok(om, `${day.date} ${model}`);
      assert.deepEqual([om.inputTokens, om.cacheReadTokens, om.outputTokens], [
        m.inputTokens,
        m.cacheReadTokens,
        m.outputTokens,
      ]);
    }
  }
  const again = await importCodex({ db, ids, roots: [logs] });
  assert.equal(again.skippedFiles, 8);
  assert.equal(again.ledgerRows, 0);
  const messages = db.connection.prepare(
    "SELECT count(*) AS n FROM messages WHERE kind = 'tool_call'",
  ).get() as { n: number };
  assert.ok(messages.n > 0, "function calls are kept as tool calls");
});

Deno.test("Codex import of a hand-written rollout: session, messages, tool call, usage, duplicates and errors", async () => {
  await using dir = await tempDir();
  const codexHome = join(dir.path, "codex");
  await Deno.mkdir(join(codexHome, "sessions"), { recursive: true });
  // Copy the fixture so the test can grow the file.
  const src = new URL("../../fixtures/codex/sessions/2026/11/28/", import.meta.url).pathname;
  const dayDir = join(codexHome, "sessions/2026/11/28");
  await Deno.mkdir(dayDir, { recursive: true });
  const name = "rollout-2026-11-28T10-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl";
  const file = join(dayDir, name);
  await Deno.copyFile(join(src, name), file);

  const { db, ids } = await openTestDb(join(dir.path, "home"));
  using _ = db;
  const stats = await importCodex({ db, ids, roots: [codexHome] });
  assert.deepEqual(
    {
      files: stats.files,
      sessions: stats.sessions,
      ledgerRows: stats.ledgerRows,
      duplicates: stats.duplicates,
      malformed: stats.malformed,
      unknownRecords: stats.unknownRecords,
    },
    { files: 1, sessions: 1, ledgerRows: 2, duplicates: 1, malformed: 1, unknownRecords: 1 },
  );
  const session = db.connection.prepare(
    `SELECT s.title, s.source, s.external_id, p.root_path, s.created_at FROM sessions s
     JOIN projects p ON p.id = s.project_id`,
  ).get() as Record<string, unknown>;
  assert.deepEqual({ ...session }, {
    title: "Why does the checkout total round 0.1 + 0.2 wrong?",
    source: "codex",
    external_id: "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
    root_path: "/home/dev/shop",
    created_at: Date.parse("2026-11-28T10:00:00.010Z"),
  });
  const ledger = db.connection.prepare(
    `SELECT provider, model, input_tokens, cache_read_tokens, output_tokens, reasoning_tokens,
       cost_usd > 0 AS priced FROM ledger ORDER BY created_at`,
  ).all() as Record<string, unknown>[];
  assert.deepEqual(ledger.map((r) => ({ ...r })), [
    {
      provider: "openai",
      model: "gpt-5-codex",
      input_tokens: 5200 - 3072,
      cache_read_tokens: 3072,
      output_tokens: 180,
      reasoning_tokens: 64,
      priced: 1,
    },
    {
      provider: "openai",
      model: "gpt-5-codex",
      input_tokens: 5800 - 5120,
      cache_read_tokens: 5120,
      output_tokens: 240,
      reasoning_tokens: 32,
      priced: 1,
    },
  ]);
  const kinds = db.connection.prepare(
    "SELECT role, kind, tool_name FROM messages ORDER BY seq",
  ).all() as Record<string, unknown>[];
  assert.deepEqual(kinds.map((k) => [k.role, k.kind, k.tool_name]), [
    ["user", "text", null], // the environment context is kept, but does not title the session
    ["user", "text", null],
    ["assistant", "thinking", null],
    ["assistant", "tool_call", "shell"],
    ["tool", "tool_result", null],
    ["assistant", "text", null],
  ]);
  const call = db.connection.prepare("SELECT tool_name, status FROM tool_calls").get();
  assert.deepEqual({ ...call }, { tool_name: "shell", status: "ok" });

  // Nothing changes on a re-run; a finished last line and a new turn add only what is new.
  assert.equal((await importCodex({ db, ids, roots: [codexHome] })).skippedFiles, 1);
  const text = await Deno.readTextFile(file);
  await Deno.writeTextFile(
    file,
    text.replace(/"truncated\n$/, '"Done."}]}}\n') +
      JSON.stringify({
        timestamp: "2026-11-28T10:01:00.000Z",
        type: "event_msg",
        payload: {
          type: "token_count",
          info: {
            total_token_usage: {
              input_tokens: 17000,
              cached_input_tokens: 13312,
              output_tokens: 500,
              reasoning_output_tokens: 96,
              total_tokens: 17500,
            },
            last_token_usage: null,
          },
        },
      }) + "\n",
  );
  const grown = await importCodex({ db, ids, roots: [codexHome] });
  assert.equal(grown.sessions, 0);
  assert.equal(grown.ledgerRows, 1, "only the new response");
  const last = db.connection.prepare(
    "SELECT input_tokens, cache_read_tokens, output_tokens FROM ledger ORDER BY created_at DESC LIMIT 1",
  ).get();
  assert.deepEqual({ ...last }, {
    input_tokens: 6000 - 5120,
    cache_read_tokens: 5120,
    output_tokens: 80,
  }, "without last_token_usage the response is the growth of the running total");
  const messages = db.connection.prepare("SELECT count(*) AS n FROM messages").get() as {
    n: number;
  };
  assert.equal(messages.n, 7, "the finished line became a message; nothing was repeated");
});
