import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { grepTool } from "../../../../core/agent/tools/grep.ts";
import { tempDir } from "../../../support/temp.ts";
import { fakeToolContext } from "./fake_tool_context.ts";

async function writeFiles(root: string, files: Record<string, string>) {
  for (const [path, content] of Object.entries(files)) {
    await Deno.mkdir(dirname(join(root, path)), { recursive: true });
    await Deno.writeTextFile(join(root, path), content);
  }
}

Deno.test("grep tool filters by glob: a name glob at any depth, a path glob from the root", async () => {
  await using dir = await tempDir();
  const root = await Deno.realPath(dir.path);
  await writeFiles(root, {
    "notes.md": "needle\n",
    "docs/guide.md": "needle\n",
    "src/a.ts": "needle\n",
    "lib/src/b.ts": "needle\n",
    "src/c.js": "needle\n",
  });
  const ctx = fakeToolContext(root);
  const run = (glob: string) => grepTool.run({ pattern: "needle", glob, output: "files" }, ctx);
  assert.equal((await run("*.md")).output, "notes.md\ndocs/guide.md");
  assert.equal((await run("src/*.ts")).output, "src/a.ts");
  assert.equal((await run("{*.md,src/*.ts}")).output, "notes.md\ndocs/guide.md\nsrc/a.ts");
});

Deno.test("grep tool skips what info/exclude and the global excludes file ignore", async () => {
  await using dir = await tempDir();
  const root = join(await Deno.realPath(dir.path), "repo");
  const xdg = join(dir.path, "xdg");
  await writeFiles(xdg, { "git/ignore": "*.log\n" });
  await writeFiles(root, {
    ".git/info/exclude": "private/\n",
    "a.txt": "needle\n",
    "b.log": "needle\n",
    "private/c.txt": "needle\n",
  });
  const ctx = fakeToolContext(root, { XDG_CONFIG_HOME: xdg });
  const result = await grepTool.run({ pattern: "needle" }, ctx);
  assert.equal(result.output, "a.txt:1: needle");
});
