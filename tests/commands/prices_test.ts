import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { LedgerStore } from "../../core/storage/ledger.ts";
import { SessionStore } from "../../core/storage/sessions.ts";
import { SettingsStore } from "../../core/storage/settings.ts";
import { PRICE_SOURCE } from "../../core/usage/price_dataset.ts";
import { priceSettings, usePricingContext } from "../../core/usage/pricing_context.ts";
import { importClaudeCode } from "../../core/import/claude_code.ts";
import { openTestDb, testIds } from "../support/db.ts";
import { baseEnv, runBonsai } from "../support/bonsai_process.ts";
import { LoopbackServer } from "../support/loopback_server.ts";
import { openai } from "../support/sse_scripts.ts";
import { tempDir } from "../support/temp.ts";
import { ledgerRow } from "../support/usage_ledger.ts";
import { cli, testWorld } from "../support/world.ts";

Deno.test("bonsai prices --json: the rates used, their source and date, tiers, and unknown ids", async () => {
  await using dir = await tempDir();
  try {
    const set = testWorld({ home: dir.path });
    assert.equal(await cli(set.world, "settings", "set", "price.llama3.2", "free"), 0);
    const t = testWorld({ home: dir.path });
    assert.equal(
      await cli(
        t.world,
        "prices",
        "claude-sonnet-4-5-20250929",
        "llama3.2:latest",
        "nope-1",
        "--json",
      ),
      0,
    );
    const out = JSON.parse(t.stdout.text);
    assert.deepEqual(out.source, PRICE_SOURCE);
    assert.equal(out.source.name, "@pydantic/genai-prices");
    const [sonnet, llama, nope] = out.models;
    assert.deepEqual(
      {
        query: sonnet.query,
        known: sonnet.known,
        model: sonnet.model,
        provider: sonnet.provider,
        source: sonnet.source,
        rates: sonnet.rates,
        tiers: sonnet.tiers,
        context_window: sonnet.context_window,
        max_output: sonnet.max_output,
      },
      {
        query: "claude-sonnet-4-5-20250929",
        known: true,
        model: "claude-sonnet-4-5",
        provider: "anthropic",
        source: "dataset",
        rates: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75, cache_write_1h: 6 },
        tiers: [{
          above: 200_000,
          input: 6,
          output: 22.5,
          cache_read: 0.6,
          cache_write: 7.5,
          cache_write_1h: 12,
        }],
        context_window: 200_000,
        max_output: 64_000,
      },
    );
    assert.match(sonnet.matches[0], /starting "claude-sonnet-4-5"/);
    assert.deepEqual(
      [llama.source, llama.setting, llama.free, llama.rates.input, llama.rates.output],
      ["user", "price.llama3.2", true, 0, 0],
    );
    assert.deepEqual([nope.known, nope.source, nope.rates], [false, null, null]);

    const human = testWorld({ home: dir.path });
    assert.equal(await cli(human.world, "prices", "gpt-5.5", "nope-1"), 0);
    assert.match(human.stdout.text, /≥272k\s+input 10, output 45, cache read 1/);
    assert.match(human.stdout.text, /nope-1\n\s+price\s+unknown: its turns count as unpriced/);
    assert.match(human.stdout.text, /bonsai settings set price\.nope-1/);

    const all = testWorld({ home: dir.path, env: { COLUMNS: "160" } });
    assert.equal(await cli(all.world, "prices"), 0);
    const lines = all.stdout.text.split("\n");
    assert.match(lines[0]!, /@pydantic\/genai-prices \d+\.\d+\.\d+ \(published \d{4}-\d{2}-\d{2}/);
    assert.match(lines[2]!, /^llama3\.2\s+-\s+saved\s+free/, "saved prices first");
    assert.ok(
      lines.some((l) => /^gpt-5\.5\s+openai\s+table\s+5\s+30\s+0\.5\b.*≥272k: 10 \/ 45/.test(l)),
    );
    const json = testWorld({ home: dir.path });
    assert.equal(await cli(json.world, "prices", "--json"), 0);
    assert.ok(JSON.parse(json.stdout.text).models.length > 200);
  } finally {
    usePricingContext(null);
  }
});

