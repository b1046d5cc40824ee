import type {
  AssistantMessage,
  AttemptRecord,
  ChatMessage,
  ContentBlock,
  ProviderFailure,
  Reasoning,
} from "../providers/types.ts";
import type { SessionRuntime } from "../session/runtime.ts";
import type { Lane, LedgerEntry } from "../storage/ledger.ts";
import { type BudgetLimits, checkBudgets, costEnforcement, type Exhaustion } from "./budget.ts";
import { CacheTracker } from "./cache_telemetry.ts";
import { ledgerEntryFor, ledgerTotals } from "./ledger_entry.ts";
import { ContextManager, type ContextSettings } from "./context_manager.ts";
import { type ContextReport, contextReport } from "./context_report.ts";
import { episodeSummary } from "./summary.ts";
import { ToolRunner } from "./tool_runner.ts";
import type { AgentDeps } from "./agent_deps.ts";
import type { AgentEvent } from "./events.ts";

export type { AgentDeps, AgentEvent };

/** How a run ended. */
export type RunStatus = "completed" | "budget_exhausted" | "cancelled" | "failed";

/** Token totals of a run, by kind. */
export interface RunUsageTotals {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly reasoningTokens: number;
}

/** The outcome of one run (a prompt and everything the agent did for it). */
export interface RunResult {
  readonly status: RunStatus;
  /** The final assistant text (or what streamed before the end). */
  readonly result: string;
  /** Model turns completed in this run. */
  readonly turns: number;
  readonly usage: RunUsageTotals;
  readonly cost: {
    readonly usd: number;
    readonly exact: boolean;
    readonly unpricedAttempts: number;
    /** Present when a session cost limit is set: whether it could be enforced exactly. */
    readonly enforcement: { readonly enforced: boolean; readonly reason: string | null } | null;
  };
  readonly budgetExhaustion: Exhaustion | null;
  readonly error: { readonly kind: string; readonly message: string } | null;
  /** The ledger rows this run produced. */
  readonly ledger: readonly LedgerEntry[];
}

/** The least output a request asks for, however full the window (the server may still refuse). */
const MIN_OUTPUT_TOKENS = 256;

/** Fixed settings of an agent. */
export interface AgentConfig {
  readonly provider: string;
  readonly model: string;
  readonly reasoning: Reasoning | null;
  readonly maxOutputTokens: number;
  readonly lane: Lane;
  /** The session usage rows are filed under (a subagent's go to its parent's), default its own. */
  readonly ledgerSessionId?: string;
  readonly systemPrompt: string;
  readonly limits: BudgetLimits;
  readonly context: ContextSettings;
}

type TurnOutcome =
  | { kind: "ok"; message: AssistantMessage }
  | {
    kind: "stopped";
    status: RunStatus;
    failure: ProviderFailure;
    exhaustion: Exhaustion | null;
    text: string;
    /** The model's reply was complete (it counts as a turn) although a budget ended the run. */
    completed?: boolean;
  };

/**
 * The agent loop: model turn, then the tool calls it asked for (in order), then the next
 * turn, until the model stops, the user cancels, a budget ends it, or the provider fails.
 * Everything is recorded on the session runtime as it happens and flushed at every step.
 */
export class Agent {
  readonly #deps: AgentDeps;
  #config: AgentConfig;
  readonly #cache = new CacheTracker();
  readonly #tools: ToolRunner;
  readonly #context: ContextManager;

