import assert from "node:assert/strict";
import { join } from "node:path";
import { importClaudeCode } from "../../../core/import/claude_code.ts";
import { buildDashboard } from "../../../core/usage/dashboard.ts";
import { hasIndex } from "../../../core/storage/db.ts";
import { EXTERNAL_INDEX, LedgerStore } from "../../../core/storage/ledger.ts";
import { DURATION_INDEX, ToolCallStore } from "../../../core/storage/tool_calls.ts";
import { generateClaudeLogs } from "../../../scripts/gen_claude_logs.ts";
import { openTestDb } from "../../support/db.ts";
import { tempDir } from "../../support/temp.ts";
import { priced } from "./ccusage_compare.ts";

const FIXTURES = new URL("../../fixtures/ccusage/", import.meta.url).pathname;

interface CcRow {
  date?: string;
  sessionId?: string;
  inputTokens: number;
  outputTokens: number;
  cacheCreationTokens: number;
  cacheReadTokens: number;
  totalTokens: number;
  totalCost: number;
  modelBreakdowns: {
    modelName: string;
    inputTokens: number;
    outputTokens: number;
    cacheCreationTokens: number;
    cacheReadTokens: number;
    cost: number;
  }[];
}

async function importGenerated(dir: string) {
  const logs = join(dir, "claude");
  await generateClaudeLogs({ out: logs, entries: 1500, seed: 7, days: 10 });
  const { db, ids } = await openTestDb(join(dir, "home"));
  const stats = await importClaudeCode({ db, ids, roots: [logs] });
  return { db, ids, logs, stats };
}

Deno.test("Claude Code import: per-day and per-model tokens equal ccusage 20's exactly; cost within 0.5 %", async () => {
  await using dir = await tempDir();
  const { db, stats } = await importGenerated(dir.path);
  using _ = db;
  assert.equal(stats.ledgerRows, 1500);
  assert.ok(stats.duplicates > 1000, "streamed lines of one response count once");
  assert.equal(stats.malformed, 3);
  const expected = JSON.parse(await Deno.readTextFile(join(FIXTURES, "claude_daily.json"))) as {
    daily: CcRow[];
    totals: CcRow;
  };
  const dash = buildDashboard(db, {}, {
    timeZone: "UTC",
    now: Date.UTC(2026, 10, 1),
    breakdown: true,
  });
  const ours = new Map(dash.activity.days.map((d) => [d.date, d]));
  assert.equal(ours.size, expected.daily.length);
  for (const day of expected.daily) {
    const o = ours.get(day.date!);
    assert.ok(o, `missing day ${day.date}`);
    assert.deepEqual(
      [o.inputTokens, o.outputTokens, o.cacheWriteTokens, o.cacheReadTokens, o.totalTokens],
      [
        day.inputTokens,
        day.outputTokens,
        day.cacheCreationTokens,
        day.cacheReadTokens,
        day.totalTokens,
      ],
      day.date,
    );
    // A model bonsai does not price yet makes its cost a floor (U4): compared once priced.
    if (day.modelBreakdowns.every((m) => priced(m.modelName))) {
      assert.ok(
        Math.abs(o.costUsd - day.totalCost) <= day.totalCost * 0.005,
        `${day.date}: ${o.costUsd} vs ${day.totalCost}`,
      );
    }
    for (const m of day.modelBreakdowns) {
      const list: readonly {
        model: string;
        inputTokens: number;
        outputTokens: number;
        cacheWriteTokens: number;
        cacheReadTokens: number;
        costUsd: number;
      }[] = o.models ?? [];
      const om = list.find((x) => x.model === m.modelName);
      assert.ok(om, `${day.date} ${m.modelName}`);
      assert.deepEqual(
        [om.inputTokens, om.outputTokens, om.cacheWriteTokens, om.cacheReadTokens],
        [m.inputTokens, m.outputTokens, m.cacheCreationTokens, m.cacheReadTokens],
        `${day.date} ${m.modelName}`,
      );
      if (priced(m.modelName)) {
        assert.ok(
          Math.abs(om.costUsd - m.cost) <= m.cost * 0.005 + 1e-9,
          `${day.date} ${m.modelName} cost`,
        );
      }
    }
  }
  assert.equal(dash.activity.totals.totalTokens, expected.totals.totalTokens);
  // Per model over the whole period.
  const models = new Map(dash.models.models.map((m) => [m.model, m]));
  const byModel = new Map<string, number>();
  for (const d of expected.daily) {
    for (const m of d.modelBreakdowns) {
      byModel.set(
        m.modelName,
        (byModel.get(m.modelName) ?? 0) + m.inputTokens + m.outputTokens + m.cacheCreationTokens +
          m.cacheReadTokens,
      );
    }
  }
  for (const [model, tokens] of byModel) {
    assert.equal(models.get(model)?.totalTokens, tokens, model);
  }
});

