import assert from "node:assert/strict";
import { anthropic } from "../support/sse_scripts.ts";
import { replHarness } from "../support/repl_harness.ts";

const execCall = (id: string, command: string) => ({
  events: anthropic.reply({ calls: [{ id, name: "exec", json: JSON.stringify({ command }) }] }),
});

Deno.test("Repl: 'always for this project' saves an allow rule that decides the next time, in any session", async () => {
  await using h = await replHarness({ answers: ["p"] });
  h.server.anthropic(
    execCall("x1", "echo one && echo two"),
    { events: anthropic.reply({ text: "ran" }) },
    execCall("x2", "echo one"),
    { events: anthropic.reply({ text: "ran again" }) },
  );
  await h.repl.handle("run it");
  assert.equal(h.io.questions.length, 1);
  assert.match(
    h.io.questions[0]!,
    /always for this project \(saves allow exec 'echo one', allow exec 'echo two'\)/,
  );
  const rules = h.rows<{ effect: string; kind: string; pattern: string; project_root: string }>(
    "SELECT effect, kind, pattern, project_root FROM permission_rules ORDER BY id",
  );
  assert.deepEqual(rules, [
    { effect: "allow", kind: "exec", pattern: "echo one", project_root: h.root },
    { effect: "allow", kind: "exec", pattern: "echo two", project_root: h.root },
  ]);
  // A new session of the same project: the saved rule answers, no one is asked.
  await h.repl.handle("/new");
  await h.repl.handle("again");
  assert.equal(h.io.questions.length, 1);
  const perms = h.rows<{ text: string }>(
    "SELECT text FROM messages WHERE kind = 'permission' ORDER BY session_id, seq",
  );
  assert.match(
    perms[0]!.text,
    /echo one && echo two — allowed always for this project \(saved rules [0-9a-z]{26} \(allow exec 'echo one', this project\) and/,
  );
  assert.match(
    perms[1]!.text,
    /echo one — allowed by saved rule [0-9a-z]{26} \(allow exec 'echo one', this project\)$/,
  );
});

Deno.test("Repl: 'always for this project' is not offered for a command line that cannot be saved", async () => {
  await using h = await replHarness({ answers: ["p", "y"] });
  h.server.anthropic(
    execCall("x1", "echo $(date)"),
    { events: anthropic.reply({ text: "done" }) },
  );
  await h.repl.handle("run it");
  assert.equal(h.io.questions.length, 2, "'p' is not an answer here, so it asks again");
  assert.doesNotMatch(h.io.questions[0]!, /this project/);
  assert.equal(h.rows("SELECT * FROM permission_rules").length, 0);
});

Deno.test("Repl: a deny rule refuses the call without asking and tells the model which rule", async () => {
  await using h = await replHarness({ host: { allow: ["exec"] } });
  await h.repl.handle("/permissions add deny exec rm *");
  h.server.anthropic(
    execCall("x1", "touch keep && rm keep"),
    { events: anthropic.reply({ text: "not allowed" }) },
  );
  await h.repl.handle("clean up");
  assert.equal(h.io.questions.length, 0);
  await assert.rejects(() => Deno.stat(`${h.root}/keep`));
  const perm = h.rows<{ text: string }>("SELECT text FROM messages WHERE kind = 'permission'")[0]!;
  assert.match(perm.text, /denied by saved rule [0-9a-z]{26} \(deny exec 'rm \*', every project\)/);
  const result = h.rows<{ text: string }>(
    "SELECT text FROM messages WHERE kind = 'tool_result'",
  )[0]!;
  assert.equal(result.text, "Permission denied by the user's saved rule: deny exec 'rm *'");
});

Deno.test("Repl: /permissions lists, adds and removes rules", async () => {
  await using h = await replHarness();
  await h.repl.handle("/permissions");
  assert.match(h.io.take(), /No permission rules here/);
  await h.repl.handle("/permissions add --project allow exec npm run *");
  assert.match(h.io.take(), /Saved rule [0-9a-z]{10,}: allow exec 'npm run \*' for this project/);
  await h.repl.handle("/permissions add deny write .env");
  await h.repl.handle("/permissions");
  const table = h.io.take();
  assert.match(table, /allow\s+exec\s+npm run \*\s+this project/);
  assert.match(table, /deny\s+write\s+\.env\s+every project/);
  await h.repl.handle("/permissions add allow exec npm test; rm -rf /");
  assert.match(
    h.io.take(),
    /Bad permission pattern 'npm test; rm -rf \/': it holds more than one command/,
  );
  await h.repl.handle("/permissions add allow");
  assert.match(h.io.take(), /Usage: \/permissions/);
  const id =
    h.rows<{ id: string }>("SELECT id FROM permission_rules WHERE pattern = '.env'")[0]!.id;
  const short = h.admin.permissions.shortIds().get(id)!;
  await h.repl.handle(`/permissions remove ${short}`);
  assert.match(h.io.take(), /Removed rule .*deny write '\.env'/);
  assert.deepEqual(h.rows<{ pattern: string }>("SELECT pattern FROM permission_rules"), [
    { pattern: "npm run *" },
  ]);
});