Deno.test("price settings: set, listed by bonsai settings, removed; a bad stored one stops pricing", async () => {
  await using dir = await tempDir();
  try {
    const set = testWorld({ home: dir.path });
    assert.equal(
      await cli(
        set.world,
        "settings",
        "set",
        "price.my-model",
        "input=1.5",
        "output=4",
        "cache_read=0.15",
      ),
      0,
    );
    assert.match(set.stderr.text, /Saved price\.my-model = input=1\.5 output=4 cache_read=0\.15/);
    const bad = testWorld({ home: dir.path });
    assert.equal(await cli(bad.world, "settings", "set", "price.my-model", "input=1.5"), 2);
    assert.match(bad.stderr.text, /price\.my-model: output required \(or 'free'\)/);

    const list = testWorld({ home: dir.path, env: { COLUMNS: "200" } });
    assert.equal(await cli(list.world, "settings"), 0);
    assert.match(
      list.stdout.text,
      /price\.my-model\s+input=1\.5 output=4 cache_read=0\.15\s+price of a model/,
    );
    const json = testWorld({ home: dir.path });
    assert.equal(await cli(json.world, "settings", "--json"), 0);
    assert.deepEqual(JSON.parse(json.stdout.text)["price.my-model"], {
      input: 1.5,
      output: 4,
      cache_read: 0.15,
    });

    const unset = testWorld({ home: dir.path });
    assert.equal(await cli(unset.world, "settings", "unset", "price.my-model"), 0);
    const none = testWorld({ home: dir.path, env: { COLUMNS: "200" } });
    assert.equal(await cli(none.world, "settings"), 0);
    assert.match(
      none.stdout.text,
      /price\.<model>\s+-\s+price of a model/,
      "the key is listed while unset",
    );

    const { db } = await openTestDb(dir.path);
    new SettingsStore(db).set("price.hand-edited", '{"input":"cheap"}');
    db.close();
    const prices = testWorld({ home: dir.path });
    assert.equal(await cli(prices.world, "prices", "gpt-5"), 2);
    assert.match(
      prices.stderr.text,
      /Saved setting 'price\.hand-edited' has an unusable value \{"input":"cheap"\} \(input: expected a number of 0 or more\); remove it with 'bonsai settings unset price\.hand-edited'/,
    );
    const listed = testWorld({ home: dir.path, env: { COLUMNS: "200" } });
    assert.equal(await cli(listed.world, "settings"), 0);
    assert.match(listed.stdout.text, /price\.hand-edited\s+\{"input":"cheap"\} \(unusable/);
  } finally {
    usePricingContext(null);
  }
});

Deno.test("bonsai db reprice: reports changes per model, keeps totals consistent, refuses live sessions", async () => {
  await using dir = await tempDir();
  try {
    const { db, clock, ids } = await openTestDb(dir.path);
    const now = Date.parse("2026-11-20T12:00:00Z");
    clock.set(now);
    const s = new SessionStore(db, ids).create({ projectPath: "/p", status: "completed" });
    const pid = Number(
      (db.prepare("SELECT project_id FROM sessions WHERE id = ?").get(s.id) as {
        project_id: number;
      })
        .project_id,
    );
    const base = { sessionId: s.id, projectId: pid };
    new LedgerStore(db).append([
      ledgerRow({ ...base, createdAt: now - 40 * 86_400_000 }, {
        provider: "openai",
        model: "gpt-5.5",
        inputTokens: 100_000,
        costUsd: 0.25,
        baselineCostUsd: 0.25,
      }),
      ledgerRow({ ...base, createdAt: now - 3_600_000 }, {
        provider: "openai",
        model: "my-local",
        inputTokens: 1_000,
        costUsd: null,
        baselineCostUsd: null,
      }),
    ]);
    db.close();
    const set = testWorld({ home: dir.path });
    assert.equal(await cli(set.world, "settings", "set", "price.my-local", "free"), 0);

    const recent = testWorld({ home: dir.path, clock });
    assert.equal(await cli(recent.world, "db", "reprice", "--since", "7d", "--json"), 0);
    const r1 = JSON.parse(recent.stdout.text);
    assert.deepEqual([r1.rows, r1.changed, r1.newly_priced, r1.unpriced], [1, 1, 1, 0]);

    const all = testWorld({ home: dir.path, clock });
    assert.equal(await cli(all.world, "db", "reprice"), 0);
    assert.match(
      all.stdout.text,
      /Repriced 2 row\(s\): 1 changed, 0 newly priced, 0 still without a price; total \$0\.25 -> \$0\.50 \(\+\$0\.25\)/,
    );
    assert.match(
      all.stdout.text,
      /gpt-5\.5\s+openai\s+1\s+1\s+0\s+0\s+\$0\.25\s+\$0\.50\s+\+\$0\.25/,
    );

    const conn = new DatabaseSync(join(dir.path, "bonsai.db"), { readOnly: true });
    const session = conn.prepare("SELECT cost_usd, unpriced_attempts FROM sessions").get() as {
      cost_usd: number;
      unpriced_attempts: number;
    };
    const day = conn.prepare(
      "SELECT sum(cost_usd) AS c, sum(unpriced_turns) AS u FROM usage_day_model",
    )
      .get() as { c: number; u: number };
    conn.close();
    assert.deepEqual([session.cost_usd, session.unpriced_attempts], [0.5, 0]);
    assert.deepEqual([day.c, day.u], [0.5, 0]);

    const usage = testWorld({ home: dir.path, clock });
    assert.equal(await cli(usage.world, "usage", "models", "--json"), 0);
    const models = JSON.parse(usage.stdout.text).models as { model: string; cost_usd: number }[];
    assert.equal(models.find((m) => m.model === "gpt-5.5")!.cost_usd, 0.5);

    const { db: again } = await openTestDb(dir.path, { clock });
    new SessionStore(again, testIds(clock, 5)).create({
      projectPath: "/p",
      ownerPid: 777,
      ownerHost: "test-host",
    });
    again.close();
    const refused = testWorld({ home: dir.path, clock });
    assert.equal(await cli(refused.world, "db", "reprice"), 5);
    assert.match(
      refused.stderr.text,
      /Cannot reprice while 1 session\(s\) are live .*pass --force/,
    );
    const forced = testWorld({ home: dir.path, clock });
    assert.equal(await cli(forced.world, "db", "reprice", "--force", "--json"), 0);
    assert.equal(JSON.parse(forced.stdout.text).live_sessions, 1);
  } finally {
    usePricingContext(null);
  }
});

Deno.test("a headless run prices with saved prices: a free local model costs exactly $0, a saved rate overrides the table", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const work = join(dir.path, "work");
  await Deno.mkdir(work);
  await using server = await LoopbackServer.start();
  const usage = { prompt_tokens: 1_000, completion_tokens: 100 };
  server.openai(
    { events: openai.reply({ text: "local answer", model: "llama3.2-local", usage }) },
    { events: openai.reply({ text: "priced answer", model: "gpt-4o-2024-08-06", usage }) },
  );
  const env = (model: string) =>
    baseEnv(home, { OPENAI_BASE_URL: server.openaiUrl, BONSAI_MODEL: model });
  const opts = (model: string) => ({ cwd: work, env: env(model) });
  assert.equal(
    (await runBonsai(["settings", "set", "price.llama3.2-local", "free"], opts("x"))).code,
    0,
  );
  assert.equal(
    (await runBonsai(["settings", "set", "price.gpt-4o", "input=2", "output=10"], opts("x"))).code,
    0,
  );
  const local = await runBonsai(["-p", "hi", "--json"], opts("llama3.2-local"));
  assert.equal(local.code, 0, local.stderr);
  assert.deepEqual(JSON.parse(local.stdout).cost, { usd: 0, exact: true, unpriced_attempts: 0 });
  const priced = await runBonsai(["-p", "hi", "--json"], opts("gpt-4o"));
  assert.equal(priced.code, 0, priced.stderr);
  const cost = JSON.parse(priced.stdout).cost;
  assert.equal(cost.exact, true);
  assert.ok(Math.abs(cost.usd - (1_000 * 2 + 100 * 10) / 1e6) < 1e-9, JSON.stringify(cost));
  const conn = new DatabaseSync(join(home, "bonsai.db"), { readOnly: true });
  const rows = conn.prepare("SELECT model, cost_usd, baseline_cost_usd FROM ledger ORDER BY id")
    .all();
  conn.close();
  assert.deepEqual(rows.map((r) => [r.model, r.cost_usd === null ? null : Number(r.cost_usd)]), [
    ["llama3.2-local", 0],
    ["gpt-4o-2024-08-06", 0.003],
  ]);
});

