// scripts/check_deps.ts is what keeps front ends away from the session lifecycle and storage:
// it must fail on each kind of violation, not only pass on today's tree.
import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "./support/temp.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const TREE = ["main.ts", "deno.json", "deno.lock", "core", "commands", "tui", "web", "migrations"];

async function copyTree(to: string): Promise<void> {
  const out = await new Deno.Command("cp", {
    args: ["-r", ...TREE.map((p) => join(ROOT, p)), to],
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  await Deno.mkdir(join(to, "scripts"));
  await Deno.copyFile(join(ROOT, "scripts/check_deps.ts"), join(to, "scripts/check_deps.ts"));
}

async function checkDeps(root: string): Promise<{ ok: boolean; output: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", join(root, "scripts/check_deps.ts")],
    cwd: root,
  }).output();
  const text = new TextDecoder();
  return { ok: out.success, output: text.decode(out.stdout) + text.decode(out.stderr) };
}

async function prepend(path: string, text: string): Promise<void> {
  await Deno.writeTextFile(path, text + await Deno.readTextFile(path));
}

Deno.test("check_deps fails when a front end loads storage or the lifecycle, runs a timer, or an import points up", async () => {
  await using dir = await tempDir();
  await copyTree(dir.path);
  const clean = await checkDeps(dir.path);
  assert.ok(clean.ok, clean.output);
  assert.match(clean.output, /front ends go through the host/);

  await prepend(
    join(dir.path, "tui/repl/repl.ts"),
    'import { SessionStore } from "../../core/storage/sessions.ts";\nexport const _s = SessionStore;\n',
  );
  await prepend(
    join(dir.path, "commands/run.ts"),
    'import { startSession } from "../core/session/lifecycle.ts";\n' +
      'import type { Session } from "../core/storage/sessions.ts";\n' +
      "export const _l = startSession;\nexport type _S = Session;\n",
  );
  await Deno.writeTextFile(
    join(dir.path, "commands/repl.ts"),
    "\nexport const _t = setInterval(() => {}, 500);\n",
    { append: true },
  );
  await prepend(
    join(dir.path, "core/session/liveness.ts"),
    'import type { World } from "../../commands/world.ts";\nexport type _W = World;\n',
  );
  const broken = await checkDeps(dir.path);
  assert.equal(broken.ok, false);
  for (
    const expected of [
      /front end calls the session lifecycle or storage: tui\/repl\/repl\.ts -> core\/storage\/sessions\.ts/,
      /front end calls the session lifecycle or storage: commands\/run\.ts -> core\/session\/lifecycle\.ts/,
      /front end runs a timer: commands\/repl\.ts:\d+/,
      /upward import: core\/session\/liveness\.ts -> commands\/world\.ts/,
    ]
  ) assert.match(broken.output, expected);
  // Naming a storage type is not calling storage.
  assert.doesNotMatch(broken.output, /commands\/run\.ts -> core\/storage/);
});
