import { findModel, type ModelInfo } from "./model_catalog.ts";
import { PRICE_SOURCE } from "./price_dataset.ts";
import { pricingNow, type SavedPrice, savedPriceFor } from "./pricing_context.ts";
import {
  baselineWith,
  costWith,
  periodAt,
  type PricePeriod,
  promptTokens,
  type Rates,
  ratesFor,
  type TokenCounts,
} from "./rates.ts";
import { userRates } from "./user_price.ts";

export type { TokenCounts } from "./rates.ts";

/** Cost of one response and what it would have cost without caching. Null: no known price. */
export interface Cost {
  readonly usd: number | null;
  readonly baselineUsd: number | null;
}

/** Options of priceTokens. */
export interface PriceOptions {
  /**
   * When the request was made (epoch ms): picks the price in force then, for models whose
   * price changed or differs by time of day. Default: now, as the command layer's clock
   * tells (pricing_context.ts), else the bundled table's date.
   */
  readonly at?: number;
}

/** Where a model's price comes from. */
export type PriceSourceKind = "user" | "dataset";

/** The price bonsai uses for a model: a saved one, else the bundled table's, else none. */
export type ModelPricing =
  | { readonly kind: "user"; readonly saved: SavedPrice; readonly rates: Rates }
  | { readonly kind: "dataset"; readonly model: ModelInfo; readonly period: PricePeriod }
  | { readonly kind: "none" };

/** The price of a model at a time: a saved price wins over the bundled table. */
export function pricingOf(model: string, options: PriceOptions = {}): ModelPricing {
  const saved = savedPriceFor(model);
  if (saved) return { kind: "user", saved, rates: userRates(saved.price) };
  const info = findModel(model);
  if (!info) return { kind: "none" };
  const at = options.at ?? pricingNow() ?? Date.parse(`${PRICE_SOURCE.date}T00:00:00Z`);
  return { kind: "dataset", model: info, period: periodAt(info.price, at) };
}

/**
 * Prices a response's tokens: with the user's saved price for the model when there is one
 * (a model saved as free costs exactly 0), else with the bundled table. A request whose
 * prompt is over a model's long-context threshold is billed whole at the long-context rates,
 * as the providers bill it. Null costs: the model has no known price.
 */
export function priceTokens(model: string, t: TokenCounts, options: PriceOptions = {}): Cost {
  const p = pricingOf(model, options);
  if (p.kind === "none") return { usd: null, baselineUsd: null };
  const rates = p.kind === "user" ? p.rates : ratesFor(p.period, promptTokens(t));
  return { usd: costWith(rates, t), baselineUsd: baselineWith(rates, t) };
}
