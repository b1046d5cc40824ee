import assert from "node:assert/strict";
import { join } from "node:path";
import { BonsaiError } from "../../../../core/errors.ts";
import { editTool } from "../../../../core/agent/tools/edit.ts";
import { globTool } from "../../../../core/agent/tools/glob.ts";
import { grepTool } from "../../../../core/agent/tools/grep.ts";
import { readTool } from "../../../../core/agent/tools/read.ts";
import type { Tool, ToolContext } from "../../../../core/agent/tools/tool.ts";
import { writeTool } from "../../../../core/agent/tools/write.ts";
import { tempDir } from "../../../support/temp.ts";
import { fakeToolContext } from "./fake_tool_context.ts";

// X3: the tools touch nothing outside the session root, whatever path the model sends.

const SECRET = "TOP SECRET outside the root\n";
const OLD_TIME = new Date("2020-01-02T03:04:05Z");

/**
 * A root with escape hatches next to an `outside` directory holding `secret.txt`:
 * `link_file` → the secret, `link_dir` → outside, `dangling` → outside/new.txt (missing),
 * `dangling_dir` → outside/newdir (missing), `chain` → `link_dir` (a link to a link).
 */
async function sandbox() {
  const dir = await tempDir();
  const base = await Deno.realPath(dir.path);
  const root = join(base, "root");
  const outside = join(base, "outside");
  await Deno.mkdir(join(root, "sub"), { recursive: true });
  await Deno.mkdir(outside);
  await Deno.writeTextFile(join(outside, "secret.txt"), SECRET);
  await Deno.utime(join(outside, "secret.txt"), OLD_TIME, OLD_TIME);
  await Deno.writeTextFile(join(root, "inside.txt"), "inside\n");
  await Deno.symlink(join(outside, "secret.txt"), join(root, "link_file"));
  await Deno.symlink(outside, join(root, "link_dir"));
  await Deno.symlink(join(outside, "new.txt"), join(root, "dangling"));
  await Deno.symlink(join(outside, "newdir"), join(root, "dangling_dir"));
  await Deno.symlink("../link_dir", join(root, "sub", "chain"));
  return { dir, root, outside, ctx: fakeToolContext(root) };
}

/** What is outside: every entry with its content and mtime. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for await (const e of Deno.readDir(dir)) {
    const info = await Deno.lstat(join(dir, e.name));
    const content = info.isFile ? await Deno.readTextFile(join(dir, e.name)) : "(dir)";
    out[e.name] = `${content} @ ${info.mtime?.toISOString()}`;
  }
  return out;
}

/** Runs a tool as the tool runner does: a thrown BonsaiError becomes an error result. */
async function run(tool: Tool, args: unknown, ctx: ToolContext) {
  try {
    return await tool.run(args, ctx);
  } catch (err) {
    if (err instanceof BonsaiError) return { output: err.message, isError: true };
    throw err;
  }
}

const ESCAPES = [
  ["a .. escape", "../outside/secret.txt"],
  ["a .. escape through a subdirectory", "sub/../../outside/secret.txt"],
  ["an absolute path outside", "{outside}/secret.txt"],
  ["a symlinked file", "link_file"],
  ["a file in a symlinked directory", "link_dir/secret.txt"],
  ["a chain of symlinks", "sub/chain/secret.txt"],
] as const;

const REFUSED = /outside the project root/;

Deno.test("read, write and edit refuse paths that lead outside the root", async (t) => {
  const s = await sandbox();
  await using _ = s.dir;
  const before = await snapshot(s.outside);
  for (const [name, template] of ESCAPES) {
    const path = template.replace("{outside}", s.outside);
    await t.step(`read: ${name}`, async () => {
      const result = await run(readTool, { path }, s.ctx);
      assert.equal(result.isError, true);
      assert.match(result.output, REFUSED);
      assert.doesNotMatch(result.output, /TOP SECRET/);
    });
    await t.step(`write: ${name}`, async () => {
      const result = await run(writeTool, { path, content: "pwned\n" }, s.ctx);
      assert.equal(result.isError, true);
      assert.match(result.output, REFUSED);
    });
    await t.step(`edit: ${name}`, async () => {
      const args = { path, old_string: "TOP SECRET", new_string: "pwned" };
      const result = await run(editTool, args, s.ctx);
      assert.equal(result.isError, true);
      assert.match(result.output, REFUSED);
    });
  }
  assert.deepEqual(await snapshot(s.outside), before);
});