/** A Claude Code log of one Sonnet 4.5 and one Haiku 4.5 response, under `logs`. */
async function twoModelLog(logs: string): Promise<void> {
  const project = join(logs, "projects", "-work-app");
  await Deno.mkdir(project, { recursive: true });
  const line = (id: string, model: string) =>
    JSON.stringify({
      sessionId: "s1",
      cwd: "/work/app",
      version: "2.1.0",
      type: "assistant",
      uuid: crypto.randomUUID(),
      requestId: `req_${id}`,
      timestamp: "2026-10-05T10:00:00.000Z",
      message: {
        id,
        role: "assistant",
        model,
        content: [{ type: "text", text: "x" }],
        usage: { input_tokens: 1_000, output_tokens: 100, cache_read_input_tokens: 0 },
      },
    });
  await Deno.writeTextFile(
    join(project, "s1.jsonl"),
    [line("m1", "claude-sonnet-4-5-20250929"), line("m2", "claude-haiku-4-5-20251001"), ""].join(
      "\n",
    ),
  );
}

const SAVED_SONNET = [
  ["claude-haiku-4-5-20251001", (1_000 * 1 + 100 * 5) / 1e6],
  ["claude-sonnet-4-5-20250929", (1_000 * 1 + 100 * 1) / 1e6],
];

