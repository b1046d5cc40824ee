import assert from "node:assert/strict";
import { join } from "node:path";
import { LoopbackServer } from "../support/loopback_server.ts";
import { anthropic } from "../support/sse_scripts.ts";
import { baseEnv, runBonsai } from "../support/bonsai_process.ts";
import { queryHome } from "../support/db.ts";
import { tempDir } from "../support/temp.ts";

const call = (id: string, name: string, args: Record<string, unknown>) => ({
  events: anthropic.reply({ calls: [{ id, name, json: JSON.stringify(args) }] }),
});

Deno.test("headless run honours saved rules; --allow adds to them; deny rules win over --allow", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  await Deno.mkdir(join(dir.path, "work"));
  const work = await Deno.realPath(join(dir.path, "work"));
  await using server = await LoopbackServer.start();
  const env = baseEnv(home, {
    ANTHROPIC_API_KEY: "sk-ant-test-0000000000000000000000",
    ANTHROPIC_BASE_URL: server.url,
  });
  const bonsai = (...args: string[]) => runBonsai(args, { cwd: work, env });

  const allow = await bonsai(
    "permissions",
    "add",
    "allow",
    "exec",
    "echo *",
    "--project",
    "--json",
  );
  assert.equal(allow.code, 0, allow.stderr);
  const allowRule = JSON.parse(allow.stdout);
  assert.equal(allowRule.project, work);
  const deny = await bonsai("permissions", "add", "deny", "write", "secret*", "--json");
  assert.equal(deny.code, 0, deny.stderr);
  const denyRule = JSON.parse(deny.stdout);
  assert.equal(denyRule.scope, "global");
  const bad = await bonsai("permissions", "add", "allow", "exec", "echo ok; rm -rf /", "--json");
  assert.equal(bad.code, 2);
  assert.equal(JSON.parse(bad.stderr).error.code, "USAGE");

  server.anthropic(
    call("x1", "exec", { command: "echo ruled && echo twice" }),
    call("x2", "exec", { command: "echo ok; touch smuggled" }),
    call("w1", "write", { path: "secret.txt", content: "s" }),
    call("w2", "write", { path: "notes.txt", content: "n" }),
    { events: anthropic.reply({ text: "done" }) },
  );
  const out = await bonsai("-p", "go", "--json", "--allow", "write");
  assert.equal(out.code, 0, out.stderr);
  const json = JSON.parse(out.stdout);
  await assert.rejects(() => Deno.stat(join(work, "smuggled")));
  await assert.rejects(() => Deno.stat(join(work, "secret.txt")));
  assert.equal(await Deno.readTextFile(join(work, "notes.txt")), "n");

  const calls = queryHome<{ tool_name: string; status: string }>(
    home,
    "SELECT tool_name, status FROM tool_calls WHERE session_id = ? ORDER BY id",
    json.session_id,
  );
  assert.deepEqual(calls.map((c) => c.status), ["ok", "denied", "denied", "ok"]);
  const perms = queryHome<{ text: string }>(
    home,
    "SELECT text FROM messages WHERE session_id = ? AND kind = 'permission' ORDER BY seq",
    json.session_id,
  ).map((m) => m.text);
  assert.deepEqual(perms, [
    `Permission to run (exec): echo ruled && echo twice — allowed by saved rule ${allowRule.id} (allow exec 'echo *', this project)`,
    "Permission to run (exec): echo ok; touch smuggled — denied: no one to ask in headless mode (pass --allow exec or --allow-all, or save an allow rule with bonsai permissions add)",
    `Permission to write (write): secret.txt (1 lines) — denied by saved rule ${denyRule.id} (deny write 'secret*', every project)`,
    "Permission to write (write): notes.txt (1 lines) — allowed by --allow write",
  ]);

  // Another project: the project rule does not apply there.
  await Deno.mkdir(join(dir.path, "elsewhere"));
  server.anthropic(
    call("x3", "exec", { command: "echo hi" }),
    { events: anthropic.reply({ text: "done" }) },
  );
  const elsewhere = await runBonsai(["-p", "go", "--json"], {
    cwd: join(dir.path, "elsewhere"),
    env,
  });
  assert.equal(elsewhere.code, 0, elsewhere.stderr);
  const status = queryHome<{ status: string }>(
    home,
    "SELECT status FROM tool_calls WHERE session_id = ?",
    JSON.parse(elsewhere.stdout).session_id,
  );
  assert.deepEqual(status, [{ status: "denied" }]);
});
