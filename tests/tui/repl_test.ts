import assert from "node:assert/strict";
import { join } from "node:path";
import { MessageStore } from "../../core/storage/messages.ts";
import { SessionStore } from "../../core/storage/sessions.ts";
import { cli, testWorld } from "../support/world.ts";
import { anthropic } from "../support/sse_scripts.ts";
import { replHarness } from "../support/repl_harness.ts";
import { seedUsage } from "../support/usage_ledger.ts";

Deno.test("Repl: a prompt with a tool call asks permission; 'always' holds for the session; every answer is recorded", async () => {
  await using h = await replHarness({ answers: ["a"] });
  const exec = (id: string, cmd: string) => ({
    events: anthropic.reply({
      calls: [{ id, name: "exec", json: JSON.stringify({ command: cmd }) }],
    }),
  });
  h.server.anthropic(
    exec("x1", "echo one"),
    { events: anthropic.reply({ text: "ran one" }) },
    exec("x2", "echo two"),
    {
      events: anthropic.reply({ text: "ran two" }),
    },
  );
  await h.repl.handle("run one");
  await h.repl.handle("run two");
  assert.equal(h.io.questions.length, 1, "asked once, then 'always' applied");
  const out = h.io.take();
  assert.match(out, /● exec echo one/);
  assert.match(out, /⎿ exit 0/);
  assert.match(out, /ran two/);
  const perms = h.rows<{ text: string }>(
    "SELECT text FROM messages WHERE kind = 'permission' ORDER BY seq",
  );
  assert.match(perms[0]!.text, /allowed always for this session/);
  assert.match(perms[1]!.text, /allowed \(always for this session\)/);
  const title = h.rows<{ title: string; title_source: string }>(
    "SELECT title, title_source FROM sessions",
  )[0]!;
  assert.deepEqual(title, { title: "run one", title_source: "derived" });
});

Deno.test("Repl: denying a permission keeps the file system untouched and tells the model", async () => {
  await using h = await replHarness({ answers: ["n"] });
  h.server.anthropic(
    {
      events: anthropic.reply({
        calls: [{ id: "w1", name: "write", json: '{"path":"x.txt","content":"x"}' }],
      }),
    },
    { events: anthropic.reply({ text: "ok, not writing" }) },
  );
  await h.repl.handle("write x");
  await assert.rejects(() => Deno.stat(`${h.root}/x.txt`));
  const perm = h.rows<{ text: string }>("SELECT text FROM messages WHERE kind = 'permission'")[0]!;
  assert.match(perm.text, /denied by the user/);
});

Deno.test("Repl: /title, /pin, /unpin, /sessions, /search and unknown commands", async () => {
  await using h = await replHarness();
  h.server.anthropic({ events: anthropic.reply({ text: "the zebra answer" }) });
  await h.repl.handle("tell me about zebras");
  await h.repl.handle("/title  Zebra   facts ");
  await h.repl.handle("/pin");
  let row = h.rows<{ title: string; title_source: string; pinned: number }>(
    "SELECT title, title_source, pinned FROM sessions",
  )[0]!;
  assert.deepEqual(row, { title: "Zebra facts", title_source: "user", pinned: 1 });
  await h.repl.handle("/unpin");
  row = h.rows<{ title: string; title_source: string; pinned: number }>(
    "SELECT title, title_source, pinned FROM sessions",
  )[0]!;
  assert.equal(row.pinned, 0);
  h.io.take();
  await h.repl.handle("/sessions");
  assert.match(h.io.take(), /Zebra facts/);
  await h.repl.handle("/search zebra");
  assert.match(h.io.take(), /the zebra answer/);
  await h.repl.handle("/sesions");
  assert.match(h.io.take(), /Unknown command \/sesions\. Did you mean \/sessions\?/);
  await h.repl.handle("/title");
  assert.match(h.io.take(), /Usage: \/title <text>/);
  assert.equal(await h.repl.handle("/exit"), "quit");
});