  constructor(deps: AgentDeps, config: AgentConfig) {
    this.#deps = deps;
    this.#config = config;
    this.#tools = new ToolRunner(deps, config.limits, (title) => this.#onTitle(title));
    this.#context = new ContextManager(
      deps.runtime,
      config.context,
      { system: config.systemPrompt, tools: deps.tools.specs },
      (transcript) => this.#summarise(transcript),
    );
  }

  /** Where the context window goes right now (/ctx). */
  contextReport(): ContextReport {
    const { messages, summarisedItems, settings } = this.#context.peek();
    return contextReport({
      system: this.#config.systemPrompt,
      tools: this.#deps.tools.specs,
      messages,
      window: settings.window,
      compactAt: settings.compactAt,
      summarisedItems,
    });
  }

  /** Applies changed budget settings from the next run on (REPL /settings). */
  setLimits(limits: BudgetLimits): void {
    this.#config = { ...this.#config, limits };
    this.#tools.setLimits(limits);
  }

  /** The model and provider this agent talks to. */
  get model(): { provider: string; model: string } {
    return { provider: this.#config.provider, model: this.#config.model };
  }

  /**
   * Runs one prompt to the end; with a null prompt, goes on from the context as it stands
   * (a wake put a note there). Never throws for provider or tool failures.
   */
  async run(
    prompt: string | null,
    options: { signal: AbortSignal; onEvent?: (e: AgentEvent) => void },
  ): Promise<RunResult> {
    const { runtime, clock } = this.#deps;
    const emit = options.onEvent ?? (() => {});
    const startedAt = clock.now();
    const ledger: LedgerEntry[] = [];
    const record = (e: AgentEvent) => {
      if (e.type === "usage") ledger.push(e.entry);
      emit(e);
    };
    runtime.beginRun(startedAt);
    if (prompt !== null) {
      const userSeq = runtime.addMessage({ role: "user", text: prompt });
      runtime.addContext({ role: "user", content: [{ type: "text", text: prompt }] }, userSeq);
      deriveTitle(runtime, prompt);
    }
    if (!runtime.hasEpisode) runtime.beginEpisode("start", null);
    runtime.flush();
    let turns = 0;
    let lastText = "";
    let end: Pick<RunResult, "status" | "budgetExhaustion" | "error">;
    try {
      for (;;) {
        if (options.signal.aborted) {
          end = stopped("cancelled", null, { kind: "cancelled", message: "cancelled by the user" });
          break;
        }
        // A turn boundary: what peers sent meanwhile joins the context here (P3).
        this.#deps.takeNotices?.();
        const exhaustion = checkBudgets(
          this.#config.limits,
          { turns, startedAt, now: clock.now() },
          this.#deps.sessionUsage(),
        );
        if (exhaustion) {
          end = stopped("budget_exhausted", exhaustion, null);
          break;
        }
        record({ type: "turn_start", turn: turns + 1 });
        const outcome = await this.#modelTurn(options.signal, record);
        if (outcome.kind === "stopped") {
          if (outcome.completed) turns++;
          lastText = outcome.text || lastText;
          end = stopped(
            outcome.status,
            outcome.exhaustion,
            outcome.status === "budget_exhausted"
              ? null
              : { kind: outcome.failure.kind, message: outcome.failure.message },
          );
          break;
        }
        turns++;
        lastText = textOf(outcome.message.content) || lastText;
        const calls = outcome.message.content.filter((b) => b.type === "tool_call");
        if (calls.length === 0) {
          end = stopped("completed", null, null);
          break;
        }
        const cancelled = await this.#tools.runAll(calls, options.signal, record);
        if (cancelled) {
          end = stopped("cancelled", null, { kind: "cancelled", message: "cancelled by the user" });
          break;
        }
      }
    } finally {
      runtime.endRun(clock.now());
      runtime.flush();
    }
    return this.#result(end, lastText, turns, ledger);
  }

  /** One model call with retries; records the transcript, context and ledger as it streams. */
  async #modelTurn(signal: AbortSignal, emit: (e: AgentEvent) => void): Promise<TurnOutcome> {
    const { runtime, client, clock } = this.#deps;
    const { limits } = this.#config;
    const view = await this.#context.view(clock);
    const messages: ChatMessage[] = view.messages;
    // Never ask for more output than the window has room for after the prompt: servers with
    // a small window (a local llama.cpp at 16k) refuse or truncate otherwise.
    const maxOutputTokens = Math.min(
      this.#config.maxOutputTokens,
      Math.max(MIN_OUTPUT_TOKENS, this.#config.context.window - view.estimatedTokens),
    );
    const telemetry = this.#cache.observe(
      this.#config.systemPrompt,
      this.#deps.tools.specs,
      messages,
      clock.now(),
    );
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    // Per-attempt watchdogs: generation time and streamed characters (B2).
    let watchdog: Exhaustion | null = null;
    let attemptChars = 0;
    let attemptTimer: ReturnType<typeof setTimeout> | undefined;
    const armTimer = () => {
      clearTimeout(attemptTimer);
      if (limits.maxGenerationMs === undefined) return;
      const armedAt = clock.now();
      attemptTimer = setTimeout(() => {
        // The timer fired at the limit; the clock may say more (never less).
        const used = Math.max(limits.maxGenerationMs!, clock.now() - armedAt);
        watchdog = { reason: "generation_time", limit: limits.maxGenerationMs!, used };
        controller.abort("generation_time");
      }, limits.maxGenerationMs);
    };
    const countChars = (n: number) => {
      attemptChars += n;
      if (
        limits.maxOutputChars !== undefined && attemptChars > limits.maxOutputChars && !watchdog
      ) {
        watchdog = { reason: "output_chars", limit: limits.maxOutputChars, used: attemptChars };
        controller.abort("output_chars");
      }
    };
    let textSeq: number | null = null;
    let thinkingSeq: number | null = null;
    const append = (kind: "text" | "thinking", delta: string) => {
      let seq = kind === "text" ? textSeq : thinkingSeq;
      if (seq === null) {
        seq = runtime.addMessage({ role: "assistant", kind, text: "", status: "streaming" });
        if (kind === "text") textSeq = seq;
        else thinkingSeq = seq;
      }
      runtime.updateMessage(seq, { text: runtime.messageText(seq) + delta });
    };
    const settle = (status: "complete" | "cancelled" | "failed") => {
      for (const seq of [textSeq, thinkingSeq]) {
        if (seq !== null) runtime.updateMessage(seq, { status });
      }
    };
    armTimer();
    try {
      for await (
        const ev of client.stream({
          model: this.#config.model,
          system: this.#config.systemPrompt,
          messages,
          tools: this.#deps.tools.specs,
          maxOutputTokens,
          reasoning: this.#config.reasoning,
          cacheKey: runtime.session.cacheKey,
          signal: controller.signal,
        })
      ) {
        switch (ev.type) {
          case "text_delta":
            append("text", ev.text);
            countChars(ev.text.length);
            emit({ type: "text", text: ev.text });
            break;
          case "thinking_delta":
            append("thinking", ev.text);
            countChars(ev.text.length);
            emit({ type: "thinking", text: ev.text });
            break;
          case "tool_call_delta":
            countChars(ev.partialJson.length);
            break;
          case "tool_call_start":
            break;
          case "attempt": {
            const entry = this.#ledgerEntry(ev.record, telemetry);
            const ref = runtime.addLedger(entry);
            for (const seq of [textSeq, thinkingSeq]) {
              if (seq !== null) runtime.updateMessage(seq, {}, ref);
            }
            emit({ type: "usage", entry });
            if (ev.record.failure) {
              // This attempt's partial output stays in the transcript, marked failed.
              settle(ev.record.failure.kind === "cancelled" ? "cancelled" : "failed");
              textSeq = thinkingSeq = null;
            }
            runtime.flush();
            break;
          }
          case "retry":
            runtime.addMessage({
              role: "system",
              kind: "notice",
              text: `Provider error (${ev.failure.message}); retrying in ${
                (ev.delayMs / 1000).toFixed(1)
              }s`,
            });
            emit({
              type: "retry",
              attempt: ev.attempt,
              delayMs: ev.delayMs,
              message: ev.failure.message,
            });
            attemptChars = 0;
            armTimer();
            break;
          case "done": {
            settle("complete");
            this.#recordAssistant(ev.message);
            if (watchdog) {
              // The reply finished inside the chunk that broke the limit: keep it, run nothing more.
              const calls = ev.message.content.filter((b) => b.type === "tool_call");
              if (calls.length) {
                this.#tools.skipAll(
                  calls,
                  `Not run: the ${(watchdog as Exhaustion).reason} budget was exhausted`,
                );
              }
              runtime.flush();
              const failure = {
                kind: "cancelled",
                message: "budget exhausted",
                status: null,
                errorType: null,
                retryable: false,
                rateLimited: false,
                spendLimit: false,
                retryAfterMs: null,
              } as const;
              return {
                kind: "stopped",
                status: "budget_exhausted",
                failure,
                exhaustion: watchdog,
                text: textOf(ev.message.content),
                completed: true,
              };
            }
            runtime.flush();
            return { kind: "ok", message: ev.message };
          }
          case "error":
            return this.#stop(ev.failure, ev.partial, watchdog);
        }
      }
      throw new TypeError("model stream ended without done or error");
    } finally {
      clearTimeout(attemptTimer);
      signal.removeEventListener("abort", onAbort);
    }
  }

  /** The assistant's final message: tool-call entries in the transcript, the message in the context. */
  #recordAssistant(message: AssistantMessage): void {
    const { runtime } = this.#deps;
    let lastSeq: number | null = null;
    for (const b of message.content) {
      if (b.type !== "tool_call") continue;
      const tool = this.#deps.tools.get(b.name);
      const parsed = tool?.schema.safeParse(b.input);
      const summary = parsed?.success ? tool!.describe(parsed.data) : b.rawInput.slice(0, 200);
      lastSeq = runtime.addMessage({
        role: "assistant",
        kind: "tool_call",
        text: `${b.name} ${summary}`,
        toolCallId: b.id,
        toolName: b.name,
        toolArgs: b.rawInput || "{}",
      });
      this.#tools.rememberCall(b.id, lastSeq);
    }
    const content = message.content.filter((b) => b.type !== "text" || b.text !== "");
    runtime.addContext({ role: "assistant", content }, lastSeq ?? runtime.lastSeq);
  }

  /** Ends a turn that failed: keep the partial text (in the context too), type the reason. */
  #stop(
    failure: ProviderFailure,
    partial: AssistantMessage,
    watchdog: Exhaustion | null,
  ): TurnOutcome {
    const { runtime } = this.#deps;
    const text = textOf(partial.content);
    if (text) {
      runtime.addContext({ role: "assistant", content: [{ type: "text", text }] }, runtime.lastSeq);
    }
    if (watchdog) {
      return { kind: "stopped", status: "budget_exhausted", failure, exhaustion: watchdog, text };
    }
    if (failure.kind === "cancelled") {
      return { kind: "stopped", status: "cancelled", failure, exhaustion: null, text };
    }
    runtime.addMessage({ role: "system", kind: "error", text: failure.message, isError: true });
    runtime.flush();
    if (failure.rateLimited) {
      return {
        kind: "stopped",
        status: "budget_exhausted",
        failure,
        exhaustion: { reason: "provider_rate_limit", limit: 0, used: 0 },
        text,
      };
    }
    return { kind: "stopped", status: "failed", failure, exhaustion: null, text };
  }

  /** set_session_title: an episode boundary (L4), unless the current episode has no title yet. */
  #onTitle(title: string): void {
    const { runtime } = this.#deps;
    const start = runtime.episodeStartSeq;
    const current = runtime.context.filter((c) => (c.messageSeq ?? 0) >= start).map((c) =>
      c.message
    );
    const hasWork = current.some((m) => m.role === "assistant");
    if (runtime.currentEpisodeTitle === null || !hasWork) runtime.titleEpisode(title);
    else if (runtime.currentEpisodeTitle !== title) {
      runtime.beginEpisode("title", title, episodeSummary(current));
    }
  }

  /** Model-written compaction (lane `compaction`); null when the call failed (the rules' summary is used). */
  async #summarise(transcript: string): Promise<{ text: string; ledgerId: number | null } | null> {
    const { runtime, client } = this.#deps;
    const messages: ChatMessage[] = [{
      role: "user",
      content: [{ type: "text", text: transcript }],
    }];
    let text = "";
    let ref: { id: number | null } | null = null;
    for await (
      const ev of client.stream({
        model: this.#config.model,
        system:
          "You summarise the earlier part of a coding session so the work can continue without it. Keep: the user's requests and standing instructions, decisions made, files changed and why, commands run and their outcomes, errors, and what is still open. Be factual and concise; use short bullet points.",
        messages,
        tools: [],
        maxOutputTokens: 2_000,
        reasoning: null,
        cacheKey: runtime.session.cacheKey,
        signal: new AbortController().signal,
      })
    ) {
      if (ev.type === "attempt") {
        ref = runtime.addLedger(ledgerEntryFor(ev.record, this.#meta("compaction")));
      } else if (ev.type === "done") {
        text = textOf(ev.message.content);
      } else if (ev.type === "error") {
        return null;
      }
    }
    runtime.flush();
    return text ? { text, ledgerId: ref?.id ?? null } : null;
  }

  #ledgerEntry(
    record: AttemptRecord,
    telemetry: { prefixHash: string; prefixRewrite: boolean },
  ): LedgerEntry {
    const u = record.usage;
    const prompt = u.inputTokens + u.cacheReadTokens + u.cacheWrite5mTokens + u.cacheWrite1hTokens;
    return ledgerEntryFor(record, this.#meta(this.#config.lane), {
      ...telemetry,
      expectedCacheReadPct: record.failure ? null : this.#cache.settle(prompt),
    });
  }

  #meta(lane: Lane) {
    return {
      sessionId: this.#config.ledgerSessionId ?? this.#deps.runtime.id,
      projectId: this.#deps.projectId,
      lane,
      provider: this.#config.provider,
    };
  }

  #result(
    end: Pick<RunResult, "status" | "budgetExhaustion" | "error">,
    text: string,
    turns: number,
    ledger: LedgerEntry[],
  ): RunResult {
    const totals = ledgerTotals(ledger);
    return {
      ...end,
      result: text,
      turns,
      usage: totals.usage,
      cost: {
        ...totals.cost,
        enforcement: costEnforcement(this.#config.limits, this.#deps.sessionUsage()),
      },
      ledger,
    };
  }
}

function stopped(
  status: RunStatus,
  budgetExhaustion: Exhaustion | null,
  error: RunResult["error"],
): Pick<RunResult, "status" | "budgetExhaustion" | "error"> {
  return { status, budgetExhaustion, error };
}

function textOf(content: readonly ContentBlock[]): string {
  return content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
}

/** L4: the first prompt names the session unless someone already did. */
function deriveTitle(runtime: SessionRuntime, prompt: string): void {
  if (runtime.session.titleSource !== "default") return;
  const line = prompt.split("\n").map((l) => l.trim()).find((l) => l !== "") ?? "";
  if (!line) return;
  const flat = line.replace(/\s+/g, " ");
  const title = flat.length <= 60 ? flat : `${flat.slice(0, 60).replace(/\s+\S*$/, "")}…`;
  runtime.setTitle(title, "derived");
}
