// The session host's rules as a user meets them on the command line: R2 pinning on resume,
// and a bad saved setting.
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { LoopbackServer } from "../support/loopback_server.ts";
import { anthropic, openai } from "../support/sse_scripts.ts";
import { baseEnv, runBonsai } from "../support/bonsai_process.ts";
import { tempDir } from "../support/temp.ts";

function query<T>(home: string, sql: string): T[] {
  const db = new DatabaseSync(join(home, "bonsai.db"), { readOnly: true });
  try {
    return db.prepare(sql).all().map((r) => ({ ...r })) as T[];
  } finally {
    db.close();
  }
}

Deno.test("R2: -c keeps the session's provider and model over the environment; --model overrides one run only", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const work = join(dir.path, "work");
  await Deno.mkdir(work);
  await using server = await LoopbackServer.start();
  server.route((route) =>
    route === "anthropic"
      ? { events: anthropic.reply({ text: "from anthropic" }) }
      : { events: openai.reply({ text: "from openai" }) }
  );
  const env = baseEnv(home, {
    ANTHROPIC_API_KEY: "sk-ant-test-0000000000000000000000",
    ANTHROPIC_BASE_URL: server.url,
    OPENAI_API_KEY: "sk-test-000000000000000000000000",
  });
  const run = async (args: string[], extra: Record<string, string> = {}) => {
    const r = await runBonsai([...args, "--json"], { cwd: work, env: { ...env, ...extra } });
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as { provider: string; model: string; result: string };
  };
  const first = await run(["-p", "hello", "--model", "claude-sonnet-4-5"]);
  assert.deepEqual([first.provider, first.model], ["anthropic", "claude-sonnet-4-5"]);

  // The environment now prefers OpenAI: a resumed session stays with Anthropic.
  const openaiEnv = { BONSAI_PROVIDER: "openai", OPENAI_BASE_URL: `${server.url}/v1` };
  const second = await run(["-c", "-p", "again", "--model", "claude-opus-4-1"], openaiEnv);
  assert.deepEqual([second.provider, second.model, second.result], [
    "anthropic",
    "claude-opus-4-1",
    "from anthropic",
  ]);
  const third = await run(["-c", "-p", "and again"], openaiEnv);
  assert.deepEqual([third.provider, third.model], ["anthropic", "claude-sonnet-4-5"]);
  assert.deepEqual(
    server.requests.map((r) => [r.path, r.body.model]),
    [
      ["/v1/messages", "claude-sonnet-4-5"],
      ["/v1/messages", "claude-opus-4-1"],
      ["/v1/messages", "claude-sonnet-4-5"],
    ],
  );
  assert.deepEqual(query(home, "SELECT provider, model FROM sessions"), [
    { provider: "anthropic", model: "claude-sonnet-4-5" },
  ]);
  // A new session follows the environment.
  const fresh = await run(["-p", "new one"], openaiEnv);
  assert.equal(fresh.provider, "openai");
});

Deno.test("a bad saved setting stops a headless run with one line naming the key and the fix, exit 2, nothing written", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const work = join(dir.path, "work");
  await Deno.mkdir(work);
  await using server = await LoopbackServer.start();
  const env = baseEnv(home, {
    ANTHROPIC_API_KEY: "sk-ant-test-0000000000000000000000",
    ANTHROPIC_BASE_URL: server.url,
  });
  assert.equal(
    (await runBonsai(["settings", "set", "budget.max_run_time", "5m"], { cwd: work, env })).code,
    0,
  );
  const db = new DatabaseSync(join(home, "bonsai.db"));
  db.prepare("UPDATE settings SET value = '\"five minutes\"' WHERE key = 'budget.max_run_time'")
    .run();
  db.close();
  for (const json of [false, true]) {
    const r = await runBonsai(["-p", "hello", ...(json ? ["--json"] : [])], { cwd: work, env });
    assert.equal(r.code, 2, r.stderr);
    const message =
      `Saved setting 'budget.max_run_time' has an unusable value "five minutes" (expected a number); remove it with 'bonsai settings unset budget.max_run_time' or set it again`;
    if (json) assert.deepEqual(JSON.parse(r.stderr).error.message, message);
    else assert.equal(r.stderr, `bonsai: ${message}\n`);
  }
  assert.equal(server.requests.length, 0);
  assert.deepEqual(query(home, "SELECT id FROM sessions"), [], "no session was left behind");
  const listed = await runBonsai(["settings"], { cwd: work, env });
  assert.equal(listed.code, 0);
  assert.match(
    listed.stdout,
    /budget\.max_run_time\s+"five minutes" \(unusable: expected a number\)/,
  );
  assert.match(listed.stderr, /bonsai settings unset budget\.max_run_time/);
  assert.equal(
    (await runBonsai(["settings", "unset", "budget.max_run_time"], { cwd: work, env })).code,
    0,
  );
  server.anthropic({ events: anthropic.reply({ text: "works again" }) });
  const ok = await runBonsai(["-p", "hello"], { cwd: work, env });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout, "works again\n");
});