Deno.test("an import prices with saved prices before the table", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const logs = join(dir.path, "claude");
  await twoModelLog(logs);
  try {
    const set = testWorld({ home });
    assert.equal(
      await cli(set.world, "settings", "set", "price.claude-sonnet-4-5", "input=1", "output=1"),
      0,
    );
    const imp = testWorld({ home });
    assert.equal(
      await cli(imp.world, "import", "claude-code", "--path", logs, "--json"),
      0,
      imp.stderr.text,
    );
  } finally {
    usePricingContext(null);
  }
  const conn = new DatabaseSync(join(home, "bonsai.db"), { readOnly: true });
  const rows = conn.prepare("SELECT model, cost_usd FROM ledger ORDER BY model").all();
  conn.close();
  assert.deepEqual(rows.map((r) => [r.model, Number(r.cost_usd)]), SAVED_SONNET);
});

Deno.test("an import parsed on a worker thread (big histories) prices with saved prices too", async () => {
  await using dir = await tempDir();
  const logs = join(dir.path, "claude");
  await twoModelLog(logs);
  const { db, ids } = await openTestDb(join(dir.path, "home"));
  try {
    new SettingsStore(db).set("price.claude-sonnet-4-5", JSON.stringify({ input: 1, output: 1 }));
    usePricingContext({ savedPrices: () => priceSettings(new SettingsStore(db).all()) });
    await importClaudeCode({ db, ids, roots: [logs], parallel: true });
    const rows = db.prepare("SELECT model, cost_usd FROM ledger ORDER BY model").all();
    assert.deepEqual(rows.map((r) => [r.model, Number(r.cost_usd)]), SAVED_SONNET);
  } finally {
    usePricingContext(null);
    db.close();
  }
});

Deno.test("a bad saved price stops an import before it writes anything", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const logs = join(dir.path, "claude");
  await twoModelLog(logs);
  const { db } = await openTestDb(home);
  new SettingsStore(db).set("price.claude-sonnet-4-5", JSON.stringify({ input: "three" }));
  db.close();
  try {
    const imp = testWorld({ home });
    assert.equal(await cli(imp.world, "import", "claude-code", "--path", logs), 2);
    assert.match(imp.stderr.text, /price\.claude-sonnet-4-5.*bonsai settings unset/);
    assert.equal(imp.stderr.text.trim().split("\n").length, 1, imp.stderr.text);
  } finally {
    usePricingContext(null);
  }
  const conn = new DatabaseSync(join(home, "bonsai.db"), { readOnly: true });
  const counted = (table: string) =>
    (conn.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  assert.deepEqual([counted("sessions"), counted("ledger"), counted("import_files")], [0, 0, 0]);
  conn.close();
});