Deno.test("write refuses dangling symlinks that would create files outside the root", async (t) => {
  const s = await sandbox();
  await using _ = s.dir;
  const before = await snapshot(s.outside);
  for (const path of ["dangling", "dangling_dir/new.txt", "./sub/../dangling"]) {
    await t.step(path, async () => {
      const result = await run(writeTool, { path, content: "pwned\n" }, s.ctx);
      assert.equal(result.isError, true);
      assert.match(result.output, REFUSED);
    });
  }
  assert.deepEqual(await snapshot(s.outside), before);
});

Deno.test("glob and grep refuse search paths that lead outside the root", async (t) => {
  const s = await sandbox();
  await using _ = s.dir;
  const searches = [
    ["..", ".."],
    ["an absolute path outside", s.outside],
    ["the filesystem root", "/"],
    ["a symlinked directory", "link_dir"],
    ["a chain of symlinks", "sub/chain"],
  ] as const;
  for (const [name, path] of searches) {
    await t.step(`glob: ${name}`, async () => {
      const result = await run(globTool, { pattern: "**/*", path }, s.ctx);
      assert.equal(result.isError, true);
      assert.match(result.output, REFUSED);
    });
    await t.step(`grep: ${name}`, async () => {
      const result = await run(grepTool, { pattern: "SECRET", path }, s.ctx);
      assert.equal(result.isError, true);
      assert.match(result.output, REFUSED);
    });
  }
  await t.step("grep: a symlinked file", async () => {
    const result = await run(grepTool, { pattern: "SECRET", path: "link_file" }, s.ctx);
    assert.equal(result.isError, true);
    assert.match(result.output, REFUSED);
  });
});

Deno.test("glob and grep do not follow symlinks out of the root while walking", async () => {
  const s = await sandbox();
  await using _ = s.dir;
  const listed = await run(globTool, { pattern: "**/*" }, s.ctx);
  assert.equal(listed.isError, false);
  assert.deepEqual(listed.output.split("\n"), ["inside.txt"]);
  const found = await run(grepTool, { pattern: "SECRET", output: "files" }, s.ctx);
  assert.equal(found.output, "No matches");
  const everything = await run(grepTool, { pattern: "." }, s.ctx);
  assert.doesNotMatch(everything.output, /SECRET/);
});

Deno.test("paths inside the root still work", async (t) => {
  const s = await sandbox();
  await using _ = s.dir;
  await Deno.writeTextFile(join(s.root, "..dots"), "dots\n");
  await Deno.symlink("inside.txt", join(s.root, "inner_link"));
  await t.step("a name starting with two dots", async () => {
    const result = await run(readTool, { path: "..dots" }, s.ctx);
    assert.equal(result.isError, false, result.output);
  });
  await t.step("an absolute path inside", async () => {
    const result = await run(readTool, { path: join(s.root, "sub/../inside.txt") }, s.ctx);
    assert.equal(result.isError, false, result.output);
  });
  await t.step("a symlink to a file inside", async () => {
    const result = await run(readTool, { path: "inner_link" }, s.ctx);
    assert.match(result.output, /inside/);
  });
  await t.step("a dangling symlink to a new file inside", async () => {
    await Deno.symlink("sub/future.txt", join(s.root, "future"));
    const result = await run(writeTool, { path: "future", content: "soon\n" }, s.ctx);
    assert.equal(result.isError, false, result.output);
    assert.equal(await Deno.readTextFile(join(s.root, "sub/future.txt")), "soon\n");
  });
  await t.step("write and edit a new file in a new directory", async () => {
    assert.equal(
      (await run(writeTool, { path: "new/a.txt", content: "one\n" }, s.ctx)).isError,
      false,
    );
    const args = { path: "new/a.txt", old_string: "one", new_string: "two" };
    assert.equal((await run(editTool, args, s.ctx)).isError, false);
    assert.equal(await Deno.readTextFile(join(s.root, "new/a.txt")), "two\n");
  });
});
