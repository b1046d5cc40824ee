import { z } from "zod";
import type { Clock } from "../clock.ts";
import { BonsaiError } from "../errors.ts";
import type { Env } from "../home.ts";
import { oneOf } from "../schema.ts";
import { ANTHROPIC_BASE_URL, anthropicAdapter } from "./anthropic.ts";
import { OPENAI_BASE_URL, openaiAdapter } from "./openai.ts";
import type { RetryPolicy } from "./retry.ts";
import { abortableSleep, StreamingClient } from "./stream_client.ts";
import type { ModelClient, Reasoning } from "./types.ts";

/** A resolved provider: everything needed to build a client. */
export interface ProviderConfig {
  readonly provider: "anthropic" | "openai";
  readonly model: string;
  readonly reasoning: Reasoning | null;
  /** The key itself (never stored) or null for keyless local servers. */
  readonly apiKey: string | null;
  readonly baseUrl: string;
  /** Where the provider choice came from, for messages. */
  readonly source: "flag" | "env" | "settings" | "session" | "discovered";
  /** The context window the provider's server reported for the model, when it says. */
  readonly contextWindow?: number | null;
}

/** What the user asked for on the command line. */
export interface ProviderFlags {
  readonly provider?: string;
  readonly model?: string;
  readonly reasoning?: string;
}

/** The provider a resumed session was using (R2: it is pinned). */
export interface PinnedProvider {
  readonly provider: string | null;
  readonly model: string | null;
  readonly reasoning: string | null;
}

export const DEFAULT_MODELS = { anthropic: "claude-sonnet-4-5", openai: "gpt-5" } as const;

const ProviderName = oneOf(
  ["anthropic", "openai"],
  (input) => `unknown provider '${String(input)}' (use 'anthropic' or 'openai')`,
);
const ReasoningLevel = oneOf(
  ["off", "low", "medium", "high"],
  (input) => `unknown reasoning level '${String(input)}' (use off, low, medium or high)`,
);
/** A saved key is only ever a reference to an environment variable (S4). */
export const KeyReference = z.string().regex(/^env:[A-Za-z_][A-Za-z0-9_]*$/, {
  message: "an API key setting must be a reference like 'env:MY_KEY', never the key itself",
});

/** Setting keys the resolver reads. */
export const PROVIDER_SETTINGS = {
  provider: "default.provider",
  model: "default.model",
  reasoning: "default.reasoning",
  anthropicKey: "anthropic.api_key",
  anthropicBaseUrl: "anthropic.base_url",
  openaiKey: "openai.api_key",
  openaiBaseUrl: "openai.base_url",
} as const;

/** Ports of OpenAI-compatible local servers, probed when nothing is configured. */
export const LOCAL_SERVERS = [
  { name: "Ollama", url: "http://127.0.0.1:11434/v1" },
  { name: "LM Studio", url: "http://127.0.0.1:1234/v1" },
  { name: "llama.cpp", url: "http://127.0.0.1:8080/v1" },
] as const;

/** What to set when no provider can be found. */
export const NO_PROVIDER_HELP =
  "No model provider is configured: set ANTHROPIC_API_KEY (Anthropic) or OPENAI_API_KEY (OpenAI), or OPENAI_BASE_URL for an OpenAI-compatible server; BONSAI_PROVIDER and BONSAI_MODEL choose explicitly. No local server (Ollama :11434, LM Studio :1234, llama.cpp :8080) answered either";

function parseOr<T>(
  schema: z.ZodType<T>,
  value: string | undefined | null,
  what: string,
): T | null {
  if (value === undefined || value === null || value === "") return null;
  const r = schema.safeParse(value);
  if (!r.success) throw new BonsaiError("CONFIG", `${what}: ${r.error.issues[0]?.message}`);
  return r.data;
}

/** Saved provider defaults, already checked (core/service reads them). */
export interface SavedProvider {
  readonly provider?: "anthropic" | "openai";
  readonly model?: string;
  readonly reasoning?: Reasoning;
  /** `env:NAME` references. */
  readonly anthropicKey?: string;
  readonly anthropicBaseUrl?: string;
  readonly openaiKey?: string;
  readonly openaiBaseUrl?: string;
}

/**
 * Resolves the provider without touching the network. A resumed session's provider, model
 * and reasoning win over the environment (R2); `--model` still overrides for the run.
 * Returns null when nothing at all is configured (the caller may then probe local servers).
 */
