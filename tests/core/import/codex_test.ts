import assert from "node:assert/strict";
import { join } from "node:path";
import { importCodex } from "../../../core/import/codex.ts";
import { generateCodexLogs } from "../../../scripts/gen_codex_logs.ts";
import { openTestDb } from "../../support/db.ts";
import { tempDir } from "../../support/temp.ts";
import { assertMatchesCcusage } from "./ccusage_compare.ts";

Deno.test("Codex import: per-day, per-model and per-session tokens equal ccusage 20's; re-emitted token counts are not counted twice", async () => {
  await using dir = await tempDir();
  const logs = join(dir.path, "codex");
  await generateCodexLogs({ out: logs, sessions: 8, seed: 7 });
  const { db, ids } = await openTestDb(join(dir.path, "home"));
  using _ = db;
  const stats = await importCodex({ db, ids, roots: [logs] });
  assert.equal(stats.sessions, 8);
  assert.equal(stats.duplicates, 54, "every re-emitted token_count is recognised");
  const compared = await assertMatchesCcusage(db, {
    daily: "codex_daily.json",
    session: "codex_session.json",
  });
  assert.deepEqual([compared.days, compared.sessions], [7, 8]);
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

Deno.test("Codex import of every real shape: tokens equal ccusage 20's, per day, model and session", async (t) => {
  await using dir = await tempDir();
  const logs = join(dir.path, "codex");
  const generated = await generateCodexLogs({ out: logs, sessions: 8, seed: 7, shapes: true });
  const { db, ids } = await openTestDb(join(dir.path, "home"));
  using _ = db;
  const stats = await importCodex({ db, ids, roots: [logs] });
  const all = <T>(sql: string, ...params: string[]) =>
    db.connection.prepare(sql).all(...params) as unknown as T[];
  const one = <T>(sql: string, ...params: string[]) =>
    db.connection.prepare(sql).get(...params) as unknown as T;

  await t.step("tokens: the acceptance line", async () => {
    const compared = await assertMatchesCcusage(db, {
      daily: "codex_shapes_daily.json",
      session: "codex_shapes_session.json",
    });
    assert.deepEqual([compared.days, compared.sessions], [14, 18]);
  });

  await t.step("the summary counts forks without their parent and legacy rollouts", () => {
    assert.equal(generated.files, 20);
    assert.deepEqual(
      [stats.files, stats.sessions, stats.forksWithoutParent, stats.legacyRollouts],
      [20, 19, generated.forksWithoutParent, 1],
    );
    assert.deepEqual([stats.legacyNoMessages, stats.legacyNoTimestamp], [1, 0]);
  });

  await t.step("titles are the first prompt the person typed, not injected context", () => {
    const titles = all<{ title: string }>("SELECT title FROM sessions").map((s) => s.title);
    for (const title of titles) {
      assert.ok(!/^[#<]/.test(title) && title !== "New conversation", title);
    }
    for (
      const expected of [
        "Add an index on sessions.created_at and a migration for it", // under an IDE preamble
        "Fix the build script so it works with backslash paths",
        "Plan the rollout of the new billing service",
        "Try the alternative: ship billing behind a flag", // a fork's own first prompt
        "Continue from here with the smaller migration", // the same, its parent missing
        "Find the crash in the request handler",
        "Review src/server.ts for unhandled promise rejections", // a sub-agent's task
        "Summarise the failing tests",
        "Write a regression test for the retry loop", // a task copied with the history
        "Review the current changes and report correctness issues",
        "List the experiments that ran last week", // a legacy rollout
      ]
    ) assert.ok(titles.includes(expected), expected);
  });

  await t.step("a Windows cwd is the project, in Windows form", () => {
    const paths = all<{ root_path: string }>("SELECT root_path FROM projects").map((p) =>
      p.root_path
    );
    assert.ok(paths.includes("D:\\work\\app"), paths.join(", "));
    assert.ok(!paths.includes("/unknown"));
  });

  await t.step("provider and model: the model of most of a session's own turns", () => {
    const sessions = all<{ id: string; provider: string | null; model: string | null }>(
      "SELECT s.id, s.provider, s.model FROM sessions s WHERE s.turns > 0",
    );
    assert.equal(sessions.length, 18);
    for (const s of sessions) {
      const top = one<{ model: string }>(
        `SELECT model FROM ledger WHERE session_id = ? GROUP BY model
         ORDER BY sum(lane = 'parent') DESC, count(*) DESC,
           sum(input_tokens + cache_read_tokens + output_tokens) DESC, model LIMIT 1`,
        s.id,
      );
      assert.deepEqual([s.provider, s.model], ["openai", top.model], s.id);
    }
  });

  await t.step("spawned and review sub-agents keep the sub-agent lane", () => {
    const lanes = all<{ title: string; lanes: string }>(
      `SELECT s.title, group_concat(DISTINCT l.lane) AS lanes FROM sessions s
       JOIN ledger l ON l.session_id = s.id GROUP BY s.id`,
    );
    const subagents = lanes.filter((l) => l.lanes === "subagent").map((l) => l.title).sort();
    assert.deepEqual(subagents, [
      "Review src/server.ts for unhandled promise rejections",
      "Review the current changes and report correctness issues",
      "Summarise the failing tests",
      "Write a regression test for the retry loop",
    ]);
  });

  await t.step("tool outputs are stored as text; plain-text exit codes count as failures", () => {
    const results = all<{ text: string }>(
      "SELECT text FROM messages WHERE kind = 'tool_result'",
    );
    // Neither content arrays nor the older shell JSON show as escaped JSON.
    for (const r of results) {
      assert.ok(!/^\[\{"|^\{"output"/.test(r.text), r.text.slice(0, 80));
    }
    const search = one<{ result: string }>(
      "SELECT result FROM tool_calls WHERE tool_name = 'docs__search'",
    );
    assert.match(search.result, /^Found 2 results for .*\n1\. /);
    const fts = one<{ n: number }>(
      `SELECT count(*) AS n FROM messages_fts WHERE messages_fts MATCH '"Found 2 results"'`,
    );
    assert.ok(fts.n >= 1, "the search output is searchable as text");
    const tools = all<{ tool_name: string; calls: number; failures: number }>(
      `SELECT tool_name, count(*) AS calls, sum(status = 'error') AS failures FROM tool_calls
       WHERE tool_name IN ('exec_command', 'write_stdin', 'shell_command', 'view_image')
       GROUP BY tool_name ORDER BY tool_name`,
    );
    assert.deepEqual(tools.map((r) => ({ ...r })), [
      { tool_name: "exec_command", calls: 11, failures: 3 },
      { tool_name: "shell_command", calls: 2, failures: 1 },
      { tool_name: "view_image", calls: 1, failures: 0 },
      { tool_name: "write_stdin", calls: 1, failures: 1 },
    ]);
    const running = one<{ status: string; exit_code: number | null }>(
      `SELECT status, exit_code FROM tool_calls
       WHERE tool_name = 'exec_command' AND result LIKE '%Process running with session ID%'`,
    );
    assert.deepEqual({ ...running }, { status: "ok", exit_code: null });
  });

  await t.step("a legacy rollout is a searchable session without usage", () => {
    const legacy = one<{ id: string; root_path: string; turns: number; n: number }>(
      `SELECT s.id, p.root_path, s.turns, s.message_count AS n FROM sessions s
       JOIN projects p ON p.id = s.project_id WHERE s.title = 'List the experiments that ran last week'`,
    );
    assert.deepEqual([legacy.root_path, legacy.turns], ["/home/dev/lab/ml_experiments", 0]);
    assert.equal(legacy.n, 5, "two user messages, a call, its output, the answer");
    const call = one<{ status: string; exit_code: number }>(
      "SELECT status, exit_code FROM tool_calls WHERE session_id = ?",
      legacy.id,
    );
    assert.deepEqual({ ...call }, { status: "ok", exit_code: 0 });
  });

  await t.step("re-importing adds nothing", async () => {
    const again = await importCodex({ db, ids, roots: [logs] });
    assert.deepEqual(
      [again.skippedFiles, again.sessions, again.ledgerRows, again.messages],
      [20, 0, 0, 0],
    );
  });
});

Deno.test("Codex legacy rollouts: imported when they hold messages, counted with the reason when skipped", async () => {
  await using dir = await tempDir();
  const day = join(dir.path, "codex/sessions/2025/08/20");
  await Deno.mkdir(day, { recursive: true });
  const write = (name: string, lines: unknown[]) =>
    Deno.writeTextFile(join(day, name), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  const say = (role: string, text: string) => ({
    type: "message",
    role,
    content: [{ type: role === "user" ? "input_text" : "output_text", text }],
  });
  await write("rollout-2025-08-20T10-00-00-aaaa.jsonl", [
    { id: "aaaa", timestamp: "2025-08-20T10:00:00.000Z", cwd: "C:\\src\\tool", model: "o4-mini" },
    { record_type: "state" },
    say("user", "Why is the linter slow?"),
    say("user", "Why is the linter slow?"), // the same text, the same (missing) time
    say("assistant", "It walks node_modules."),
  ]);
  await write("rollout-2025-08-20T11-00-00-bbbb.jsonl", [
    { id: "bbbb", instructions: null },
    say("user", "No start time"),
  ]);
  await write("rollout-2025-08-20T12-00-00-cccc.jsonl", [
    { id: "cccc", timestamp: "2025-08-20T12:00:00.000Z" },
    { record_type: "state" },
  ]);
  const { db, ids } = await openTestDb(join(dir.path, "home"));
  using _ = db;
  const stats = await importCodex({ db, ids, roots: [join(dir.path, "codex")] });
  assert.deepEqual(
    [stats.sessions, stats.legacyRollouts, stats.legacyNoMessages, stats.legacyNoTimestamp],
    [1, 1, 1, 1],
  );
  const s = db.connection.prepare(
    `SELECT s.title, s.provider, s.model, s.message_count, s.created_at, p.root_path
     FROM sessions s JOIN projects p ON p.id = s.project_id`,
  ).get() as Record<string, unknown>;
  assert.deepEqual({ ...s }, {
    title: "Why is the linter slow?",
    provider: "openai",
    model: "o4-mini",
    message_count: 3,
    created_at: Date.parse("2025-08-20T10:00:00.000Z"),
    root_path: "C:\\src\\tool",
  });
  const again = await importCodex({ db, ids, roots: [join(dir.path, "codex")] });
  assert.deepEqual([again.skippedFiles, again.legacyNoMessages, again.messages], [3, 0, 0]);
});

Deno.test("Codex import keeps messages written in the same millisecond apart", async () => {
  await using dir = await tempDir();
  const day = join(dir.path, "codex/sessions/2026/11/28");
  await Deno.mkdir(day, { recursive: true });
  const at = "2026-11-28T10:00:00.317Z";
  const line = (type: string, payload: unknown) => JSON.stringify({ timestamp: at, type, payload });
  const user = (text: string) => ({
    type: "message",
    role: "user",
    content: [{ type: "input_text", text }],
  });
  await Deno.writeTextFile(
    join(day, "rollout-2026-11-28T10-00-00-dddd.jsonl"),
    [
      line("session_meta", { id: "dddd", cwd: "/w" }),
      line("response_item", user("<environment_context>\n</environment_context>")),
      line("response_item", user("what is 2+2? just give me the answer")),
      line("event_msg", { type: "user_message", message: "what is 2+2? just give me the answer" }),
    ].join("\n") + "\n",
  );
  const { db, ids } = await openTestDb(join(dir.path, "home"));
  using _ = db;
  await importCodex({ db, ids, roots: [join(dir.path, "codex")] });
  const texts = db.connection.prepare("SELECT text FROM messages ORDER BY seq").all() as {
    text: string;
  }[];
  assert.equal(texts.length, 2);
  assert.equal(texts[1]!.text, "what is 2+2? just give me the answer");
});
