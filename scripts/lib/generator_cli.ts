// The shared command line of the log generators: --out DIR, a count of what they make,
// --seed, --days and --start; progress on stderr, one JSON summary on stdout.
import { parseArgs } from "node:util";

/** What a generator is given. */
export interface GeneratorRun {
  readonly out: string;
  readonly count: number;
  readonly seed: number;
  readonly days: number;
  readonly start: string;
  readonly progress: (done: number) => void;
  /** The generator's own boolean flags (`--NAME`), false when absent. */
  readonly flags: Readonly<Record<string, boolean>>;
}

/** Parses the arguments, runs `generate` and prints its summary with the elapsed time. */
export async function runGenerator(
  script: string,
  unit: string,
  defaultCount: number,
  generate: (run: GeneratorRun) => Promise<object>,
  extra: { readonly flags?: readonly string[] } = {},
): Promise<void> {
  const flags = extra.flags ?? [];
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      ...Object.fromEntries(flags.map((f) => [f, { type: "boolean" as const, default: false }])),
      out: { type: "string" },
      [unit]: { type: "string", default: String(defaultCount) },
      seed: { type: "string", default: "1" },
      days: { type: "string", default: "30" },
      start: { type: "string", default: "2026-10-01" },
    },
  });
  const encoder = new TextEncoder();
  const out = values.out as string | undefined;
  if (!out) {
    console.error(
      `usage: ${script} --out DIR [--${unit} N] [--seed S] [--days D] [--start YYYY-MM-DD]` +
        flags.map((f) => ` [--${f}]`).join(""),
    );
    Deno.exit(2);
  }
  const count = Number(values[unit]);
  const started = performance.now();
  const result = await generate({
    out,
    count,
    seed: Number(values.seed),
    days: Number(values.days),
    start: String(values.start),
    flags: Object.fromEntries(flags.map((f) => [f, values[f] === true])),
    progress: (done) =>
      Deno.stderr.writeSync(encoder.encode(`\rgenerated ${done}/${count} ${unit}`)),
  });
  Deno.stderr.writeSync(encoder.encode("\n"));
  console.log(JSON.stringify({ ...result, elapsed_ms: Math.round(performance.now() - started) }));
}