Deno.test("Claude Code import: per-session tokens equal ccusage 20's session report (subagents folded in)", async () => {
  await using dir = await tempDir();
  const { db } = await importGenerated(dir.path);
  using _ = db;
  const expected = JSON.parse(await Deno.readTextFile(join(FIXTURES, "claude_session.json"))) as {
    sessions: CcRow[];
  };
  const rows = db.connection.prepare(
    `SELECT s.external_id AS id, sum(l.input_tokens) AS input, sum(l.output_tokens) AS output,
       sum(l.cache_write_5m_tokens + l.cache_write_1h_tokens) AS cw, sum(l.cache_read_tokens) AS cr,
       sum(l.lane = 'subagent') AS subagent
     FROM ledger l JOIN sessions s ON s.id = l.session_id GROUP BY s.external_id`,
  ).all() as {
    id: string;
    input: number;
    output: number;
    cw: number;
    cr: number;
    subagent: number;
  }[];
  const ours = new Map(rows.map((r) => [r.id, r]));
  assert.equal(ours.size, expected.sessions.length);
  for (const s of expected.sessions) {
    const o = ours.get(s.sessionId!);
    assert.ok(o, s.sessionId);
    assert.deepEqual([o.input, o.output, o.cw, o.cr], [
      s.inputTokens,
      s.outputTokens,
      s.cacheCreationTokens,
      s.cacheReadTokens,
    ], s.sessionId);
  }
  assert.ok(rows.some((r) => r.subagent > 0), "subagent usage keeps its lane");
  const sessions = db.connection.prepare(
    "SELECT count(*) AS n FROM sessions WHERE source = 'claude-code'",
  ).get() as { n: number };
  assert.equal(sessions.n, 13);
});

