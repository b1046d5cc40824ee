// The id rules of the bundled price table (the dataset's own "match logic"), evaluated and
// described in words for `bonsai prices`.

/** A rule that says which model ids a table entry (or a provider) covers. */
export type MatchRule =
  | { readonly equals: string }
  | { readonly starts_with: string }
  | { readonly ends_with: string }
  | { readonly contains: string }
  | { readonly regex: string }
  | { readonly or: readonly MatchRule[] }
  | { readonly and: readonly MatchRule[] };

const patterns = new Map<string, RegExp>();

/** Whether `id` (lower-case) satisfies the rule; text comparisons ignore case. */
export function matchesRule(rule: MatchRule, id: string): boolean {
  if ("or" in rule) return rule.or.some((r) => matchesRule(r, id));
  if ("and" in rule) return rule.and.every((r) => matchesRule(r, id));
  if ("equals" in rule) return id === rule.equals.toLowerCase();
  if ("starts_with" in rule) return id.startsWith(rule.starts_with.toLowerCase());
  if ("ends_with" in rule) return id.endsWith(rule.ends_with.toLowerCase());
  if ("contains" in rule) return id.includes(rule.contains.toLowerCase());
  let re = patterns.get(rule.regex);
  if (!re) patterns.set(rule.regex, re = new RegExp(rule.regex));
  return re.test(id);
}

/** The rule in words: `= "gpt-5", starts with "gpt-5-2025"`. */
export function describeRule(rule: MatchRule): string {
  if ("or" in rule) return rule.or.map(describeRule).join(", ");
  if ("and" in rule) return rule.and.map(describeRule).join(" and ");
  if ("equals" in rule) return `"${rule.equals}"`;
  if ("starts_with" in rule) return `starting "${rule.starts_with}"`;
  if ("ends_with" in rule) return `ending "${rule.ends_with}"`;
  if ("contains" in rule) return `containing "${rule.contains}"`;
  return `matching /${rule.regex}/`;
}

/** A model id as the table is searched with it: where it routes to, and its own name. */
export interface ModelIdParts {
  /** Path segments before the name (`openrouter/anthropic/x` → `["openrouter", "anthropic"]`). */
  readonly route: readonly string[];
  /** The model's own id, lower-case. */
  readonly name: string;
}

/**
 * Splits a model id the way providers and routers write it: lower-cased, `provider/` paths
 * (OpenRouter, LiteLLM) apart from the name, Bedrock's `us.anthropic.…-v1:0` as
 * `anthropic/…`. Null for an Ollama-style tag (`llama3.2:latest`, `gpt-oss:20b`): a model
 * running locally, which no price list covers.
 */
export function splitModelId(model: string): ModelIdParts | null {
  const id = model.trim().toLowerCase()
    .replace(/^(?:[a-z]{2,4}\.|global\.)?anthropic\./, "anthropic/")
    .replace(/-v\d+:\d+$/, "");
  if (id === "" || id.includes(":")) return null;
  const segments = id.split("/");
  const name = segments.pop();
  return name ? { route: segments.filter((s) => s !== ""), name } : null;
}

/** Spellings of a name to try after the name itself: ISO dates, `@` and `.` as dashes. */
export function nameVariants(name: string): string[] {
  const out: string[] = [];
  const add = (v: string) => {
    if (v !== name && !out.includes(v)) out.push(v);
  };
  // claude-sonnet-4-20250514 → claude-sonnet-4-2025-05-14 (the table writes some dates so)
  add(name.replace(/-(20\d{2})(\d{2})(\d{2})(?=$|-)/, "-$1-$2-$3"));
  add(name.replace(/@/g, "-"));
  // Routers write Claude versions with dots (claude-sonnet-4.5); Anthropic with dashes.
  if (name.startsWith("claude")) add(name.replace(/\./g, "-"));
  return out;
}
