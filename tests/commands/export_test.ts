import assert from "node:assert/strict";
import { join } from "node:path";
import { MessageStore } from "../../core/storage/messages.ts";
import { SessionStore } from "../../core/storage/sessions.ts";
import { baseEnv, runBonsai } from "../support/bonsai_process.ts";
import { openTestDb } from "../support/db.ts";
import { seedEverySession } from "../support/export_session.ts";
import { tempDir, treeHash } from "../support/temp.ts";
import { cli, testWorld } from "../support/world.ts";

const HOSTILE = `../../etc/passwd CON a:b*?"<>|\x01\x1f ${"x".repeat(300)}`;

/** A home with a native session (every kind of entry) and an imported one, in a real project. */
async function exportHome(dir: string) {
  const project = join(dir, "app");
  await Deno.mkdir(project);
  const home = join(dir, "home");
  const { db, ids, clock } = await openTestDb(home);
  const root = await Deno.realPath(project);
  const native = seedEverySession(db, ids, clock, { projectPath: root, title: "修复登录测试" });
  const sessions = new SessionStore(db, ids);
  const imported = sessions.create({
    projectPath: root,
    title: HOSTILE,
    titleSource: "import",
    source: "codex",
    externalId: "rollout-1",
    status: "completed",
  });
  new MessageStore(db).append(imported.id, [
    { role: "user", text: "imported prompt" },
    { role: "assistant", text: "imported answer" },
  ]);
  const gone = sessions.create({ projectPath: join(dir, "deleted-project"), title: "Gone" });
  new MessageStore(db).append(gone.id, [{ role: "user", text: "from a deleted project" }]);
  db.close();
  return { home, root, native, imported: imported.id, gone: gone.id, clock, dir };
}