// Bulk mode (the size at which an import drops its external-id index and deduplicates in
// memory) must merge with what earlier imports wrote exactly as the index does.
for (const bulk of [false, true]) {
  Deno.test(`Claude Code import is idempotent and incremental; partial last lines wait${bulk ? " (bulk mode)" : ""}`, async () => {
    await using dir = await tempDir();
    const { db, ids, logs } = await importGenerated(dir.path);
    using _ = db;
    const bulkRecords = bulk ? 1 : undefined;
    const count = (sql: string) => (db.connection.prepare(sql).get() as { n: number }).n;
    const before = [
      count("SELECT count(*) AS n FROM ledger"),
      count("SELECT count(*) AS n FROM messages"),
      count("SELECT count(*) AS n FROM sessions"),
    ];
    const again = await importClaudeCode({ db, ids, roots: [logs], bulkRecords });
    assert.equal(again.skippedFiles, again.files, "unchanged files are skipped");
    assert.deepEqual(
      [
        count("SELECT count(*) AS n FROM ledger"),
        count("SELECT count(*) AS n FROM messages"),
        count("SELECT count(*) AS n FROM sessions"),
      ],
      before,
    );
    // Grow one session file by a new response written as two streamed lines, the second one
    // not yet finished (no newline).
    const file = (await Array.fromAsync(Deno.readDir(join(logs, "projects"))))[0]!;
    const projectDir = join(logs, "projects", file.name);
    const sessionFile = (await Array.fromAsync(Deno.readDir(projectDir))).find((e) =>
      e.isFile && e.name.endsWith(".jsonl")
    )!;
    const path = join(projectDir, sessionFile.name);
    const firstLine = JSON.parse(
      (await Deno.readTextFile(path)).split("\n").find((l) => l.includes('"cwd"'))!,
    );
    const line = (output: number, text: string) =>
      JSON.stringify({
        type: "assistant",
        uuid: crypto.randomUUID(),
        sessionId: firstLine.sessionId,
        cwd: firstLine.cwd,
        timestamp: "2026-10-20T12:00:00.000Z",
        requestId: "req_incremental",
        message: {
          id: "msg_incremental",
          role: "assistant",
          model: "claude-haiku-4-5-20251001",
          content: [{ type: "text", text }],
          usage: {
            input_tokens: 100,
            output_tokens: output,
            cache_read_input_tokens: 0,
            cache_creation_input_tokens: 0,
          },
        },
      });
    await Deno.writeTextFile(path, `${line(3, "zanzibar first part")}\n${line(250, "second")}`, {
      append: true,
    });
    const grown = await importClaudeCode({ db, ids, roots: [logs], bulkRecords });
    assert.equal(grown.ledgerRows, 1);
    const row = () =>
      db.connection.prepare(
        "SELECT output_tokens AS o FROM ledger WHERE external_id = 'cc:msg_incremental:req_incremental'",
      ).get() as { o: number };
    assert.equal(row().o, 3, "the unfinished line waits");
    await Deno.writeTextFile(path, "\n", { append: true });
    const finished = await importClaudeCode({ db, ids, roots: [logs], bulkRecords });
    assert.equal(finished.ledgerRows, 0);
    assert.equal(finished.updatedRows, 1, "the finished copy replaces the partial one");
    assert.equal(row().o, 250);
    assert.equal(count("SELECT count(*) AS n FROM ledger"), before[0]! + 1);
    // A file rewritten shorter (compacted, say) is read again from its start: the entries
    // the session holds are not added twice; a new one is.
    const messages = count("SELECT count(*) AS n FROM messages");
    const kept = (await Deno.readTextFile(path)).split("\n").filter((l) => l.trim()).slice(0, 3);
    await Deno.writeTextFile(path, [...kept, line(9, "rewritten tail")].join("\n") + "\n");
    const reread = await importClaudeCode({ db, ids, roots: [logs], bulkRecords });
    assert.equal(reread.messages, 1, "only the new line's entry");
    assert.equal(count("SELECT count(*) AS n FROM messages"), messages + 1);
    assert.equal(
      count(
        "SELECT count(*) AS n FROM (SELECT 1 FROM messages WHERE external_id IS NOT NULL GROUP BY session_id, external_id HAVING count(*) > 1)",
      ),
      0,
    );
  });
}

