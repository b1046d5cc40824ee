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

Deno.test("every module loaded out of Deno's sight (importLater, workers) is --include'd in the release binary", () => {
  const root = new URL("../", import.meta.url);
  const included = new Set(
    [...String(config.tasks.compile).matchAll(/--include\s+(\S+)/g)].map((m) => m[1]!),
  );
  const needed = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(new URL(dir, root))) {
      const rel = `${dir}${entry.name}`;
      if (entry.isDirectory) walk(`${rel}/`);
      else if (rel.endsWith(".ts")) scan(rel);
    }
  };
  const scan = (rel: string) => {
    const text = Deno.readTextFileSync(new URL(rel, root));
    const base = new URL(rel, root);
    const patterns = [/new Worker\(new URL\("([^"]+)"/g];
    if (/\bimportLater\b/.test(text) && !rel.endsWith("core/modules.ts")) {
      patterns.push(/typeof import\("(\.[^"]+)"\)/g);
    }
    for (const pattern of patterns) {
      for (const m of text.matchAll(pattern)) {
        needed.add(new URL(m[1]!, base).pathname.slice(root.pathname.length));
      }
    }
  };
  scan("main.ts");
  for (const dir of ["commands/", "core/", "tui/"]) walk(dir);
  assert.ok(needed.has("commands/search.ts") && needed.has("core/import/claude_worker.ts"));
  assert.deepEqual([...needed].filter((m) => !included.has(m)), []);
});