/** Every file under `dir` (relative paths), or [] when it does not exist. */
async function files(dir: string): Promise<string[]> {
  try {
    return Object.keys(await treeHash(dir)).map((p) => p.slice(dir.length + 1)).sort();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
}

Deno.test("bonsai export: writes <project>/对话/<date>-<title>-<id8>.md; --stdout and --json agree with it", async () => {
  await using dir = await tempDir();
  const h = await exportHome(dir.path);
  const name = `2026-11-30-修复登录测试-${h.native.slice(0, 8)}.md`;
  const path = join(h.root, "对话", name);

  const t = testWorld({ home: h.home, cwd: h.root });
  assert.equal(await cli(t.world, "export", h.native.slice(0, 10)), 0, t.stderr.text);
  assert.equal(
    t.stdout.text,
    `Wrote ${path} (20 messages, ${(await Deno.stat(path)).size} bytes)\n`,
  );
  assert.deepEqual(await files(join(h.root, "对话")), [name]);
  const written = await Deno.readTextFile(path);
  assert.match(written, /^# 修复登录测试\n/);
  assert.match(written, /Read-only snapshot/);

  const out = testWorld({ home: h.home, cwd: h.root });
  assert.equal(await cli(out.world, "export", h.native, "--stdout"), 0);
  assert.equal(out.stdout.text, written, "--stdout prints exactly what the file holds");

  const json = testWorld({ home: h.home, cwd: h.root });
  assert.equal(await cli(json.world, "export", h.native, "--json"), 0);
  assert.deepEqual(JSON.parse(json.stdout.text), {
    path,
    messages: 20,
    bytes: new TextEncoder().encode(written).length,
  });

  const both = testWorld({ home: h.home, cwd: h.root });
  assert.equal(await cli(both.world, "export", h.native, "--stdout", "--json"), 0);
  assert.deepEqual(JSON.parse(both.stdout.text), {
    path: null,
    messages: 20,
    bytes: new TextEncoder().encode(written).length,
    markdown: written,
  });

  const full = testWorld({ home: h.home, cwd: h.root });
  assert.equal(await cli(full.world, "export", h.native, "--stdout", "--full"), 0);
  assert.match(full.stdout.text, /test 300 \.\.\. ok/);
  assert.doesNotMatch(written, /test 300 \.\.\. ok/);
});

Deno.test("bonsai export: re-exporting replaces the same file and leaves no temporary file", async () => {
  await using dir = await tempDir();
  const h = await exportHome(dir.path);
  const t = testWorld({ home: h.home, cwd: h.root });
  assert.equal(await cli(t.world, "export", h.native, "--json"), 0);
  const { path } = JSON.parse(t.stdout.text);
  const before = await Deno.readTextFile(path);
  // Someone edits the export by hand; then the session goes on.
  await Deno.writeTextFile(path, "edited by hand\n");
  {
    const { db } = await openTestDb(h.home);
    new MessageStore(db).append(h.native, [{ role: "user", text: "One more thing" }]);
    db.close();
  }
  const again = testWorld({ home: h.home, cwd: h.root });
  assert.equal(await cli(again.world, "export", h.native, "--json"), 0);
  const second = JSON.parse(again.stdout.text);
  assert.equal(second.path, path, "the same file name");
  assert.equal(second.messages, 21);
  const after = await Deno.readTextFile(path);
  assert.notEqual(after, before);
  assert.match(after, /One more thing/);
  assert.deepEqual(await files(join(h.root, "对话")), [path.split("/").at(-1)]);
});

Deno.test("bonsai export --out: any folder (created, relative to the cwd), the same file name", async () => {
  await using dir = await tempDir();
  const h = await exportHome(dir.path);
  const t = testWorld({ home: h.home, cwd: h.dir });
  assert.equal(await cli(t.world, "export", h.native, "--out", "notes/chats", "--json"), 0);
  const { path } = JSON.parse(t.stdout.text);
  assert.equal(
    path,
    join(h.dir, "notes", "chats", `2026-11-30-修复登录测试-${h.native.slice(0, 8)}.md`),
  );
  assert.ok((await Deno.stat(path)).isFile);
  assert.deepEqual(await files(join(h.root, "对话")), [], "nothing in the workspace");
});

Deno.test("bonsai export: an imported session with a hostile title gets a safe name inside 对话/", async () => {
  await using dir = await tempDir();
  const h = await exportHome(dir.path);
  const before = await files(h.dir);
  const t = testWorld({ home: h.home, cwd: h.root });
  assert.equal(await cli(t.world, "export", h.imported, "--json"), 0, t.stderr.text);
  const { path, messages } = JSON.parse(t.stdout.text);
  assert.equal(messages, 2);
  const name = path.slice(join(h.root, "对话").length + 1);
  assert.match(name, /^2026-11-30-etc-passwd-CON-a-b-x+-[0-9a-z]{8}\.md$/);
  assert.ok(new TextEncoder().encode(name).length <= 130);
  const added = (await files(h.dir)).filter((f) => !before.includes(f) && !f.startsWith("home/"));
  assert.deepEqual(added, [`app/对话/${name}`], "one file, where it belongs");
  const text = await Deno.readTextFile(path);
  assert.match(text, /imported from Codex/);
  assert.match(text, /imported answer/);
});

Deno.test("bonsai export: bad input is one line, a non-zero exit and nothing on disk", async (t) => {
  await using dir = await tempDir();
  const h = await exportHome(dir.path);
  const cases: [string, string[], number, RegExp][] = [
    ["unknown id", ["export", "zzzz"], 3, /No session id starts with 'zzzz'/],
    ["ambiguous prefix", ["export", "0"], 3, /ambiguous/],
    [
      "--out with --stdout",
      ["export", h.native, "--out", "x", "--stdout"],
      2,
      /either --out or --stdout/,
    ],
    [
      "deleted workspace",
      ["export", h.gone],
      2,
      /workspace '.*deleted-project' no longer exists \(write elsewhere with --out DIR/,
    ],
    [
      "--out is a file",
      ["export", h.native, "--out", "app/file.txt/sub"],
      1,
      /Cannot create the folder/,
    ],
  ];
  await Deno.writeTextFile(join(h.root, "file.txt"), "in the way\n");
  for (const [what, args, code, message] of cases) {
    await t.step(what, async () => {
      const before = await treeHash(h.dir);
      const w = testWorld({ home: h.home, cwd: h.dir });
      assert.equal(await cli(w.world, ...args), code, w.stderr.text);
      assert.match(w.stderr.text, message);
      assert.equal(w.stderr.text.trim().split("\n").length, 1);
      assert.equal(w.stdout.text, "");
      const after = await treeHash(h.dir);
      const changed = Object.keys(after).filter((p) => !p.includes("/home/") && !(p in before));
      assert.deepEqual(changed, []);
    });
  }
  await t.step("a deleted workspace still exports with --stdout or --out", async () => {
    const out = testWorld({ home: h.home, cwd: h.dir });
    assert.equal(await cli(out.world, "export", h.gone, "--stdout"), 0);
    assert.match(out.stdout.text, /from a deleted project/);
    const elsewhere = testWorld({ home: h.home, cwd: h.dir });
    assert.equal(await cli(elsewhere.world, "export", h.gone, "--out", "saved"), 0);
    assert.equal((await files(join(h.dir, "saved"))).length, 1);
  });
});

Deno.test("bonsai export (real program): exit codes, stdout for scripts, --json errors", async () => {
  await using dir = await tempDir();
  const h = await exportHome(dir.path);
  const env = baseEnv(h.home);
  const ok = await runBonsai(["export", h.native, "--stdout"], { cwd: h.root, env });
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /^# 修复登录测试\n/);
  assert.equal(ok.stderr, "");
  const missing = await runBonsai(["export", "zzzz", "--json"], { cwd: h.root, env });
  assert.equal(missing.code, 3);
  assert.equal(missing.stdout, "");
  assert.equal(JSON.parse(missing.stderr).error.code, "NOT_FOUND");
  const help = await runBonsai(["export", "--help"], { cwd: h.root, env });
  assert.match(help.stdout, /--out <dir>[\s\S]*--stdout[\s\S]*--json/);
});