Deno.test("Claude Code import: duplicates, requestless responses, sidechains, titles, malformed lines and search", async () => {
  await using dir = await tempDir();
  const root = join(dir.path, "claude");
  const project = join(root, "projects", "-work-app");
  await Deno.mkdir(join(project, "s1", "subagents"), { recursive: true });
  const base = { sessionId: "s1", cwd: "/work/app", version: "2.1.0" };
  const assistant = (
    o: Record<string, unknown>,
    usage: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ) =>
    JSON.stringify({
      ...base,
      type: "assistant",
      uuid: crypto.randomUUID(),
      timestamp: "2026-10-05T10:00:00.000Z",
      ...extra,
      message: {
        role: "assistant",
        model: "claude-sonnet-4-5-20250929",
        content: [{ type: "text", text: "x" }],
        ...o,
        usage,
      },
    });
  const u = (output: number, more: Record<string, unknown> = {}) => ({
    input_tokens: 10,
    output_tokens: output,
    cache_read_input_tokens: 5,
    cache_creation_input_tokens: 0,
    ...more,
  });
  await Deno.writeTextFile(
    join(project, "s1.jsonl"),
    [
      JSON.stringify({ type: "summary", summary: "Fix the flaky parser", leafUuid: "x" }),
      JSON.stringify({
        ...base,
        type: "user",
        uuid: "u1",
        timestamp: "2026-10-05T09:59:00.000Z",
        message: { role: "user", content: "please fix the quokka parser" },
      }),
      assistant({ id: "m1" }, u(2), { requestId: "r1" }),
      assistant({ id: "m1" }, u(40), { requestId: "r1" }),
      assistant({ id: "m2" }, u(7)), // no requestId: deduplicated by message id
      assistant({ id: "m2" }, u(7)),
      assistant({ id: "m3" }, u(1), { requestId: "r3", isSidechain: true }),
      "{ this is not json",
      assistant(
        { id: "m4" },
        { input_tokens: 1, cache_read_input_tokens: null, output_tokens: 2 },
        { requestId: "r4" },
      ),
      "",
    ].join("\n"),
  );
  await Deno.writeTextFile(
    join(project, "s1", "subagents", "agent-ab12.jsonl"),
    assistant({ id: "m5", model: "claude-haiku-4-5-20251001" }, u(3), {
      requestId: "r5",
      isSidechain: true,
      agentId: "ab12",
    }) + "\n",
  );
  const { db, ids } = await openTestDb(join(dir.path, "home"));
  using _ = db;
  const stats = await importClaudeCode({ db, ids, roots: [root] });
  assert.equal(stats.malformed, 2, "bad JSON and a usage with a null count");
  const rows = db.connection.prepare(
    "SELECT external_id, lane, output_tokens FROM ledger ORDER BY id",
  ).all().map((r) => ({ ...r }));
  assert.deepEqual(rows, [
    { external_id: "cc:m1:r1", lane: "parent", output_tokens: 40 },
    { external_id: "cc:m2", lane: "parent", output_tokens: 7 },
    { external_id: "cc:m3:r3", lane: "subagent", output_tokens: 1 },
    { external_id: "cc:m5:r5", lane: "subagent", output_tokens: 3 },
  ]);
  const session = db.connection.prepare(
    "SELECT title, title_source, project_id, source, status FROM sessions",
  ).all().map((r) => ({ ...r }));
  assert.equal(session.length, 1, "the subagent file folds into its parent session");
  assert.deepEqual(session[0], {
    title: "Fix the flaky parser",
    title_source: "import",
    project_id: 1,
    source: "claude-code",
    status: "completed",
  });
  const { searchMessages } = await import("../../../core/storage/search.ts");
  assert.equal(searchMessages(db, "quokka").length, 1);
});

