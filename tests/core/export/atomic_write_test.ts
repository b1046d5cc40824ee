import assert from "node:assert/strict";
import { join } from "node:path";
import { writeFileAtomic } from "../../../core/export/atomic_write.ts";
import { isBonsaiError } from "../../../core/errors.ts";
import { tempDir } from "../../support/temp.ts";

const list = async (dir: string) =>
  (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort();

Deno.test("writeFileAtomic(): creates the folder, replaces the file whole, leaves nothing beside it", async () => {
  await using dir = await tempDir();
  const folder = join(dir.path, "a", "对话");
  const path = await writeFileAtomic(folder, "x.md", "first\n", "7");
  assert.equal(path, join(folder, "x.md"));
  assert.equal(await Deno.readTextFile(path), "first\n");
  // A temporary file left by a killed writer with the same tag is stepped over, not reused.
  await Deno.writeTextFile(join(folder, ".export-7-0.tmp"), "leftover");
  await writeFileAtomic(folder, "x.md", "second\n", "7");
  assert.equal(await Deno.readTextFile(path), "second\n");
  assert.deepEqual(await list(folder), [".export-7-0.tmp", "x.md"]);
  // Concurrent writers of one process each get their own temporary file.
  await Promise.all(["a", "b", "c"].map((t) => writeFileAtomic(folder, "x.md", `${t}\n`, "7")));
  assert.match(await Deno.readTextFile(path), /^[abc]\n$/);
  assert.deepEqual(await list(folder), [".export-7-0.tmp", "x.md"]);
});

Deno.test("writeFileAtomic(): a failed rename is an IO error and removes its temporary file", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(join(dir.path, "x.md"));
  await assert.rejects(
    () => writeFileAtomic(dir.path, "x.md", "text", "7"),
    (err) => isBonsaiError(err, "IO") && /Cannot write '.*x\.md'/.test(err.message),
  );
  assert.deepEqual(await list(dir.path), ["x.md"]);
  await assert.rejects(() => writeFileAtomic("relative", "x.md", "", "7"), TypeError);
});
