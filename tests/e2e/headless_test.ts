import assert from "node:assert/strict";
import { join } from "node:path";
import { priceTokens } from "../../core/usage/pricing.ts";
import { LoopbackServer } from "../support/loopback_server.ts";
import { anthropic, openai } from "../support/sse_scripts.ts";
import { baseEnv, runBonsai, spawnBonsai } from "../support/bonsai_process.ts";
import { queryHome } from "../support/db.ts";
import { tempDir } from "../support/temp.ts";

async function project() {
  const dir = await tempDir();
  const home = join(dir.path, "home");
  const work = join(dir.path, "work");
  await Deno.mkdir(work);
  return { dir, home, work: await Deno.realPath(work) };
}

const query = queryHome;

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
  assert.equal(json.cost.unpriced_attempts, 0);

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

Deno.test("headless --max-turns: budget_exhausted JSON, exit code 6, typed reason on the row, resumable", async () => {
  const p = await project();
  await using _ = p.dir;
  await using server = await LoopbackServer.start();
  const call = (id: string) => ({
    events: anthropic.reply({ calls: [{ id, name: "glob", json: '{"pattern":"*"}' }] }),
  });
  server.anthropic(call("t1"), call("t2"));
  const env = baseEnv(p.home, {
    ANTHROPIC_API_KEY: "sk-ant-test-0000000000000000000000",
    ANTHROPIC_BASE_URL: server.url,
  });
  const out = await runBonsai(["-p", "keep going", "--json", "--max-turns", "2"], {
    cwd: p.work,
    env,
  });
  assert.equal(out.code, 6, out.stderr);
  const json = JSON.parse(out.stdout);
  assert.equal(json.status, "budget_exhausted");
  assert.deepEqual(json.budget_exhaustion, { reason: "max_turns", limit: 2, used: 2 });
  assert.equal(json.turns, 2);
  assert.equal(server.requests.length, 2);
  const row = query<{ status: string; end_reason: string; end_detail: string }>(
    p.home,
    "SELECT status, end_reason, end_detail FROM sessions WHERE id = ?",
    json.session_id,
  )[0]!;
  assert.equal(row.status, "budget_exhausted");
  assert.equal(row.end_reason, "max_turns");
  assert.deepEqual(JSON.parse(row.end_detail), { limit: 2, used: 2 });
  server.anthropic({ events: anthropic.reply({ text: "resumed and finished" }) });
  const again = await runBonsai(["-c", json.session_id.slice(0, 12), "-p", "finish up", "--json"], {
    cwd: p.work,
    env,
  });
  assert.equal(again.code, 0, again.stderr);
  const resumed = JSON.parse(again.stdout);
  assert.equal(resumed.session_id, json.session_id);
  assert.equal(resumed.status, "completed");
  const lastRequest = server.requests.at(-1)!.body as { messages: unknown[] };
  assert.equal(lastRequest.messages.length, 6, "the resumed request carries the stored context");
});

Deno.test("SIGTERM during a headless run: terminal reason recorded, everything streamed before it persisted", async () => {
  const p = await project();
  await using _ = p.dir;
  await using server = await LoopbackServer.start();
  const words = Array.from({ length: 30 }, (_, i) => `word${i} `).join("");
  const frames = anthropic.reply({ text: words, split: 6 });
  // message_start, ping, block start, then 12 text deltas; then the stream stalls.
  const streamed = 3 + 12;
  server.anthropic({ events: frames, hangAfter: streamed });
  const env = baseEnv(p.home, {
    ANTHROPIC_API_KEY: "sk-ant-test-0000000000000000000000",
    ANTHROPIC_BASE_URL: server.url,
  });
  const child = spawnBonsai(["-p", "write a lot", "--json"], { cwd: p.work, env });
  const deadline = Date.now() + 10_000;
  while (server.framesSent < streamed && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise((r) => setTimeout(r, 700)); // the client has read them; no flush tick needed
  child.kill("SIGTERM");
  const out = await child.output();
  assert.equal(out.code, 143, new TextDecoder().decode(out.stderr));
  const json = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.equal(json.status, "cancelled");
  const expected = words.slice(0, 12 * 6);
  const session = query<{ status: string; end_reason: string }>(
    p.home,
    "SELECT status, end_reason FROM sessions",
  )[0]!;
  assert.deepEqual(session, { status: "interrupted", end_reason: "sigterm" });
  const reply = query<{ text: string; status: string }>(
    p.home,
    "SELECT text, status FROM messages WHERE role = 'assistant'",
  )[0]!;
  assert.equal(reply.text, expected);
  assert.equal(reply.status, "cancelled");
  const ledger = query<{ output_chars: number; error: string }>(
    p.home,
    "SELECT output_chars, error FROM ledger",
  )[0]!;
  assert.equal(ledger.output_chars, expected.length);
});

Deno.test("a secret printed by exec never reaches the raw database bytes", async () => {
  const p = await project();
  await using _ = p.dir;
  await using server = await LoopbackServer.start();
  const secret = "sk-proj-Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8Nn7Mm6Ll5Kk4";
  const custom = "very-private-deploy-token-4711";
  server.anthropic(
    {
      events: anthropic.reply({
        calls: [{
          id: "t1",
          name: "exec",
          json: JSON.stringify({
            command: "echo $OPENAI_API_KEY; echo $DEPLOY_TOKEN; env | grep ANTHROPIC_API_KEY",
          }),
        }],
      }),
    },
    { events: anthropic.reply({ text: "printed them" }) },
  );
  const anthropicKey = "sk-ant-api03-QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ";
  const env = baseEnv(p.home, {
    ANTHROPIC_API_KEY: anthropicKey,
    ANTHROPIC_BASE_URL: server.url,
    OPENAI_API_KEY: secret,
    DEPLOY_TOKEN: custom,
  });
  const out = await runBonsai(["-p", "show me the keys", "--allow", "exec"], { cwd: p.work, env });
  assert.equal(out.code, 0, out.stderr);
  // The tool really printed them (the model received the output).
  const sent = JSON.stringify(server.requests[1]!.body);
  assert.ok(sent.includes(secret));
  let raw = "";
  for (const entry of Deno.readDirSync(p.home)) {
    if (entry.isFile) {
      raw += new TextDecoder("latin1").decode(await Deno.readFile(join(p.home, entry.name)));
    }
  }
  for (const s of [secret, custom, anthropicKey]) {
    assert.ok(!raw.includes(s), `'${s}' is in the database`);
    assert.ok(!raw.includes(s.slice(6, 26)), `part of '${s}' is in the database`);
  }
  const result = query<{ result: string }>(p.home, "SELECT result FROM tool_calls")[0]!.result;
  assert.match(result, /\[REDACTED:(openai-key|secret)\]/);
});