Deno.test("a bulk import builds the tool-duration and external-id indexes once at the end; it imports the same", async () => {
  await using dir = await tempDir();
  const logs = join(dir.path, "claude");
  await generateClaudeLogs({ out: logs, entries: 1500, seed: 7, days: 10 });
  const steady = await openTestDb(join(dir.path, "steady"));
  using _s = steady.db;
  await importClaudeCode({ db: steady.db, ids: steady.ids, roots: [logs] });
  const bulk = await openTestDb(join(dir.path, "bulk"));
  using _b = bulk.db;
  await importClaudeCode({ db: bulk.db, ids: bulk.ids, roots: [logs], bulkRecords: 1 });
  const tools = (db: typeof steady.db) =>
    buildDashboard(db, {}, { timeZone: "UTC", now: Date.UTC(2027, 0, 1) }).tools;
  const expected = tools(steady.db);
  assert.ok(expected.tools.length > 0 && expected.tools.every((t) => t.p95Ms !== null));
  assert.ok(hasIndex(bulk.db, DURATION_INDEX), "rebuilt at the end");
  assert.ok(hasIndex(bulk.db, EXTERNAL_INDEX), "rebuilt at the end");
  // Rebuilt exactly as migrations 0005 and 0003 made them: columns, uniqueness, condition.
  const shape = (db: typeof steady.db, table: string, index: string) => ({
    columns: db.connection.prepare(`PRAGMA index_xinfo(${index})`).all(),
    list: db.connection.prepare(`PRAGMA index_list(${table})`).all()
      .find((r) => r.name === index),
  });
  for (const [table, index] of [["tool_calls", DURATION_INDEX], ["ledger", EXTERNAL_INDEX]]) {
    assert.deepEqual(shape(bulk.db, table!, index!), shape(steady.db, table!, index!));
    assert.equal(shape(steady.db, table!, index!).list?.partial, 1);
  }
  assert.equal(shape(steady.db, "ledger", EXTERNAL_INDEX).list?.unique, 1);
  assert.deepEqual(tools(bulk.db), expected);
  const ledger = (db: typeof steady.db) =>
    db.connection.prepare(
      `SELECT external_id, model, input_tokens, output_tokens, cache_read_tokens,
         cache_write_5m_tokens, cache_write_1h_tokens, cost_usd, lane FROM ledger ORDER BY external_id`,
    ).all().map((r) => ({ ...r }));
  assert.deepEqual(ledger(bulk.db), ledger(steady.db));
  // A big import killed before its end leaves no index: the dashboard still answers the
  // same, and the next import (even one with nothing new) builds it.
  new ToolCallStore(bulk.db).dropDurationIndex();
  new LedgerStore(bulk.db).dropExternalIndex();
  assert.ok(!hasIndex(bulk.db, DURATION_INDEX));
  assert.deepEqual(tools(bulk.db), expected);
  const again = await importClaudeCode({ db: bulk.db, ids: bulk.ids, roots: [logs] });
  assert.equal(again.ledgerRows, 0);
  assert.ok(hasIndex(bulk.db, DURATION_INDEX));
  assert.ok(hasIndex(bulk.db, EXTERNAL_INDEX));
  assert.deepEqual(tools(bulk.db), expected);
});

Deno.test("parsing on a worker thread imports exactly what parsing on the writer's thread does", async () => {
  await using dir = await tempDir();
  const logs = join(dir.path, "claude");
  await generateClaudeLogs({ out: logs, entries: 1500, seed: 11, days: 10 });
  const dump = async (parallel: boolean) => {
    const { db, ids } = await openTestDb(join(dir.path, `home-${parallel}`));
    using _ = db;
    const stats = await importClaudeCode({ db, ids, roots: [logs], parallel });
    const rows = (sql: string) => db.connection.prepare(sql).all();
    const again = await importClaudeCode({ db, ids, roots: [logs], parallel });
    return {
      stats,
      again,
      sessions: rows(
        `SELECT s.external_id, s.title, s.title_source, s.created_at, s.message_count, p.root_path
         FROM sessions s JOIN projects p ON p.id = s.project_id ORDER BY s.external_id`,
      ),
      messages: rows(
        `SELECT s.external_id AS session, m.seq, m.role, m.kind, m.text, m.tool_call_id, m.tool_args,
           m.tool_result, m.is_error, m.external_id, m.created_at
         FROM messages m JOIN sessions s ON s.id = m.session_id ORDER BY s.external_id, m.seq`,
      ),
      ledger: rows(
        `SELECT external_id, lane, model, input_tokens, output_tokens, cache_read_tokens,
           cache_write_5m_tokens, cache_write_1h_tokens, cost_usd, created_at
         FROM ledger ORDER BY id`,
      ),
      calls: rows(
        `SELECT s.external_id AS session, t.call_id, t.tool_name, t.status, t.result, t.duration_ms
         FROM tool_calls t JOIN sessions s ON s.id = t.session_id ORDER BY s.external_id, t.call_id`,
      ),
    };
  };
  const inline = await dump(false);
  // Count the worker's replies, so a worker that silently failed to start cannot pass.
  const RealWorker = globalThis.Worker;
  let replies = 0;
  globalThis.Worker = class extends RealWorker {
    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options);
      this.addEventListener("message", () => replies++);
    }
  };
  let worker;
  try {
    worker = await dump(true);
  } finally {
    globalThis.Worker = RealWorker;
  }
  assert.ok(replies > 10, `the worker replied ${replies} times`);
  assert.ok(inline.messages.length > 1000 && inline.ledger.length > 1000);
  assert.equal(worker.again.skippedFiles, worker.again.files);
  assert.deepEqual(worker, inline);
});

