// Regenerates core/usage/price_data.json, the price table bundled into bonsai, from the
// npm package @pydantic/genai-prices (MIT; https://github.com/pydantic/genai-prices):
//   deno run -A scripts/update_prices.ts [--version X.Y.Z] [--package DIR]
// Without --version it takes the package's latest version. It fetches the package with the
// ordinary npm client (`npm pack`, into a temporary folder; nothing is installed), keeps the
// providers that author the models bonsai talks to, and of each model only what pricing
// needs: text-token rates per million (input, output, cache read, 5-minute and 1-hour cache
// writes), long-context tiers, dated price changes and time-of-day windows, the context
// window and the id-matching rules. The same version always gives the same file. --package
// reads an already unpacked package folder (its package.json names the version) instead.
// Prints one JSON summary.
import { join } from "node:path";
import { parseArgs } from "node:util";

/** The package the table comes from. */
export const PACKAGE = "@pydantic/genai-prices";

/**
 * Providers kept, in the order bare model ids are matched against them: the model authors
 * whose APIs bonsai (or Claude Code and Codex) talk to. Hosts that resell open models (Groq,
 * Together, OpenRouter's own list, Bedrock, ...) are left out: a bare `llama-3.1-8b` may just
 * as well run on the user's own machine, where it costs nothing.
 */
export const PROVIDERS = [
  "anthropic",
  "openai",
  "google",
  "deepseek",
  "mistral",
  "x-ai",
  "moonshotai",
  "zhipuai",
  "zai",
  "minimax",
  "cohere",
] as const;

/** The rate keys kept (USD per million tokens), from the dataset's key to ours. */
const KEYS: Record<string, string> = {
  input_mtok: "input",
  output_mtok: "output",
  cache_read_mtok: "cache_read",
  cache_write_mtok: "cache_write",
  cache_write_1h_mtok: "cache_write_1h",
};

type Match = Record<string, unknown>;
type Tiered = { base: number; tiers: { start: number; price: number }[] };
type RawPrices = Record<string, number | Tiered | undefined>;
type Constraint =
  | { type: "start_date"; start_date: string }
  | { type: "time_of_date"; start_time: string; end_time: string };
interface RawModel {
  id: string;
  name?: string;
  context_window?: number;
  match: Match;
  prices: RawPrices | { constraint?: Constraint; prices: RawPrices }[];
}
interface RawProvider {
  id: string;
  name: string;
  model_match?: Match;
  provider_match?: Match;
  fallback_model_providers?: string[];
  models: RawModel[];
}
interface GenaiPrices {
  findProvider(o: { providerId: string }): RawProvider | undefined;
}

type Rates = Record<string, number>;
interface Period {
  since?: string;
  from?: string;
  to?: string;
  rates: Rates;
  tiers?: ({ above: number } & Rates)[];
}

/** Our rates of one period: flat rates and, per threshold, a full set of long-context rates. */
function period(raw: RawPrices): Omit<Period, "since" | "from" | "to"> | null {
  const rates: Rates = {};
  const starts = new Set<number>();
  for (const [key, ours] of Object.entries(KEYS)) {
    const v = raw[key];
    if (v === undefined) continue;
    if (typeof v === "number") rates[ours] = v;
    else {
      rates[ours] = v.base;
      for (const t of v.tiers) starts.add(t.start);
    }
  }
  if (rates.input === undefined || rates.output === undefined) return null;
  const tiers = [...starts].sort((a, b) => a - b).map((above) => {
    const tier: { above: number } & Rates = { above };
    for (const [key, ours] of Object.entries(KEYS)) {
      const v = raw[key];
      if (v === undefined) continue;
      if (typeof v === "number") tier[ours] = v;
      else {
        // The dataset's rule: a key's price is that of its last tier starting below the prompt.
        const hit = v.tiers.filter((t) => t.start <= above).sort((a, b) => a.start - b.start).at(
          -1,
        );
        tier[ours] = hit ? hit.price : v.base;
      }
    }
    return tier;
  });
  return tiers.length > 0 ? { rates, tiers } : { rates };
}