Deno.test("Repl: /new completes the session and starts a fresh row with a new cache key", async () => {
  await using h = await replHarness();
  h.server.anthropic({ events: anthropic.reply({ text: "first" }) });
  await h.repl.handle("first prompt");
  const first = h.host.session;
  await h.repl.handle("/new");
  const second = h.host.session;
  assert.notEqual(second.id, first.id);
  assert.notEqual(second.cacheKey, first.cacheKey);
  assert.equal(second.parentId, first.id);
  const old = h.rows<{ status: string; end_reason: string }>(
    "SELECT status, end_reason FROM sessions WHERE id = ?",
    first.id,
  )[0]!;
  assert.deepEqual(old, { status: "completed", end_reason: "new" });
  assert.equal(h.rows("SELECT * FROM episodes WHERE session_id = ?", second.id).length, 0);
  assert.equal(h.host.plan.todos.length, 0);
  // An empty session is not kept when it ends.
  await h.repl.handle("/clear");
  assert.equal(h.rows("SELECT * FROM sessions WHERE id = ?", second.id).length, 0);
});

Deno.test("Repl: /resume switches sessions; other projects' and live sessions are refused without changes", async () => {
  await using h = await replHarness({ answers: [] });
  h.server.anthropic({ events: anthropic.reply({ text: "in the first" }) });
  await h.repl.handle("first");
  const first = h.host.session;
  await h.repl.handle("/new");
  h.server.anthropic({ events: anthropic.reply({ text: "in the second" }) });
  await h.repl.handle("second");
  const second = h.host.session;
  await h.repl.handle(`/resume ${first.id}`);
  assert.equal(h.host.session.id, first.id);
  assert.equal(h.host.session.cacheKey, first.cacheKey);
  assert.equal(h.host.session.status, "active");
  assert.deepEqual(
    h.rows<{ status: string; end_reason: string }>(
      "SELECT status, end_reason FROM sessions WHERE id = ?",
      second.id,
    )[0],
    { status: "completed", end_reason: "switched" },
  );
  // Another project's session.
  const other = h.db.connection;
  other.prepare("INSERT INTO projects (root_path, created_at) VALUES ('/elsewhere', 0)").run();
  other.prepare(
    `INSERT INTO sessions (id, project_id, cache_key, created_at, content_updated_at, status)
     VALUES ('zzzzzzzzzz0000000000000000', (SELECT id FROM projects WHERE root_path = '/elsewhere'), 'k', 0, 0, 'completed')`,
  ).run();
  const before = JSON.stringify(h.rows("SELECT * FROM sessions ORDER BY id"));
  h.io.take();
  await h.repl.handle("/resume zzzzzzzzzz");
  assert.match(h.io.take(), /belongs to project '\/elsewhere'/);
  // A live one: another process heartbeating it now.
  other.prepare(
    "UPDATE sessions SET status = 'active', owner_pid = 999, heartbeat_at = ? WHERE id = ?",
  ).run(h.clock.now(), second.id);
  const live = JSON.stringify(h.rows("SELECT * FROM sessions ORDER BY id"));
  await h.repl.handle(`/resume ${second.id}`);
  assert.match(h.io.take(), /is live in process 999/);
  assert.equal(
    JSON.stringify(h.rows("SELECT * FROM sessions ORDER BY id")),
    live,
    "a refused resume changes nothing",
  );
  assert.notEqual(before, live);
  assert.equal(h.host.session.id, first.id);
});

Deno.test("Repl: /resume without an id offers a picker; /forget asks first", async () => {
  await using h = await replHarness({ answers: [] });
  h.server.anthropic({ events: anthropic.reply({ text: "a" }) }, {
    events: anthropic.reply({ text: "b" }),
  });
  await h.repl.handle("alpha");
  const alpha = h.host.session.id;
  await h.repl.handle("/new");
  await h.repl.handle("beta");
  const beta = h.host.session.id;
  (h.io as unknown as { answers: string[] }).answers.push(alpha.slice(0, 8), "n", "y");
  await h.repl.handle("/resume");
  assert.equal(h.host.session.id, alpha);
  await h.repl.handle(`/forget ${beta}`);
  assert.equal(h.rows("SELECT * FROM sessions WHERE id = ?", beta).length, 1, "declined: kept");
  await h.repl.handle(`/forget ${beta}`);
  assert.equal(h.rows("SELECT * FROM sessions WHERE id = ?", beta).length, 0);
  assert.equal(h.rows("SELECT * FROM messages WHERE session_id = ?", beta).length, 0);
});