/** Ledger rows as an import leaves them, comparable across databases. */
function ledgerRows(db: Awaited<ReturnType<typeof openTestDb>>["db"]) {
  return db.connection.prepare(
    `SELECT l.external_id, s.external_id AS session, l.model, l.input_tokens, l.output_tokens,
       l.cache_read_tokens, l.cache_write_5m_tokens, l.cache_write_1h_tokens, l.cost_usd, l.lane
     FROM ledger l JOIN sessions s ON s.id = l.session_id ORDER BY l.external_id`,
  ).all().map((r) => ({ ...r }));
}

/**
 * Generated logs plus a "resumed" copy of one session file under a new session id (Claude
 * Code copies the earlier responses, same message and request ids, into the new
 * transcript), imported the everyday way into `<dir>/steady`.
 */
async function resumedLogs(dir: string) {
  const logs = join(dir, "claude");
  await generateClaudeLogs({ out: logs, entries: 1500, seed: 5, days: 10 });
  await writeResumedCopy(logs);
  const steady = await openTestDb(join(dir, "steady"));
  const stats = await importClaudeCode({ db: steady.db, ids: steady.ids, roots: [logs] });
  return { logs, steady: steady.db, stats };
}

async function writeResumedCopy(logs: string): Promise<void> {
  const project = (await Array.fromAsync(Deno.readDir(join(logs, "projects"))))[0]!.name;
  const dir = join(logs, "projects", project);
  const file = (await Array.fromAsync(Deno.readDir(dir))).find((e) =>
    e.isFile && e.name.endsWith(".jsonl")
  )!;
  const lines = (await Deno.readTextFile(join(dir, file.name))).split("\n").filter((l) => {
    try {
      return JSON.parse(l).sessionId !== undefined;
    } catch {
      return false;
    }
  });
  const id = "0199ffff-0000-7000-8000-00000000c0de";
  await Deno.writeTextFile(
    join(dir, `${id}.jsonl`),
    lines.map((l) => JSON.stringify({ ...JSON.parse(l), sessionId: id })).join("\n") + "\n",
  );
}

Deno.test("a bulk import spread over many commits deduplicates across them as the index does", async () => {
  await using dir = await tempDir();
  const { logs, steady, stats: expected } = await resumedLogs(dir.path);
  using _s = steady;
  assert.equal(expected.ledgerRows, 1500, "the resumed copy adds no response");
  const bulk = await openTestDb(join(dir.path, "bulk"));
  using _b = bulk.db;
  const stats = await importClaudeCode({
    db: bulk.db,
    ids: bulk.ids,
    roots: [logs],
    bulkRecords: 1,
    commitRecords: 50,
  });
  assert.deepEqual(stats, expected);
  assert.deepEqual(ledgerRows(bulk.db), ledgerRows(steady));
  assert.ok(hasIndex(bulk.db, EXTERNAL_INDEX));
});

