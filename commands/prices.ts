import { z } from "zod";
import {
  type FullRates,
  type PriceEntry,
  type PriceReport,
  priceReport,
} from "../core/usage/price_report.ts";
import { formatInt } from "../tui/render/format.ts";
import { renderTable } from "../tui/render/table.ts";
import { openDb, parseOptions, type Ui, uiFor } from "./context.ts";
import { EXIT } from "./exit_codes.ts";
import type { World } from "./world.ts";

const Options = z.object({ json: z.boolean().optional() });

/**
 * `bonsai prices [model...] [--json]`: the rates bonsai charges for each model (a saved price,
 * else the bundled table's), with their source, long-context tiers and the ids they cover.
 */
export async function prices(
  world: World,
  models: readonly string[],
  raw: unknown,
): Promise<number> {
  const opts = parseOptions(Options, raw);
  const ui = uiFor(world);
  let report: PriceReport;
  {
    // Saved prices live in the database; opening it hands them to pricing.
    using _db = await openDb(world);
    report = priceReport(models, world.clock.now());
  }
  if (opts.json) ui.json(reportJson(report));
  else if (models.length === 0) printTable(ui, report);
  else for (const e of report.entries) printEntry(ui, e, report);
  return EXIT.OK;
}

const ratesJson = (r: FullRates) => ({
  input: r.input,
  output: r.output,
  cache_read: r.cacheRead,
  cache_write: r.cacheWrite,
  cache_write_1h: r.cacheWrite1h,
});

function reportJson(report: PriceReport) {
  return {
    source: report.source,
    models: report.entries.map((e) => ({
      query: e.query,
      known: e.known,
      model: e.model,
      provider: e.provider,
      source: e.source,
      setting: e.setting,
      free: e.free,
      rates: e.rates ? ratesJson(e.rates) : null,
      tiers: e.tiers.map((t) => ({ above: t.above, ...ratesJson(t) })),
      history: e.history.map((h) => ({
        since: h.since,
        window: h.window,
        rates: ratesJson(h.rates),
        tiers: h.tiers.map((t) => ({ above: t.above, ...ratesJson(t) })),
      })),
      context_window: e.contextWindow,
      max_output: e.maxOutput,
      matches: e.matches,
      bonsai_additions: e.additions,
    })),
  };
}

const usd = (n: number) => String(Number(n.toPrecision(6)));
const kTokens = (n: number) => n % 1000 === 0 ? `${n / 1000}k` : formatInt(n);
/** A tier's threshold: `>200k`, or `≥272k` for a table that writes "over 271,999". */
const over = (above: number) =>
  (above + 1) % 1000 === 0 ? `≥${kTokens(above + 1)}` : `>${kTokens(above)}`;
const clock = (t: string) => t.replace(/:00(?:\.0+)?Z$/, "").replace(/Z$/, "");

function sourceLine(report: PriceReport): string {
  const s = report.source;
  return `USD per million tokens. Table: ${s.name} ${s.version} (published ${s.date}, ${s.license}); saved prices ('bonsai settings set price.<model> ...') come first.`;
}

function printTable(ui: Ui, report: PriceReport): void {
  ui.out(ui.style.dim(sourceLine(report)));
  ui.out(renderTable(
    [
      { header: "MODEL", paint: (t) => ui.style.cyan(t), shrink: true, min: 16 },
      { header: "PROVIDER", drop: 2 },
      { header: "SOURCE" },
      { header: "INPUT", align: "right" },
      { header: "OUTPUT", align: "right" },
      { header: "CACHE READ", align: "right" },
      { header: "WRITE 5M", align: "right", drop: 3 },
      { header: "WRITE 1H", align: "right", drop: 1 },
      { header: "LONG CONTEXT", drop: 4 },
    ],
    report.entries.map((e) => {
      const r = e.rates!;
      const tier = e.tiers[0];
      return [
        e.model ?? "",
        e.provider ?? "-",
        e.source === "user" ? "saved" : "table",
        e.free ? "free" : usd(r.input),
        e.free ? "" : usd(r.output),
        e.free ? "" : usd(r.cacheRead),
        e.free ? "" : usd(r.cacheWrite),
        e.free ? "" : usd(r.cacheWrite1h),
        tier ? `${over(tier.above)}: ${usd(tier.input)} / ${usd(tier.output)}` : "",
      ];
    }),
    { width: ui.width, style: ui.style, ascii: ui.ascii },
  ));
}

function ratesText(r: FullRates): string {
  return `input ${usd(r.input)}, output ${usd(r.output)}, cache read ${
    usd(r.cacheRead)
  }, cache write ${usd(r.cacheWrite)} (5 min) / ${usd(r.cacheWrite1h)} (1 h)`;
}

function printEntry(ui: Ui, e: PriceEntry, report: PriceReport): void {
  const { style } = ui;
  const row = (k: string, v: string) => `  ${style.dim(k.padEnd(12))} ${v}`;
  const lines = [style.bold(e.query ?? e.model ?? "")];
  if (!e.known) {
    lines.push(row("price", "unknown: its turns count as unpriced (totals become floors)"));
    lines.push(
      row("set one", `bonsai settings set price.${e.query} input=... output=...   (or 'free')`),
    );
    ui.out(lines.join("\n"));
    return;
  }
  if (e.source === "user") {
    lines.push(row("source", `your saved price '${e.setting}'`));
    lines.push(row("rates", e.free ? "free (exactly $0)" : ratesText(e.rates!)));
  } else {
    const s = report.source;
    lines.push(row("model", `${e.model} (${e.provider})`));
    lines.push(row("source", `${s.name} ${s.version}, published ${s.date}`));
    lines.push(row("rates", ratesText(e.rates!)));
    for (const t of e.tiers) {
      lines.push(
        row(
          over(t.above),
          `${ratesText(t)} (the whole request, when its prompt is ${
            over(t.above).replace(">", "over ").replace("≥", "at least ")
          } tokens)`,
        ),
      );
    }
    if (e.history.length > 1) {
      const first = e.history.find((h) => h.since !== null)?.since;
      for (const h of e.history) {
        const when = h.since !== null
          ? `from ${h.since}`
          : h.window !== null
          ? `${clock(h.window.from)}-${clock(h.window.to)} UTC daily`
          : first
          ? `before ${first}`
          : "other times";
        lines.push(row("history", `${when}: ${ratesText(h.rates)}`));
      }
    }
  }
  if (e.contextWindow !== null || e.maxOutput !== null) {
    lines.push(row(
      "context",
      `${e.contextWindow !== null ? `${formatInt(e.contextWindow)} tokens` : "unknown"}${
        e.maxOutput !== null ? `, max output ${formatInt(e.maxOutput)}` : ""
      }`,
    ));
  }
  if (e.matches.length > 0) lines.push(row("matches", e.matches.join("; ")));
  if (e.additions.length > 0) lines.push(row("bonsai adds", e.additions.join(", ")));
  ui.out(lines.join("\n"));
}
