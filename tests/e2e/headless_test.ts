import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { priceTokens } from "../../core/usage/pricing.ts";
import { LoopbackServer } from "../support/loopback_server.ts";
import { anthropic, openai } from "../support/sse_scripts.ts";
import { baseEnv, runBonsai } from "../support/bonsai_process.ts";
import { tempDir } from "../support/temp.ts";

async function project() {
  const dir = await tempDir();
  const home = join(dir.path, "home");
  const work = join(dir.path, "work");
  await Deno.mkdir(work);
  return { dir, home, work: await Deno.realPath(work) };
}

function query<T>(home: string, sql: string, ...args: (string | number)[]): T[] {
  const db = new DatabaseSync(join(home, "bonsai.db"), { readOnly: true });
  try {
    return db.prepare(sql).all(...args).map((r) => ({ ...r })) as T[];
  } finally {
    db.close();
  }
}

Deno.test("headless run: write, edit, exec, answer; everything recorded and the JSON matches the database", async () => {
  const p = await project();
  await using _ = p.dir;
  await using server = await LoopbackServer.start();
  const u = (i: number, o: number, r = 0, w = 0) => ({
    input_tokens: i,
    output_tokens: o,
    cache_read_input_tokens: r,
    cache_creation_input_tokens: w,
    cache_5m: w,
    cache_1h: 0,
  });
  server.anthropic(
    {
      events: anthropic.reply({
        text: "Creating the file.",
        calls: [{
          id: "toolu_w",
          name: "write",
          json: JSON.stringify({ path: "hello.txt", content: "hello\nworld\n" }),
        }],
        usage: u(120, 40, 0, 2000),
      }),
    },
    {
      events: anthropic.reply({
        calls: [{
          id: "toolu_e",
          name: "edit",
          json: JSON.stringify({ path: "hello.txt", old_string: "world", new_string: "bonsai" }),
        }],
        usage: u(30, 25, 2000, 150),
      }),
    },
    {
      events: anthropic.reply({
        calls: [{
          id: "toolu_x",
          name: "exec",
          json: JSON.stringify({ command: "cat hello.txt" }),
        }],
        usage: u(20, 15, 2150, 90),
      }),
    },
    {
      events: anthropic.reply({
        text: "Done: hello.txt now says hello bonsai.",
        usage: u(10, 12, 2240, 60),
      }),
    },
  );
  const env = baseEnv(p.home, {
    ANTHROPIC_API_KEY: "sk-ant-test-0000000000000000000000",
    ANTHROPIC_BASE_URL: server.url,
  });
  const out = await runBonsai([
    "-p",
    "create hello.txt and fix it",
    "--json",
    "--allow",
    "write,exec",
  ], { cwd: p.work, env });
  assert.equal(out.code, 0, out.stderr);
  assert.equal(await Deno.readTextFile(join(p.work, "hello.txt")), "hello\nbonsai\n");
  const json = JSON.parse(out.stdout);
  assert.equal(json.status, "completed");
  assert.equal(json.result, "Done: hello.txt now says hello bonsai.");
  assert.equal(json.turns, 4);
  assert.equal(json.budget_exhaustion, null);
  assert.equal(json.error, null);

  const calls = query<
    {
      tool_name: string;
      args: string;
      status: string;
      result: string;
      diff: string | null;
      exit_code: number | null;
    }
  >(
    p.home,
    "SELECT tool_name, args, status, result, diff, exit_code FROM tool_calls WHERE session_id = ? ORDER BY id",
    json.session_id,
  );
  assert.deepEqual(calls.map((c) => [c.tool_name, c.status]), [["write", "ok"], ["edit", "ok"], [
    "exec",
    "ok",
  ]]);
  assert.deepEqual(JSON.parse(calls[0]!.args), { path: "hello.txt", content: "hello\nworld\n" });
  assert.match(calls[0]!.diff!, /\+\+\+ b\/hello.txt\n@@ -0,0 \+1,2 @@\n\+hello\n\+world/);
  assert.match(calls[1]!.diff!, /-world\n\+bonsai/);
  assert.match(calls[2]!.result, /hello\nbonsai\n\[exit code 0\]/);
  assert.equal(calls[2]!.exit_code, 0);

  const ledger = query<Record<string, number | string | null>>(
    p.home,
    "SELECT * FROM ledger WHERE session_id = ? ORDER BY seq",
    json.session_id,
  );
  assert.equal(ledger.length, 4);
  assert.deepEqual(
    ledger.map((
      l,
    ) => [l.input_tokens, l.output_tokens, l.cache_read_tokens, l.cache_write_5m_tokens]),
    [
      [120, 40, 0, 2000],
      [30, 25, 2000, 150],
      [20, 15, 2150, 90],
      [10, 12, 2240, 60],
    ],
  );
  for (const row of ledger) {
    const expected = priceTokens(String(row.model), {
      inputTokens: Number(row.input_tokens),
      outputTokens: Number(row.output_tokens),
      cacheReadTokens: Number(row.cache_read_tokens),
      cacheWrite5mTokens: Number(row.cache_write_5m_tokens),
      cacheWrite1hTokens: Number(row.cache_write_1h_tokens),
    });
    assert.ok(Math.abs(Number(row.cost_usd) - expected.usd!) < 1e-12);
    assert.equal(row.lane, "parent");
    assert.equal(row.provider, "anthropic");
    assert.equal(row.model, "claude-sonnet-4-5-20250929");
    assert.ok(row.prefix_hash);
  }
  const sum = (k: string) => ledger.reduce((a, r) => a + Number(r[k]), 0);
  assert.deepEqual(json.usage, {
    input_tokens: sum("input_tokens"),
    output_tokens: sum("output_tokens"),
    cache_read_tokens: sum("cache_read_tokens"),
    cache_write_tokens: sum("cache_write_5m_tokens") + sum("cache_write_1h_tokens"),
    reasoning_tokens: 0,
  });
  assert.ok(Math.abs(json.cost.usd - sum("cost_usd")) < 1e-6);
  assert.equal(json.cost.exact, true);
  assert.equal(json.cost.unpriced_turns, 0);

  const session = query<{ status: string; end_reason: string; title: string; turns: number }>(
    p.home,
    "SELECT status, end_reason, title, turns FROM sessions WHERE id = ?",
    json.session_id,
  )[0]!;
  assert.deepEqual(session, {
    status: "completed",
    end_reason: "completed",
    title: "create hello.txt and fix it",
    turns: 4,
  });
  const perms = query<{ text: string }>(
    p.home,
    "SELECT text FROM messages WHERE kind = 'permission' ORDER BY seq",
  );
  assert.equal(perms.length, 3);
  assert.match(perms[0]!.text, /allowed by --allow write/);
  const context = query<{ role: string }>(
    p.home,
    "SELECT role FROM context_items WHERE session_id = ? ORDER BY seq",
    json.session_id,
  );
  assert.deepEqual(context.map((c) => c.role), [
    "user",
    "assistant",
    "user",
    "assistant",
    "user",
    "assistant",
    "user",
    "assistant",
  ]);
  const reads = query<{ n: number }>(
    p.home,
    "SELECT count(*) AS n FROM changed_files WHERE session_id = ?",
    json.session_id,
  );
  assert.equal(reads[0]!.n, 1);
  // The second request carried the first tool's result back.
  const second = server.requests[1]!.body as {
    messages: { role: string; content: { type: string; tool_use_id?: string }[] }[];
  };
  assert.equal(second.messages[2]!.content[0]!.tool_use_id, "toolu_w");
});

Deno.test("headless run without --allow denies write and exec, and says why", async () => {
  const p = await project();
  await using _ = p.dir;
  await using server = await LoopbackServer.start();
  server.openai(
    {
      events: openai.reply({
        calls: [{ id: "c1", name: "exec", json: '{"command":"touch pwned"}' }],
      }),
    },
    { events: openai.reply({ text: "I could not run it." }) },
  );
  const env = baseEnv(p.home, { OPENAI_BASE_URL: server.openaiUrl, BONSAI_MODEL: "gpt-4o" });
  const out = await runBonsai(["-p", "run something"], { cwd: p.work, env });
  assert.equal(out.code, 0, out.stderr);
  assert.equal(out.stdout, "I could not run it.\n");
  await assert.rejects(() => Deno.stat(join(p.work, "pwned")));
  const call = query<{ status: string; result: string }>(
    p.home,
    "SELECT status, result FROM tool_calls",
  )[0]!;
  assert.equal(call.status, "denied");
  assert.match(call.result, /--allow exec/);
  const toolMsg = (server.requests[1]!.body as { messages: { role: string; content: string }[] })
    .messages.at(-1)!;
  assert.equal(toolMsg.role, "tool");
  assert.match(toolMsg.content, /Permission denied/);
});