Deno.test("an import whose external-id index another import drops goes on in memory, never scanning", async () => {
  await using dir = await tempDir();
  const { logs, steady } = await resumedLogs(dir.path);
  using _s = steady;
  const other = await openTestDb(join(dir.path, "other"));
  using _o = other.db;
  const ledger = new LedgerStore(other.db);
  const findExternal = LedgerStore.prototype.findExternal;
  let scans = 0;
  LedgerStore.prototype.findExternal = function (this: LedgerStore, id: string) {
    if (!hasIndex(other.db, EXTERNAL_INDEX)) scans++;
    return findExternal.call(this, id);
  };
  try {
    let dropped = false;
    await importClaudeCode({
      db: other.db,
      ids: other.ids,
      roots: [logs],
      commitRecords: 50,
      // After the first batch, "another import" crosses its bulk threshold.
      progress: () => {
        if (!dropped) ledger.dropExternalIndex();
        dropped = true;
      },
    });
  } finally {
    LedgerStore.prototype.findExternal = findExternal;
  }
  assert.equal(scans, 0);
  assert.deepEqual(ledgerRows(other.db), ledgerRows(steady));
  assert.ok(hasIndex(other.db, EXTERNAL_INDEX), "built again when the import finished");
});

Deno.test("Claude Code import: warm-up-only and slash-command sessions get a title; provider and model; a Windows cwd", async () => {
  await using dir = await tempDir();
  const root = join(dir.path, "claude");
  const project = join(root, "projects", "-work-app");
  await Deno.mkdir(join(project, "s2", "subagents"), { recursive: true });
  await Deno.mkdir(join(project, "s4", "subagents"), { recursive: true });
  let n = 0;
  const at = () => new Date(Date.UTC(2026, 9, 5, 10, 0, n++)).toISOString();
  const user = (sessionId: string, content: unknown, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      sessionId,
      cwd: "/work/app",
      type: "user",
      uuid: crypto.randomUUID(),
      timestamp: at(),
      ...extra,
      message: { role: "user", content },
    });
  const reply = (sessionId: string, model: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      sessionId,
      cwd: "/work/app",
      type: "assistant",
      uuid: crypto.randomUUID(),
      timestamp: at(),
      requestId: `req_${n}`,
      ...extra,
      message: {
        id: `msg_${n}`,
        role: "assistant",
        model,
        content: [{ type: "text", text: "ok" }],
        usage: { input_tokens: 10, output_tokens: 5 },
      },
    });
  const write = (path: string, lines: string[]) =>
    Deno.writeTextFile(join(project, path), lines.join("\n") + "\n");
  const HAIKU = "claude-haiku-4-5-20251001";
  const SONNET = "claude-sonnet-4-5-20250929";
  const side = { isSidechain: true };
  // Claude Code started and quit: only its sub-agents' warm-ups were written.
  for (const agent of ["agent-a1.jsonl", "agent-a2.jsonl"]) {
    await write(agent, [user("w1", "Warmup", side), reply("w1", HAIKU, side)]);
  }
  // A session that is only /init (the expanded prompt is meta), with many sub-agent turns.
  await write("s2.jsonl", [
    user(
      "s2",
      "<command-message>init is analyzing your codebase…</command-message>\n<command-name>/init</command-name>",
    ),
    user("s2", [{ type: "text", text: "Please analyze this codebase" }], { isMeta: true }),
    reply("s2", SONNET),
    reply("s2", SONNET),
  ]);
  await write(
    "s2/subagents/agent-x.jsonl",
    [1, 2, 3].map(() => reply("s2", HAIKU, side)),
  );
  // /init first, then a typed prompt: the prompt names it.
  await write("s3.jsonl", [
    user(
      "s3",
      "<command-name>/init</command-name>\n<command-message>init</command-message>\n<command-args></command-args>",
    ),
    reply("s3", SONNET),
    user("s3", "Now fix the failing test"),
    reply("s3", SONNET),
  ]);
  // Only a sub-agent's transcript is left: its task names the session.
  await write("s4/subagents/agent-y.jsonl", [
    user("s4", "Find the session creation form", side),
    reply("s4", HAIKU, side),
  ]);
  const windows = join(root, "projects", "C--Users-dev-app");
  await Deno.mkdir(windows, { recursive: true });
  await Deno.writeTextFile(
    join(windows, "s5.jsonl"),
    JSON.stringify({
      sessionId: "s5",
      cwd: "C:\\Users\\dev\\app",
      type: "user",
      uuid: "u5",
      timestamp: at(),
      message: { role: "user", content: "Build it on Windows" },
    }) + "\n",
  );
  const { db, ids } = await openTestDb(join(dir.path, "home"));
  using _ = db;
  await importClaudeCode({ db, ids, roots: [root] });
  const sessions = db.connection.prepare(
    `SELECT s.external_id AS id, s.title, s.title_source AS source, s.provider, s.model,
       p.root_path AS project
     FROM sessions s JOIN projects p ON p.id = s.project_id ORDER BY s.external_id`,
  ).all().map((r) => ({ ...r }));
  assert.deepEqual(sessions, [
    {
      id: "s2",
      title: "/init",
      source: "derived",
      provider: "anthropic",
      model: SONNET, // the session's own turns decide, not its sub-agents' more numerous ones
      project: "/work/app",
    },
    {
      id: "s3",
      title: "Now fix the failing test",
      source: "derived",
      provider: "anthropic",
      model: SONNET,
      project: "/work/app",
    },
    {
      id: "s4",
      title: "Find the session creation form",
      source: "derived",
      provider: "anthropic",
      model: HAIKU,
      project: "/work/app",
    },
    {
      id: "s5",
      title: "Build it on Windows",
      source: "derived",
      provider: null,
      model: null,
      project: "C:\\Users\\dev\\app",
    },
    {
      id: "w1",
      title: "Sub-agent warm-up (no prompt)",
      source: "derived",
      provider: "anthropic",
      model: HAIKU,
      project: "/work/app",
    },
  ]);
  // A later import that brings a typed prompt renames a session titled by a fallback.
  await Deno.writeTextFile(
    join(project, "s2.jsonl"),
    user("s2", "Also document the build") + "\n",
    { append: true },
  );
  // More turns of another model, in a later import: the session's model follows the ledger.
  const OPUS = "claude-opus-4-5-20251101";
  await Deno.writeTextFile(
    join(project, "s3.jsonl"),
    [reply("s3", OPUS), reply("s3", OPUS), reply("s3", OPUS)].join("\n") + "\n",
    { append: true },
  );
  await importClaudeCode({ db, ids, roots: [root] });
  const later = db.connection.prepare(
    "SELECT external_id, title, model FROM sessions WHERE external_id IN ('s2', 's3') ORDER BY 1",
  ).all().map((r) => ({ ...r }));
  assert.deepEqual(later, [
    { external_id: "s2", title: "Also document the build", model: SONNET },
    { external_id: "s3", title: "Now fix the failing test", model: OPUS },
  ]);
});

Deno.test("Claude Code import: every session gets the provider and model of most of its own turns", async () => {
  await using dir = await tempDir();
  const { db } = await importGenerated(dir.path);
  using _ = db;
  const sessions = db.connection.prepare(
    "SELECT id, provider, model FROM sessions WHERE source = 'claude-code'",
  ).all() as { id: string; provider: string; model: string }[];
  assert.equal(sessions.length, 13);
  for (const s of sessions) {
    const top = db.connection.prepare(
      `SELECT model FROM ledger WHERE session_id = ? GROUP BY model
       ORDER BY sum(lane = 'parent') DESC, count(*) DESC,
         sum(input_tokens + output_tokens + cache_read_tokens + cache_write_5m_tokens
           + cache_write_1h_tokens) DESC, model LIMIT 1`,
    ).get(s.id) as { model: string };
    assert.deepEqual([s.provider, s.model], ["anthropic", top.model], s.id);
  }
});
