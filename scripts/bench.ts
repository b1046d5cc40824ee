// `deno task bench [name...] [-- args]`: runs scripts/bench_*.ts one after another; each
// prints one JSON object on stdout (progress goes to stderr). Arguments after `--` go to
// every benchmark, e.g. `deno task bench search -- --messages 100000`.
import { bonsaiRunArgs } from "./lib/bench_util.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const split = Deno.args.indexOf("--");
const names = split < 0 ? Deno.args : Deno.args.slice(0, split);
const passThrough = split < 0 ? [] : Deno.args.slice(split + 1);
const all = [...Deno.readDirSync(`${ROOT}scripts`)]
  .map((e) => /^bench_(.+)\.ts$/.exec(e.name)?.[1])
  .filter((n): n is string => n !== undefined)
  .sort();
const chosen = names.length ? names : all;
let failed = false;
for (const name of chosen) {
  if (!all.includes(name)) {
    console.error(`no benchmark '${name}' (have: ${all.join(", ")})`);
    Deno.exit(2);
  }
  const out = await new Deno.Command(Deno.execPath(), {
    // In-process benchmarks run under the same V8 flags as bonsai itself.
    args: [...bonsaiRunArgs().slice(0, -1), `${ROOT}scripts/bench_${name}.ts`, ...passThrough],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!out.success) {
    console.error(`benchmark '${name}' failed with exit code ${out.code}`);
    failed = true;
  }
}
Deno.exit(failed ? 1 : 0);
