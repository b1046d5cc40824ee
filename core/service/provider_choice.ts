import { BonsaiError } from "../errors.ts";
import type { Env } from "../home.ts";
import {
  discoverLocalServer,
  NO_PROVIDER_HELP,
  type PinnedProvider,
  type ProviderConfig,
  type ProviderFlags,
  resolveProvider,
} from "../providers/config.ts";
import { serverContextWindow } from "../providers/server_context.ts";
import { findModel } from "../usage/model_catalog.ts";
import type { SavedSettings } from "./settings_catalog.ts";

/** Longest a session start waits for a local server to say its context window. */
const WINDOW_PROBE_MS = 1500;

/**
 * The provider a session runs with (R2): flags, environment and saved settings, with a
 * resumed session's pinned choice first; with nothing configured, a local OpenAI-compatible
 * server if one answers. Throws CONFIG saying exactly what to set. For a model bonsai does
 * not know on an OpenAI-compatible server other than OpenAI's (llama.cpp, vLLM, LM Studio),
 * the server is asked for its context window, unless the person gave one.
 */
export async function chooseProvider(
  deps: { readonly env: Env; readonly fetch: typeof fetch },
  input: {
    flags: ProviderFlags;
    pinned: PinnedProvider | null;
    saved: SavedSettings;
    /** `--context-window`: the server need not be asked. */
    windowFlag?: number;
  },
): Promise<ProviderConfig> {
  const config = resolveProvider({
    env: deps.env,
    flags: input.flags,
    saved: input.saved.provider,
    pinned: input.pinned,
  }) ?? await discovered(deps, input.flags);
  const ask = config.provider === "openai" &&
    !/^https:\/\/api\.openai\.com(\/|$)/.test(config.baseUrl) &&
    input.windowFlag === undefined && input.saved.context.window === undefined &&
    findModel(config.model) === null;
  if (!ask) return config;
  const window = await serverContextWindow(deps.fetch, {
    baseUrl: config.baseUrl,
    model: config.model,
    timeoutMs: WINDOW_PROBE_MS,
  });
  return { ...config, contextWindow: window };
}

async function discovered(
  deps: { readonly fetch: typeof fetch },
  flags: ProviderFlags,
): Promise<ProviderConfig> {
  const local = await discoverLocalServer(deps.fetch);
  if (!local) throw new BonsaiError("CONFIG", NO_PROVIDER_HELP);
  return flags.model ? { ...local, model: flags.model } : local;
}