function model(raw: RawModel): Record<string, unknown> | null {
  const list = Array.isArray(raw.prices) ? raw.prices : [{ prices: raw.prices }];
  const periods: Period[] = [];
  for (const entry of list) {
    const p = period(entry.prices);
    if (!p) continue;
    const c = entry.constraint;
    if (c?.type === "start_date") periods.push({ since: c.start_date, ...p });
    else if (c?.type === "time_of_date") periods.push({ from: c.start_time, to: c.end_time, ...p });
    else if (c === undefined) periods.push(p);
    else throw new Error(`Model '${raw.id}': unknown price constraint ${JSON.stringify(c)}`);
  }
  if (periods.length === 0) return null;
  if (periods[0]!.since !== undefined || periods[0]!.from !== undefined) {
    throw new Error(`Model '${raw.id}': its first price period is constrained`);
  }
  return {
    id: raw.id,
    ...(raw.name ? { name: raw.name } : {}),
    ...(raw.context_window ? { context: raw.context_window } : {}),
    match: raw.match,
    prices: periods,
  };
}

/** The trimmed table of the given package module. */
export function buildTable(
  lib: GenaiPrices,
  source: { version: string; date: string },
): Record<string, unknown> {
  const providers = PROVIDERS.map((id) => {
    const p = lib.findProvider({ providerId: id });
    if (!p || p.id !== id) throw new Error(`${PACKAGE} has no provider '${id}'`);
    const models = p.models.map(model).filter((m) => m !== null);
    return {
      id: p.id,
      name: p.name,
      ...(p.model_match ? { model_match: p.model_match } : {}),
      ...(p.provider_match ? { provider_match: p.provider_match } : {}),
      ...(p.fallback_model_providers
        ? {
          fallback: p.fallback_model_providers.filter((f) =>
            (PROVIDERS as readonly string[]).includes(f)
          ),
        }
        : {}),
      models,
    };
  });
  return {
    source: {
      name: PACKAGE,
      version: source.version,
      date: source.date,
      license: "MIT",
      url: "https://github.com/pydantic/genai-prices",
    },
    providers,
  };
}

async function npm(args: string[], cwd?: string): Promise<string> {
  const out = await new Deno.Command("npm", { args, cwd, stderr: "inherit" }).output();
  if (!out.success) throw new Error(`npm ${args.join(" ")} failed`);
  return new TextDecoder().decode(out.stdout);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: { version: { type: "string" }, package: { type: "string" } },
  });
  const started = performance.now();
  let dir = values.package;
  let tmp: string | null = null;
  if (!dir) {
    tmp = await Deno.makeTempDir({ prefix: "bonsai-prices-" });
    await npm(["pack", "--silent", `${PACKAGE}@${values.version ?? "latest"}`], tmp);
    const tgz = [...Deno.readDirSync(tmp)].find((e) => e.name.endsWith(".tgz"))!.name;
    const untar = await new Deno.Command("tar", { args: ["xzf", tgz], cwd: tmp }).output();
    if (!untar.success) throw new Error(`Cannot unpack '${tgz}'`);
    dir = join(tmp, "package");
  }
  try {
    const pkg = JSON.parse(await Deno.readTextFile(join(dir, "package.json")));
    if (pkg.name !== PACKAGE) throw new Error(`'${dir}' holds ${pkg.name}, not ${PACKAGE}`);
    const times = JSON.parse(await npm(["view", `${PACKAGE}`, "time", "--json"]));
    const published = times[pkg.version];
    if (typeof published !== "string") throw new Error(`No publish date for ${pkg.version}`);
    const lib = await import(new URL(`file://${join(dir, "dist", "index.js")}`).href);
    const table = buildTable(lib, { version: pkg.version, date: published.slice(0, 10) });
    const out = new URL("../core/usage/price_data.json", import.meta.url);
    await Deno.writeTextFile(out, `${JSON.stringify(table, null, 2)}\n`);
    const fmt = await new Deno.Command(Deno.execPath(), { args: ["fmt", "-q", out.pathname] })
      .output();
    if (!fmt.success) throw new Error("deno fmt failed on the generated table");
    const providers = table.providers as { models: unknown[] }[];
    console.log(JSON.stringify({
      version: pkg.version,
      date: published.slice(0, 10),
      providers: providers.length,
      models: providers.reduce((n, p) => n + p.models.length, 0),
      bytes: (await Deno.stat(out)).size,
      elapsed_ms: Math.round(performance.now() - started),
    }));
  } finally {
    if (tmp) await Deno.remove(tmp, { recursive: true });
  }
}

if (import.meta.main) await main();