Deno.test("Repl: /settings changes budgets from the next prompt; /perf and /ctx report", async () => {
  await using h = await replHarness();
  await h.repl.handle("/settings budget.max_turns 1");
  assert.match(h.io.take(), /Saved budget.max_turns = 1/);
  h.server.anthropic({
    events: anthropic.reply({
      calls: [{ id: "g", name: "glob", json: '{"pattern":"*"}' }],
      usage: { input_tokens: 100, output_tokens: 10 },
    }),
  });
  await h.repl.handle("look around");
  assert.match(h.io.take(), /Budget exhausted: max_turns \(used 1 of 1\)/);
  await h.repl.handle("/settings budget.max_turns off");
  await h.repl.handle("/settings budget.max_turns nope");
  assert.match(h.io.take(), /expected a whole number/);
  await h.repl.handle("/perf");
  const perf = h.io.take();
  assert.match(perf, /turns\s+1 completed/);
  assert.match(perf, /parent\s+claude-sonnet-4-5-20250929\s+1\s+100\s+10/);
  await h.repl.handle("/cost");
  assert.match(h.io.take(), /cache\s+hit rate/);
  await h.repl.handle("/ctx");
  const ctx = h.io.take();
  assert.match(ctx, /Context [\d.k]+ of 200k tokens/);
  assert.match(ctx, /tool schemas/);
});

Deno.test("Repl: /usage shows the dashboard across all projects, by tab and start", async () => {
  await using h = await replHarness();
  seedUsage(h.db, h.ids, h.dir); // two other projects, 2026-11-28 and 29
  h.server.anthropic({
    events: anthropic.reply({ text: "hi", usage: { input_tokens: 100, output_tokens: 10 } }),
  });
  await h.repl.handle("hello");
  h.io.take();
  await h.repl.handle("/usage models");
  const models = h.io.take();
  for (const m of ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5", "gpt-5", "local-llama"]) {
    assert.match(models, new RegExp(`\\s${m.replaceAll(".", "\\.")}\\s`), m);
  }
  assert.match(models, /≥ \$0\.00 \(1 unpriced\)/);
  await h.repl.handle("/usage cost 2026-11-30");
  const cost = h.io.take();
  assert.match(cost, /2026-11-30/);
  assert.doesNotMatch(cost, /2026-11-29/, "the start excludes older days");
  await h.repl.handle("/usage");
  assert.match(h.io.take(), /Activity by day \(UTC\)[\s\S]*When you work[\s\S]*Last year/);
  await h.repl.handle("/usage weather");
  assert.match(h.io.take(), /Unknown tab 'weather': use activity, models/);
  assert.deepEqual(h.repl.complete("/usage mo")[0], ["/usage models"]);
  await h.repl.handle("/help");
  assert.match(h.io.take(), /\/usage \[tab\] \[since\]/);
});

Deno.test("Repl: Tab completes commands, session ids and setting keys", async () => {
  await using h = await replHarness();
  assert.deepEqual(h.repl.complete("/re")[0], ["/resume", "/rewind"]);
  assert.deepEqual(h.repl.complete("/res")[0], ["/resume"]);
  assert.deepEqual(h.repl.complete("/se")[0].sort(), ["/search", "/sessions", "/settings"]);
  assert.deepEqual(h.repl.complete("/settings budget.max_t")[0], ["/settings budget.max_turns"]);
  assert.deepEqual(h.repl.complete("/settings pri")[0], ["/settings price."]);
  await h.repl.handle("/settings price.llama3.2");
  assert.match(h.io.take(), /price\.llama3\.2 = \(not set\)/);
  await h.repl.handle("/settings price.llama3.2 free");
  assert.match(h.io.take(), /Saved price\.llama3\.2/);
  assert.deepEqual(h.repl.complete("/settings price.l")[0], ["/settings price.llama3.2"]);
  h.server.anthropic({ events: anthropic.reply({ text: "x" }) });
  await h.repl.handle("hello");
  const id = h.host.session.id;
  assert.deepEqual(h.repl.complete(`/resume ${id.slice(0, 4)}`)[0], [`/resume ${id.slice(0, 10)}`]);
});

Deno.test("Repl: Ctrl-C cancels the reply in progress; the partial is kept, marked cancelled", async () => {
  await using h = await replHarness();
  h.server.anthropic({
    events: anthropic.reply({ text: "a reply that will be cut off" }),
    hangAfter: 5,
  });
  const running = h.repl.handle("talk");
  while (!h.io.output.includes("a reply")) await new Promise((r) => setTimeout(r, 5));
  assert.equal(h.repl.cancel(), true);
  await running;
  assert.equal(h.repl.cancel(), false, "nothing left to cancel");
  assert.match(h.io.take(), /cancelled; what was written so far is kept/);
  const reply = h.rows<{ status: string; text: string }>(
    "SELECT status, text FROM messages WHERE role = 'assistant'",
  )[0]!;
  assert.equal(reply.status, "cancelled");
  assert.ok(reply.text.startsWith("a reply"));
});

