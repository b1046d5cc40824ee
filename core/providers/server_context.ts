// Where local OpenAI-compatible servers say how big their context window is:
// - llama.cpp `GET /props` at the server root (not under /v1): `default_generation_settings.n_ctx`,
//   the per-slot context a request gets (`-c` divided over `--parallel` slots). In router mode
//   (several models) the model is named by `?model=`; `autoload=false` keeps a probe from loading
//   one (github.com/ggml-org/llama.cpp tools/server/README.md, "GET /props", "Routing requests").
// - `GET /v1/models` entries: vLLM's `max_model_len` (the configured maximum); llama.cpp's
//   `meta.n_ctx` (per slot, newer builds) and `meta.n_ctx_train` (what the model was trained for);
//   `loaded_context_length`, `context_length`, `max_context_length` where servers put them.
// - LM Studio's own `GET /api/v0/models` (its OpenAI-compatible /v1/models has no sizes):
//   `loaded_context_length` for a loaded model, `max_context_length` for what it supports
//   (github.com/lmstudio-ai/docs 1_developer/2_rest/endpoints.md).
// A size the server runs with wins over a model's maximum, which is used only when nothing better
// is said: it is an upper bound (a model loaded with a smaller window overflows before it).
import { z } from "zod";

/** What to ask and how long to wait. */
export interface ServerContextQuery {
  /** OpenAI-compatible base URL, e.g. http://127.0.0.1:8080/v1. */
  readonly baseUrl: string;
  /** The model id requests will name. */
  readonly model: string;
  /** Longest wait for all answers together, ms. */
  readonly timeoutMs: number;
}

/**
 * The context window (tokens) a local server gives `model`, or null when it does not say.
 * Never throws, and answers within `timeoutMs`.
 */
export async function serverContextWindow(
  fetcher: typeof fetch,
  query: ServerContextQuery,
): Promise<number | null> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve(null);
    }, query.timeoutMs);
  });
  try {
    return await Promise.race([ask(fetcher, query, controller.signal), timeout]);
  } catch {
    return null; // every probe already swallows its own errors; this is belt and braces
  } finally {
    clearTimeout(timer);
    controller.abort(); // probes still running are not needed any more
  }
}

async function ask(
  fetcher: typeof fetch,
  query: ServerContextQuery,
  signal: AbortSignal,
): Promise<number | null> {
  const base = query.baseUrl.replace(/\/+$/, "");
  const root = base.replace(/\/v1$/, "");
  const model = encodeURIComponent(query.model);
  // All at once; read in order of trust, so a quick answer from a better source ends the wait.
  const props = getJson(fetcher, `${root}/props?model=${model}&autoload=false`, signal);
  const listed = getJson(fetcher, `${base}/models`, signal);
  const lmStudio = getJson(fetcher, `${root}/api/v0/models`, signal);
  const running = [
    async () => propsContext(await props),
    async () => entryContext(await listed, query.model, RUNNING_FIELDS),
    async () => entryContext(await lmStudio, query.model, ["loaded_context_length"]),
  ];
  const maxima = [
    async () => entryContext(await listed, query.model, MAXIMUM_FIELDS),
    async () => entryContext(await lmStudio, query.model, ["max_context_length"]),
  ];
  for (const source of [...running, ...maxima]) {
    const tokens = await source();
    if (tokens !== null) return tokens;
  }
  return null;
}

/** Fields of a model entry that say the window the server runs with. */
const RUNNING_FIELDS = ["max_model_len", "meta.n_ctx", "loaded_context_length"] as const;
/** Fields that say the most the model supports. */
const MAXIMUM_FIELDS = ["context_length", "max_context_length", "meta.n_ctx_train"] as const;

async function getJson(fetcher: typeof fetch, url: string, signal: AbortSignal): Promise<unknown> {
  try {
    const res = await fetcher(url, { signal });
    if (!res.ok) {
      await res.body?.cancel();
      return null;
    }
    return await res.json();
  } catch {
    return null; // not this kind of server, not listening, or too slow
  }
}

const Tokens = z.number().int().positive();

const Props = z.object({
  default_generation_settings: z.object({ n_ctx: Tokens }).passthrough(),
}).passthrough();

function propsContext(json: unknown): number | null {
  const parsed = Props.safeParse(json);
  return parsed.success ? parsed.data.default_generation_settings.n_ctx : null;
}

const Entry = z.object({ id: z.string(), aliases: z.array(z.string()).nullish() }).passthrough();
const ModelList = z.object({ data: z.array(z.unknown()) }).passthrough();

/** The first positive size among `fields` of `model`'s entry in a model list. */
function entryContext(
  json: unknown,
  model: string,
  fields: readonly string[],
): number | null {
  const entry = findEntry(json, model);
  if (!entry) return null;
  for (const field of fields) {
    const [head, tail] = field.split(".") as [string, string | undefined];
    const value = tail === undefined
      ? entry[head]
      : (entry[head] as Record<string, unknown> | null | undefined)?.[tail];
    const parsed = Tokens.safeParse(value);
    if (parsed.success) return parsed.data;
  }
  return null;
}

/**
 * `model`'s entry: by id or alias; a single entry also stands for any model, as llama.cpp
 * serving one model lists it under its file path whatever name requests use.
 */
function findEntry(json: unknown, model: string): Record<string, unknown> | null {
  const list = ModelList.safeParse(json);
  if (!list.success) return null;
  const entries = list.data.data.flatMap((e) => {
    const parsed = Entry.safeParse(e);
    return parsed.success ? [parsed.data] : [];
  });
  const match = entries.find((e) => e.id === model || e.aliases?.includes(model));
  if (match) return match;
  return entries.length === 1 && list.data.data.length === 1 ? entries[0]! : null;
}