Deno.test("a local server's context window (llama.cpp /props) bounds what bonsai asks for: never more output than the window has room for", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const work = join(dir.path, "work");
  await Deno.mkdir(work);
  await using server = await LoopbackServer.start();
  server.props({ default_generation_settings: { n_ctx: 16384 } });
  server.route(() => ({ events: openai.reply({ text: "ok" }) }));
  const env = baseEnv(home, { OPENAI_BASE_URL: server.openaiUrl, BONSAI_MODEL: "qwen-local" });
  const small = await runBonsai(["-p", "hello"], { cwd: work, env });
  assert.equal(small.code, 0, small.stderr);
  // A quarter of the window is kept for the reply, not the 16,000 asked of unknown models.
  assert.equal(server.requests[0]!.body.max_tokens, 4096);
  // A prompt that fills most of the window leaves less room: the request asks for no more.
  const big = `please read this: ${"lorem ipsum dolor sit amet ".repeat(1700)}`;
  const full = await runBonsai(["-p", big], { cwd: work, env });
  assert.equal(full.code, 0, full.stderr);
  const maxTokens = Number(server.requests[1]!.body.max_tokens);
  assert.ok(maxTokens < 4096 && maxTokens >= 256, `max_tokens ${maxTokens}`);
  const promptChars = JSON.stringify(server.requests[1]!.body.messages).length +
    JSON.stringify(server.requests[1]!.body.tools).length;
  assert.ok(maxTokens + promptChars / 4 <= 16384, "prompt and reply fit the window");
  // --context-window is believed without asking the server.
  const asked = server.gets.filter((g) => g.startsWith("/props")).length;
  assert.equal(
    (await runBonsai(["-p", "hi", "--context-window", "8000"], { cwd: work, env })).code,
    0,
  );
  assert.equal(server.gets.filter((g) => g.startsWith("/props")).length, asked);
  assert.equal(server.requests[2]!.body.max_tokens, 2000);
});

Deno.test("piped REPL input that ends at a permission question is a no, and the REPL ends as at end of input", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const work = join(dir.path, "work");
  await Deno.mkdir(work);
  await using server = await LoopbackServer.start();
  server.anthropic(
    {
      events: anthropic.reply({
        calls: [{ id: "toolu_w", name: "write", json: '{"path":"a.txt","content":"a"}' }],
      }),
    },
    { events: anthropic.reply({ text: "fine, not writing" }) },
  );
  const env = baseEnv(home, {
    ANTHROPIC_API_KEY: "sk-ant-test-0000000000000000000000",
    ANTHROPIC_BASE_URL: server.url,
  });
  const r = await runBonsai([], { cwd: work, env, stdin: "write a file\n" });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /fine, not writing/);
  assert.equal(r.stderr, "");
  assert.deepEqual(query(home, "SELECT status FROM tool_calls"), [{ status: "denied" }]);
  assert.deepEqual(query(home, "SELECT status, end_reason FROM sessions"), [{
    status: "completed",
    end_reason: "eof",
  }]);
});
