import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import type { Env } from "../../../../core/home.ts";
import { walkFiles } from "../../../../core/agent/tools/walk.ts";
import { tempDir } from "../../../support/temp.ts";

/** Writes files (path → content) under `root`, creating directories. */
async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await Deno.mkdir(dirname(join(root, path)), { recursive: true });
    await Deno.writeTextFile(join(root, path), content);
  }
}

/** A project root and an empty home, both in a temp dir. */
async function project() {
  const dir = await tempDir();
  const root = join(dir.path, "repo");
  const home = join(dir.path, "home");
  await Deno.mkdir(join(root, ".git", "info"), { recursive: true });
  await Deno.mkdir(home);
  return { dir, root, home, env: { HOME: home } as Env };
}

async function walk(root: string, start: string, env: Env, limit?: number): Promise<string[]> {
  const out: string[] = [];
  for await (const f of walkFiles(root, start, { env, limit })) out.push(f.rel);
  return out;
}

Deno.test("walkFiles() lists files in name order, each directory's files first", async () => {
  const p = await project();
  await using _ = p.dir;
  await writeTree(p.root, {
    "b.txt": "",
    "a.txt": "",
    "z/1.txt": "",
    "m/2.txt": "",
    "m/n/3.txt": "",
    "node_modules/x/index.js": "",
    ".git/HEAD": "",
  });
  assert.deepEqual(await walk(p.root, ".", p.env), [
    "a.txt",
    "b.txt",
    "m/2.txt",
    "m/n/3.txt",
    "z/1.txt",
  ]);
  assert.deepEqual(await walk(p.root, ".", p.env, 2), ["a.txt", "b.txt"]);
  assert.deepEqual(await walk(p.root, "m", p.env), ["m/2.txt", "m/n/3.txt"]);
});

Deno.test("walkFiles() honours nested .gitignore files and never enters an ignored directory", async () => {
  const p = await project();
  await using _ = p.dir;
  await writeTree(p.root, {
    ".gitignore": "build/\n*.log\n!keep.log\n",
    "build/keep.log": "",
    "build/out.js": "",
    "src/.gitignore": "!*.log\n/gen/\n",
    "src/a.log": "",
    "src/gen/x.ts": "",
    "src/lib/gen/y.ts": "",
    "a.log": "",
    "keep.log": "",
  });
  assert.deepEqual(await walk(p.root, ".", p.env), [
    ".gitignore",
    "keep.log",
    "src/.gitignore",
    "src/a.log",
    "src/lib/gen/y.ts",
  ]);
});

Deno.test("walkFiles() from a subdirectory applies the .gitignore files above it", async () => {
  const p = await project();
  await using _ = p.dir;
  await writeTree(p.root, {
    ".gitignore": "*.tmp\n",
    "sub/.gitignore": "*.gen\n",
    "sub/inner/a.gen": "",
    "sub/inner/b.tmp": "",
    "sub/inner/c.ts": "",
  });
  assert.deepEqual(await walk(p.root, "sub/inner", p.env), ["sub/inner/c.ts"]);
});

Deno.test("walkFiles() honours .git/info/exclude", async () => {
  const p = await project();
  await using _ = p.dir;
  await writeTree(p.root, { ".git/info/exclude": "# local\nsecret/\n*.bak\n" });
  await writeTree(p.root, { "secret/k.txt": "", "a.bak": "", "a.txt": "" });
  assert.deepEqual(await walk(p.root, ".", p.env), ["a.txt"]);
});

Deno.test("walkFiles() honours the global excludes file, found through the env", async (t) => {
  const p = await project();
  await using _ = p.dir;
  await writeTree(p.root, { "a.swp": "", "b.orig": "", "c.txt": "" });
  await t.step("the default ~/.config/git/ignore", async () => {
    await writeTree(p.home, { ".config/git/ignore": "*.swp\n" });
    assert.deepEqual(await walk(p.root, ".", p.env), ["b.orig", "c.txt"]);
    // Without HOME in the env there is no global file, whatever the process's HOME is.
    assert.deepEqual(await walk(p.root, ".", {}), ["a.swp", "b.orig", "c.txt"]);
  });
  await t.step("$XDG_CONFIG_HOME/git/ignore", async () => {
    const xdg = join(p.dir.path, "xdg");
    await writeTree(xdg, { "git/ignore": "*.orig\n" });
    assert.deepEqual(await walk(p.root, ".", { HOME: p.home, XDG_CONFIG_HOME: xdg }), [
      "a.swp",
      "c.txt",
    ]);
  });
  await t.step("core.excludesFile in ~/.gitconfig replaces the default", async () => {
    await writeTree(p.home, {
      ".gitconfig": "[user]\n\tname = x\n[core]\n\texcludesFile = ~/my ignores\n",
      "my ignores": "*.txt\n",
    });
    assert.deepEqual(await walk(p.root, ".", p.env), ["a.swp", "b.orig"]);
  });
});

Deno.test("walkFiles() gives .gitignore precedence over info/exclude over the global file", async () => {
  const p = await project();
  await using _ = p.dir;
  await writeTree(p.home, { ".config/git/ignore": "*.log\n!x.txt\n*.tmp\n" });
  await writeTree(p.root, {
    ".git/info/exclude": "!info.log\n*.bak\n*.tmp\n",
    ".gitignore": "!root.bak\nx.txt\n!keep.tmp\n",
    "a.log": "",
    "info.log": "",
    "a.bak": "",
    "root.bak": "",
    "x.txt": "",
    "a.tmp": "",
    "keep.tmp": "",
    "other.txt": "",
  });
  assert.deepEqual(await walk(p.root, ".", p.env), [
    ".gitignore",
    "info.log",
    "keep.tmp",
    "other.txt",
    "root.bak",
  ]);
});

Deno.test("walkFiles() does not read a .gitignore that is a symbolic link (as git)", async () => {
  const p = await project();
  await using _ = p.dir;
  await writeTree(p.dir.path, { "outside/ignore": "*\n" });
  await writeTree(p.root, { "a.txt": "" });
  await Deno.symlink(join(p.dir.path, "outside/ignore"), join(p.root, ".gitignore"));
  assert.deepEqual(await walk(p.root, ".", p.env), ["a.txt"]);
});

Deno.test("walkFiles() works without a repository", async () => {
  const p = await project();
  await using _ = p.dir;
  await Deno.remove(join(p.root, ".git"), { recursive: true });
  await writeTree(p.root, { ".gitignore": "*.o\n", "a.o": "", "a.c": "" });
  assert.deepEqual(await walk(p.root, ".", p.env), [".gitignore", "a.c"]);
});

Deno.test("walkFiles() stops when its signal aborts", async () => {
  const p = await project();
  await using _ = p.dir;
  await writeTree(p.root, { "a/1": "", "b/2": "" });
  const controller = new AbortController();
  const seen: string[] = [];
  await assert.rejects(async () => {
    for await (const f of walkFiles(p.root, ".", { env: p.env, signal: controller.signal })) {
      seen.push(f.rel);
      controller.abort(new Error("stop"));
    }
  }, /stop/);
  assert.deepEqual(seen, ["a/1"]);
});
