import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { globTool } from "../../../../core/agent/tools/glob.ts";
import { tempDir } from "../../../support/temp.ts";
import { fakeToolContext } from "./fake_tool_context.ts";

async function writeFiles(root: string, files: Record<string, string>) {
  let t = 1_700_000_000;
  for (const [path, content] of Object.entries(files)) {
    await Deno.mkdir(dirname(join(root, path)), { recursive: true });
    await Deno.writeTextFile(join(root, path), content);
    await Deno.utime(join(root, path), t, t++); // later entries are newer
  }
}

Deno.test("glob tool lists matches newest first, honouring every ignore file", async () => {
  await using dir = await tempDir();
  const root = join(dir.path, "repo");
  const home = join(dir.path, "home");
  await writeFiles(home, { ".config/git/ignore": "*.orig.ts\n" });
  await writeFiles(root, {
    ".git/info/exclude": "scratch/\n",
    ".gitignore": "dist/\n",
    "src/a.ts": "",
    "src/b.orig.ts": "",
    "scratch/c.ts": "",
    "dist/d.ts": "",
    "src/deep/e.ts": "",
    "README.md": "",
  });
  const ctx = fakeToolContext(root, { HOME: home });
  const result = await globTool.run({ pattern: "**/*.ts" }, ctx);
  assert.equal(result.output, "src/deep/e.ts\nsrc/a.ts");
  assert.equal(result.summary, "2 files");
  const inDir = await globTool.run({ pattern: "*.ts", path: "src" }, ctx);
  assert.equal(inDir.output, "src/a.ts");
  const braces = await globTool.run({ pattern: "{README,src/*}.{md,ts}" }, ctx);
  assert.equal(braces.output, "README.md\nsrc/a.ts");
});

Deno.test("glob tool refuses a pattern with too many alternatives", async () => {
  await using dir = await tempDir();
  const ctx = fakeToolContext(await Deno.realPath(dir.path));
  await assert.rejects(
    () => globTool.run({ pattern: "{a,b}".repeat(12) }, ctx),
    /expands to more than 1000 alternatives/,
  );
});
