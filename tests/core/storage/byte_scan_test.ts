import assert from "node:assert/strict";
import { join } from "node:path";
import { fileContains } from "../../../core/storage/byte_scan.ts";
import { tempDir } from "../../support/temp.ts";

Deno.test("fileContains() finds any needle anywhere, across its 4 MiB read chunks", async (t) => {
  await using dir = await tempDir();
  const chunk = 4 << 20;
  const needle = "needle-Ω-0123456789";
  const bytes = new TextEncoder().encode(needle);
  const cases: [name: string, at: number | null, needles: string[], found: boolean][] = [
    ["at the start", 0, [needle], true],
    ["at the end", chunk * 2 - bytes.length, [needle], true],
    ["across the first chunk boundary", chunk - 5, [needle], true],
    ["one byte before the boundary", chunk - bytes.length + 1, [needle], true],
    ["absent", null, [needle], false],
    ["another of several needles", chunk + 17, ["nothing-like-it", needle], true],
    ["no needles", 0, [], false],
    ["only empty needles", 0, [""], false],
  ];
  for (const [name, at, needles, found] of cases) {
    await t.step(name, () => {
      const path = join(dir.path, "file.bin");
      const data = new Uint8Array(chunk * 2);
      if (at !== null) data.set(bytes, at);
      Deno.writeFileSync(path, data);
      assert.equal(fileContains(path, needles), found);
    });
  }
  await t.step("a missing file holds nothing", () => {
    assert.equal(fileContains(join(dir.path, "missing"), [needle]), false);
  });
});