export function resolveProvider(
  input: {
    env: Env;
    flags: ProviderFlags;
    saved: SavedProvider;
    pinned?: PinnedProvider | null;
  },
): ProviderConfig | null {
  const { env, flags, saved, pinned } = input;
  const flagProvider = parseOr(ProviderName, flags.provider, "--provider");
  const flagReasoning = parseOr(ReasoningLevel, flags.reasoning, "--reasoning");
  let provider: "anthropic" | "openai" | null;
  let source: ProviderConfig["source"];
  if (pinned?.provider) {
    provider = parseOr(ProviderName, pinned.provider, "the session's provider");
    source = "session";
  } else if (flagProvider) {
    provider = flagProvider;
    source = "flag";
  } else if (env.BONSAI_PROVIDER) {
    provider = parseOr(ProviderName, env.BONSAI_PROVIDER, "BONSAI_PROVIDER");
    source = "env";
  } else if (saved.provider) {
    provider = saved.provider;
    source = "settings";
  } else if (env.ANTHROPIC_API_KEY) {
    provider = "anthropic";
    source = "env";
  } else if (env.OPENAI_API_KEY || env.OPENAI_BASE_URL) {
    provider = "openai";
    source = "env";
  } else {
    return null;
  }
  provider = provider!;
  const model = flags.model || pinned?.model || env.BONSAI_MODEL || saved.model ||
    DEFAULT_MODELS[provider];
  const reasoning = flagReasoning ??
    (pinned
      ? parseOr(ReasoningLevel, pinned.reasoning, "the session's reasoning")
      : saved.reasoning ?? null);
  if (provider === "anthropic") {
    const keyVar = keyVariable(saved.anthropicKey, "ANTHROPIC_API_KEY");
    const baseUrl = env.ANTHROPIC_BASE_URL || saved.anthropicBaseUrl || ANTHROPIC_BASE_URL;
    const apiKey = env[keyVar] || null;
    if (!apiKey) {
      throw new BonsaiError("CONFIG", `The Anthropic provider needs an API key: set ${keyVar}`);
    }
    return { provider, model, reasoning, apiKey, baseUrl, source };
  }
  const keyVar = keyVariable(saved.openaiKey, "OPENAI_API_KEY");
  const baseUrl = env.OPENAI_BASE_URL || saved.openaiBaseUrl || OPENAI_BASE_URL;
  const apiKey = env[keyVar] || null;
  if (!apiKey && /^https:\/\/api\.openai\.com(\/|$)/.test(baseUrl)) {
    throw new BonsaiError(
      "CONFIG",
      `The OpenAI provider needs an API key: set ${keyVar} (or OPENAI_BASE_URL for a local server)`,
    );
  }
  return { provider, model, reasoning, apiKey, baseUrl, source };
}

/** The environment variable a saved `env:NAME` reference names, or the default one. */
function keyVariable(reference: string | undefined, fallback: string): string {
  return reference ? reference.slice("env:".length) : fallback;
}

const ModelList = z.object({ data: z.array(z.object({ id: z.string() }).passthrough()) })
  .passthrough();

/**
 * Looks for an OpenAI-compatible server on loopback (Ollama, LM Studio, llama.cpp) and returns
 * a config for its first model, or null. Each probe gives up after `timeoutMs`.
 */
export async function discoverLocalServer(
  fetcher: typeof fetch,
  options: { timeoutMs?: number; servers?: readonly { name: string; url: string }[] } = {},
): Promise<(ProviderConfig & { serverName: string }) | null> {
  const servers = options.servers ?? LOCAL_SERVERS;
  const probes = servers.map(async (server) => {
    const signal = AbortSignal.timeout(options.timeoutMs ?? 300);
    try {
      const res = await fetcher(`${server.url}/models`, { signal });
      if (!res.ok) return null;
      const parsed = ModelList.safeParse(await res.json());
      const first = parsed.success ? parsed.data.data[0]?.id : undefined;
      return first ? { server, model: first } : null;
    } catch {
      return null; // nothing listening, or not an OpenAI-compatible server
    }
  });
  for (const found of await Promise.all(probes)) {
    if (found) {
      return {
        provider: "openai",
        model: found.model,
        reasoning: null,
        apiKey: null,
        baseUrl: found.server.url,
        source: "discovered",
        serverName: found.server.name,
      };
    }
  }
  return null;
}

/** Builds the streaming client for a resolved config. */
export function createClient(
  config: ProviderConfig,
  deps: {
    fetch: typeof fetch;
    clock: Clock;
    random: () => number;
    retry?: RetryPolicy;
    sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  },
): ModelClient {
  const adapter = config.provider === "anthropic"
    ? anthropicAdapter({ apiKey: config.apiKey ?? "", baseUrl: config.baseUrl })
    : openaiAdapter({ apiKey: config.apiKey, baseUrl: config.baseUrl });
  return new StreamingClient(adapter, { ...deps, sleep: deps.sleep ?? abortableSleep });
}
