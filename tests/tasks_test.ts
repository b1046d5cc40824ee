import assert from "node:assert/strict";
import { bonsaiRunArgs } from "../scripts/lib/bench_util.ts";

const config = JSON.parse(Deno.readTextFileSync(new URL("../deno.json", import.meta.url)));

function v8Flags(task: string): string[] {
  return String(task).split(/\s+/).filter((w) => w.startsWith("--v8-flags="));
}

Deno.test("the release binary carries the V8 flags `deno task start` runs with", () => {
  const start = v8Flags(config.tasks.start);
  assert.ok(start.length > 0, "the start task sets V8 flags");
  assert.deepEqual(v8Flags(config.tasks.compile), start);
});

Deno.test("benchmarks run bonsai exactly as the start task does", () => {
  const args = bonsaiRunArgs();
  assert.equal(args[0], "run");
  assert.ok(args.at(-1)!.endsWith("/main.ts"));
  assert.deepEqual(args.filter((a) => a.startsWith("--v8-flags=")), v8Flags(config.tasks.start));
});
