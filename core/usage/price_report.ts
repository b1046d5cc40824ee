// What `bonsai prices` reports: for each model asked about (or every one known), the rates
// bonsai charges now, where they come from, long-context tiers, price history and which ids
// the entry covers.
import { catalogEntry, findModel, type ModelInfo, ownAdditions } from "./model_catalog.ts";
import { describeRule } from "./model_match.ts";
import { type DatasetModel, datasetModels, PRICE_SOURCE } from "./price_dataset.ts";
import { allSavedPrices, type SavedPrice, savedPriceFor } from "./pricing_context.ts";
import { pricingOf } from "./pricing.ts";
import { periodAt, type PricePeriod, type Rates, type Tier } from "./rates.ts";

/** Rates with every cache rate filled in: what bonsai charges per million tokens. */
export interface FullRates {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly cacheWrite1h: number;
}

/** One dated or time-of-day price of a model. */
export interface PriceHistoryEntry {
  readonly since: string | null;
  readonly window: { readonly from: string; readonly to: string } | null;
  readonly rates: FullRates;
  readonly tiers: readonly (FullRates & { readonly above: number })[];
}

/** One line of the report. */
export interface PriceEntry {
  /** The id asked about; null when listing everything. */
  readonly query: string | null;
  readonly known: boolean;
  /** The entry's model id (the saved id for a saved price). */
  readonly model: string | null;
  readonly provider: string | null;
  readonly source: "user" | "dataset" | null;
  /** The saved setting, for saved prices. */
  readonly setting: string | null;
  readonly free: boolean;
  /** Rates now (base, below any tier). */
  readonly rates: FullRates | null;
  readonly tiers: readonly (FullRates & { readonly above: number })[];
  /** Every price the table has for the model, base first (dataset entries only). */
  readonly history: readonly PriceHistoryEntry[];
  readonly contextWindow: number | null;
  readonly maxOutput: number | null;
  /** Which ids the entry covers, in words. */
  readonly matches: readonly string[];
  /** What bonsai adds to the dataset's entry (max output, input limit, a tier). */
  readonly additions: readonly string[];
}

/** The whole report. */
export interface PriceReport {
  readonly source: typeof PRICE_SOURCE;
  readonly entries: readonly PriceEntry[];
}

/** Rates with the cache rates filled in as pricing fills them. */
export function fullRates(r: Rates): FullRates {
  const cacheWrite = r.cacheWrite ?? r.input;
  return {
    input: r.input,
    output: r.output,
    cacheRead: r.cacheRead ?? r.input,
    cacheWrite,
    cacheWrite1h: r.cacheWrite1h ?? cacheWrite,
  };
}

const tierRates = (t: Tier) => ({ above: t.above, ...fullRates(t) });

function history(p: PricePeriod): PriceHistoryEntry {
  return {
    since: p.since ?? null,
    window: p.window ?? null,
    rates: fullRates(p.rates),
    tiers: p.tiers.map(tierRates),
  };
}

const SAVED_MATCHES = [
  "the saved id in any case",
  "with a provider path before it",
  "with a date, ':tag' or '@version' after it",
];

function savedEntry(query: string | null, saved: SavedPrice): PriceEntry {
  const known = findModel(saved.model);
  const rates = saved.price.free
    ? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0 }
    : fullRates(saved.price);
  return {
    query,
    known: true,
    model: saved.model,
    provider: known?.provider ?? null,
    source: "user",
    setting: saved.key,
    free: saved.price.free,
    rates,
    tiers: [],
    history: [],
    contextWindow: known?.contextWindow ?? null,
    maxOutput: known?.maxOutput ?? null,
    matches: SAVED_MATCHES,
    additions: [],
  };
}

function unknownEntry(query: string): PriceEntry {
  return {
    query,
    known: false,
    model: null,
    provider: null,
    source: null,
    setting: null,
    free: false,
    rates: null,
    tiers: [],
    history: [],
    contextWindow: null,
    maxOutput: null,
    matches: [],
    additions: [],
  };
}

function datasetEntry(
  query: string | null,
  info: ModelInfo,
  period: PricePeriod,
  dataset: DatasetModel | undefined,
): PriceEntry {
  return {
    query,
    known: true,
    model: info.id,
    provider: info.provider,
    source: "dataset",
    setting: null,
    free: false,
    rates: fullRates(period.rates),
    tiers: period.tiers.map(tierRates),
    history: info.price.periods.map(history),
    contextWindow: info.contextWindow,
    maxOutput: info.maxOutput,
    matches: dataset ? [`ids ${describeRule(dataset.match)}`] : [],
    additions: ownAdditions(info.id),
  };
}

/** The report entry of a model id at time `at`. */
export function priceEntry(model: string, at: number): PriceEntry {
  const p = pricingOf(model, { at });
  if (p.kind === "none") return unknownEntry(model);
  if (p.kind === "user") return savedEntry(model, p.saved);
  const dataset = datasetModels().find((m) =>
    m.id === p.model.id && m.provider === p.model.provider
  );
  return datasetEntry(model, p.model, p.period, dataset);
}

/**
 * The report for the ids asked about, or, with none, every saved price and then every model
 * of the bundled table (a model with a saved price is listed once, as saved).
 */
export function priceReport(models: readonly string[], at: number): PriceReport {
  if (models.length > 0) {
    return { source: PRICE_SOURCE, entries: models.map((m) => priceEntry(m, at)) };
  }
  const saved = allSavedPrices().map((s) => savedEntry(null, s));
  const table = datasetModels().filter((m) => savedPriceFor(m.id) === null).map((m) => {
    const info = catalogEntry(m);
    return datasetEntry(null, info, periodAt(info.price, at), m);
  });
  return { source: PRICE_SOURCE, entries: [...saved, ...table] };
}