Deno.test("Repl: every tick saves only what changed; close() records the terminal reason", async () => {
  await using h = await replHarness();
  h.server.anthropic(
    { events: anthropic.reply({ text: "hello" }) },
    {
      events: anthropic.reply({
        calls: [{ id: "t1", name: "todo_write", json: '{"plan":"p","todos":[]}' }],
      }),
    },
    { events: anthropic.reply({ text: "planned" }) },
  );
  await h.repl.handle("hi");
  const changes = () =>
    Number((h.db.connection.prepare("SELECT total_changes() AS n").get() as { n: number }).n);
  const before = changes();
  h.timers.fire(); // persister tick + heartbeat
  const afterTick = changes();
  assert.equal(afterTick - before, 1, "an idle tick writes nothing but the heartbeat");
  await h.repl.handle("make a plan");
  assert.equal(h.rows("SELECT * FROM snapshot_groups WHERE grp = 'plan'").length, 1);
  await h.repl.close("sigterm");
  const row = h.rows<{ status: string; end_reason: string }>(
    "SELECT status, end_reason FROM sessions",
  )[0]!;
  assert.deepEqual(row, { status: "interrupted", end_reason: "sigterm" });
});

Deno.test("Repl: --verify, then the saved verify.command and review.self, run after a turn that changed files", async () => {
  await using h = await replHarness({ host: { verify: "echo checked", allow: ["write"] } });
  const write = (id: string, path: string) => ({
    events: anthropic.reply({
      calls: [{ id, name: "write", json: JSON.stringify({ path, content: "x\n" }) }],
    }),
  });
  h.server.anthropic(write("w1", "a.txt"), { events: anthropic.reply({ text: "wrote a" }) });
  await h.repl.handle("write a");
  assert.match(h.io.take(), /Verification `echo checked` passed\./);
  let runs = h.rows<{ kind: string; command: string; exit_code: number }>(
    "SELECT kind, command, exit_code FROM verification_runs ORDER BY id",
  );
  assert.deepEqual(runs, [{ kind: "verify", command: "echo checked", exit_code: 0 }]);

  // Without the flag, the saved settings decide.
  await using saved = await replHarness({ host: { allow: ["write"] }, server: h.server });
  await saved.repl.handle("/settings verify.command exit 3");
  await saved.repl.handle("/settings review.self true");
  h.server.anthropic(
    write("w2", "b.txt"),
    { events: anthropic.reply({ text: "wrote b" }) },
    {
      events: anthropic.reply({ text: '[{"severity":"low","path":"b.txt","message":"no test"}]' }),
    },
  );
  await saved.repl.handle("write b");
  const out = saved.io.take();
  assert.match(out, /verifying with `exit 3`, then reviewing the session's diff…/);
  assert.match(out, /Verification `exit 3` failed \(exit 3\)\./);
  assert.match(out, /review \[low\] b\.txt: no test/);
  runs = saved.rows("SELECT kind, command, exit_code FROM verification_runs ORDER BY id");
  assert.deepEqual(runs, [
    { kind: "verify", command: "exit 3", exit_code: 3 },
    { kind: "self-review", command: null, exit_code: null },
  ]);
  assert.equal(saved.rows("SELECT * FROM ledger WHERE lane = 'self-review'").length, 1);

  // A turn that changed nothing is not verified.
  h.server.anthropic({ events: anthropic.reply({ text: "just talking" }) });
  await saved.repl.handle("say hi");
  assert.equal(saved.rows("SELECT * FROM verification_runs").length, 2);
});

Deno.test("Repl: a bad saved setting is one clear line naming the key; fixing it with /settings lets prompts run", async () => {
  await using h = await replHarness();
  h.db.connection.prepare(
    "INSERT INTO settings (scope, key, value, updated_at) VALUES ('global', 'budget.max_turns', '\"lots\"', 0)",
  ).run();
  await h.repl.handle("hello");
  const out = h.io.take();
  assert.match(
    out,
    /Saved setting 'budget\.max_turns' has an unusable value "lots" \(expected a number\); remove it with 'bonsai settings unset budget\.max_turns' or set it again\n/,
  );
  assert.equal(h.server.requests.length, 0, "nothing was sent");
  await h.repl.handle("/settings");
  assert.match(h.io.take(), /budget\.max_turns\s+"lots" \(unusable: expected a number\)/);
  await h.repl.handle("/settings budget.max_turns off");
  h.server.anthropic({ events: anthropic.reply({ text: "hi there" }) });
  await h.repl.handle("hello again");
  assert.match(h.io.take(), /hi there/);
});

Deno.test("/forget and `sessions forget` apply one liveness rule: crashed sessions go, live ones stay", async () => {
  // Process 999 was killed a moment ago (fresh heartbeat, no process); 998 stopped beating a
  // minute ago; 997 is beating now and may be running.
  const probe = (pid: number) => (pid === 999 ? false : null);
  await using h = await replHarness({ probe, answers: ["y", "y"] });
  const store = new SessionStore(h.db, h.ids);
  const make = (pid: number, beatAgo: number) => {
    const s = store.create({
      projectPath: h.root,
      title: `owned by ${pid}`,
      ownerPid: pid,
      ownerHost: "test-host",
    });
    h.db.connection.prepare("UPDATE sessions SET heartbeat_at = ? WHERE id = ?").run(
      h.clock.now() - beatAgo,
      s.id,
    );
    new MessageStore(h.db).append(s.id, [{ role: "user", text: "hello" }]);
    return s.id;
  };
  const [killedA, killedB] = [make(999, 0), make(999, 0)];
  const [staleA, staleB] = [make(998, 60_000), make(998, 60_000)];
  const live = make(997, 0);
  const exists = (id: string) => h.rows("SELECT id FROM sessions WHERE id = ?", id).length === 1;

  await h.repl.handle(`/forget ${killedA}`);
  await h.repl.handle(`/forget ${staleA}`);
  await h.repl.handle(`/forget ${live}`);
  assert.match(h.io.take(), /Cannot forget session '.*': it is live in process 997 on test-host/);
  const elsewhere = store.create({ projectPath: "/elsewhere", title: "another project's" });
  await h.repl.handle(`/forget ${elsewhere.id}`);
  assert.match(h.io.take(), /it belongs to project '\/elsewhere'/, "the REPL works in one project");
  assert.deepEqual([exists(killedA), exists(staleA), exists(live)], [false, false, true]);

  const { world, stderr } = testWorld({ home: join(h.dir, "home"), cwd: h.root, clock: h.clock });
  const cliWorld = { ...world, probe };
  assert.equal(await cli(cliWorld, "sessions", "forget", killedB, "--yes"), 0);
  assert.equal(await cli(cliWorld, "sessions", "forget", staleB, "--yes"), 0);
  assert.equal(await cli(cliWorld, "sessions", "forget", live, "--yes"), 5);
  assert.match(stderr.text, /Cannot forget session '.*': it is live in process 997 on test-host/);
  assert.deepEqual([exists(killedB), exists(staleB), exists(live)], [false, false, true]);
});

Deno.test("Repl: a task call's subagent shows in /perf: its lane and model, and its session under the parent", async () => {
  await using h = await replHarness();
  h.server.route((_route, body) => {
    const system = JSON.stringify((body as { system?: unknown }).system ?? "");
    if (system.includes("You are a bonsai subagent")) {
      return {
        events: anthropic.reply({
          text: "Found it in lexer.ts.",
          model: "claude-haiku-4-5-20251001",
          usage: { input_tokens: 40, output_tokens: 6 },
        }),
      };
    }
    return null;
  });
  h.server.anthropic(
    {
      events: anthropic.reply({
        calls: [{
          id: "t1",
          name: "task",
          json: JSON.stringify({
            description: "find the lexer",
            prompt: "Where is the lexer?",
            model: "claude-haiku-4-5-20251001",
          }),
        }],
        usage: { input_tokens: 100, output_tokens: 10 },
      }),
    },
    {
      events: anthropic.reply({
        text: "It is in lexer.ts.",
        usage: { input_tokens: 120, output_tokens: 8 },
      }),
    },
  );
  await h.repl.handle("where is the lexer?");
  assert.match(h.io.take(), /It is in lexer\.ts\./);
  await h.repl.handle("/perf");
  const perf = h.io.take();
  assert.match(perf, /turns\s+3 completed/);
  assert.match(perf, /subagent\s+claude-haiku-4-5-20251001\s+1\s+40\s+6/);
  assert.match(perf, /subagents.*\n.*Subagent: find the lexer .*completed/);
});
