import type { ChatMessage, ContentBlock, ToolSpec } from "../providers/types.ts";
import { estimateTextTokens, estimateTokens } from "../session/context_codec.ts";
import type { ContextEntry, SessionRuntime } from "../session/runtime.ts";
import type { Compaction } from "../storage/compactions.ts";
import { planBlock, ruleSummary } from "./summary.ts";
import { pairToolResults } from "./tool_pairing.ts";

/** How the context is kept within the model's window (X6). */
export interface ContextSettings {
  /** The model's input window, tokens. */
  readonly window: number;
  /** Compact when the estimate passes this share of the window (default 0.7). */
  readonly compactAt: number;
  /** Share of the window the recent turns keep, in full, after compacting. */
  readonly keepFraction: number;
  /** Tokens kept free for the reply. */
  readonly reserveTokens: number;
  /** rule: deterministic summary; model: a model writes it (lane `compaction`). */
  readonly mode: "rule" | "model";
}

/** What the model is sent this turn. */
export interface ContextView {
  readonly messages: ChatMessage[];
  readonly estimatedTokens: number;
  /** A compaction made for this view, or null. */
  readonly compaction: Compaction | null;
}

/** Writes a summary with the model; returns its text and the ledger row id, or null when it failed. */
export type ModelSummariser = (
  transcript: string,
) => Promise<{ text: string; ledgerId: number | null } | null>;

/** Longest tool result kept in full once the context is over budget. */
const CLIP_CHARS = 1_500;

/**
 * Builds the model-facing messages: recent turns in full, older turns as the latest
 * compaction's summary (plus the current plan). When the estimate passes the threshold, a
 * new compaction moves the cut later. Compaction never deletes or copies history.
 */
export class ContextManager {
  readonly #runtime: SessionRuntime;
  readonly #settings: ContextSettings;
  readonly #fixedTokens: number;
  readonly #summarise: ModelSummariser | null;

  constructor(
    runtime: SessionRuntime,
    settings: ContextSettings,
    fixed: { system: string; tools: readonly ToolSpec[] },
    summarise: ModelSummariser | null = null,
  ) {
    this.#runtime = runtime;
    this.#settings = settings;
    this.#fixedTokens = estimateTextTokens(fixed.system) +
      estimateTextTokens(JSON.stringify(fixed.tools));
    this.#summarise = summarise;
  }

  /** What the next request would carry now, without compacting (for /ctx). */
  peek(): { messages: ChatMessage[]; summarisedItems: number; settings: ContextSettings } {
    const latest = this.#runtime.latestCompaction;
    const messages = this.#assemble(this.#runtime.context, latest).messages;
    const summarisedItems = latest
      ? this.#runtime.context.filter((e) => e.seq <= latest.toSeq).length
      : 0;
    return { messages, summarisedItems, settings: this.#settings };
  }

  /** The messages for the next request. */
  async view(clock: { now(): number }): Promise<ContextView> {
    const entries = this.#runtime.context;
    const s = this.#settings;
    let compaction: Compaction | null = null;
    let view = this.#assemble(entries, this.#runtime.latestCompaction);
    if (view.tokens > s.compactAt * s.window) {
      const cut = this.#cut(entries);
      const latest = this.#runtime.latestCompaction;
      if (cut !== null && (latest === null || entries[cut - 1]!.seq > latest.toSeq)) {
        compaction = await this.#compact(entries, cut, view.tokens, clock.now());
        view = this.#assemble(entries, compaction);
      }
    }
    const limit = s.window - s.reserveTokens;
    const messages = view.tokens > limit ? clip(view.messages, view.tokens - limit) : view.messages;
    return { messages, estimatedTokens: this.#fixedTokens + sumTokens(messages), compaction };
  }

  /** Summary message (if any) plus the entries after the compaction. */
  #assemble(entries: readonly ContextEntry[], compaction: Compaction | null) {
    const kept = compaction ? entries.filter((e) => e.seq > compaction.toSeq) : entries;
    const messages: ChatMessage[] = kept.map((e) => e.message);
    let tokens = this.#fixedTokens + kept.reduce((a, e) => a + e.tokensEst, 0);
    if (compaction) {
      const plan = planBlock(this.#runtime.plan);
      const text = plan ? `${compaction.summary}\n\n${plan}` : compaction.summary;
      const summary: ChatMessage = { role: "user", content: [{ type: "text", text }] };
      messages.unshift(summary);
      tokens += estimateTokens(summary);
    }
    return { messages: pairToolResults(messages), tokens };
  }

  /**
   * Where the kept part starts: the latest point that keeps the recent turns within their
   * share of the window, moved forward to where a message can start a conversation (an
   * assistant turn or a user prompt — never a tool result cut off from its call).
   */
  #cut(entries: readonly ContextEntry[]): number | null {
    const budget = this.#settings.keepFraction * this.#settings.window;
    let tokens = 0;
    let start = entries.length;
    while (start > 0 && tokens + entries[start - 1]!.tokensEst <= budget) {
      tokens += entries[--start]!.tokensEst;
    }
    if (start === entries.length) start = entries.length - 1; // the newest message alone is too big: keep it anyway
    for (let i = Math.max(start, 1); i < entries.length; i++) {
      if (canStart(entries[i]!.message)) return i;
    }
    return null;
  }

  async #compact(
    entries: readonly ContextEntry[],
    cut: number,
    before: number,
    now: number,
  ): Promise<Compaction> {
    const replaced = entries.slice(0, cut);
    const range = { from: replaced[0]!.seq, to: replaced[replaced.length - 1]!.seq };
    const rules = ruleSummary(replaced.map((e) => e.message), range);
    let summary = rules;
    let method: "rule" | "model" = "rule";
    let ledgerId: number | null = null;
    if (this.#settings.mode === "model" && this.#summarise) {
      const written = await this.#summarise(
        renderTranscript(replaced.map((e) => e.message), this.#settings.window),
      );
      if (written) {
        // The rules' part with the verbatim first instruction stays; the model's prose follows it.
        summary = `${rules}\n\nSummary written by the model:\n${written.text}`;
        method = "model";
        ledgerId = written.ledgerId;
      }
    }
    const after = this.#fixedTokens + estimateTextTokens(summary) +
      entries.slice(cut).reduce((a, e) => a + e.tokensEst, 0);
    const compaction = this.#runtime.addCompaction({
      method,
      fromSeq: range.from,
      toSeq: range.to,
      summary,
      tokensBefore: before,
      tokensAfter: after,
      ledgerId,
      createdAt: now,
    });
    this.#runtime.beginEpisode("compaction", null, null);
    return compaction;
  }
}

/** A message a kept part may start with: assistant turns, or user turns without tool results. */
function canStart(m: ChatMessage): boolean {
  return m.role === "assistant" || !m.content.some((b) => b.type === "tool_result");
}

function sumTokens(messages: readonly ChatMessage[]): number {
  return messages.reduce((a, m) => a + estimateTokens(m), 0);
}

/** Shortens tool results (oldest first) until about `excess` tokens are saved; the stored history is untouched. */
function clip(messages: ChatMessage[], excess: number): ChatMessage[] {
  let saved = 0;
  return messages.map((m) => {
    if (
      saved >= excess ||
      !m.content.some((b) => b.type === "tool_result" && b.content.length > CLIP_CHARS)
    ) return m;
    const content = m.content.map((b): ContentBlock => {
      if (saved >= excess || b.type !== "tool_result" || b.content.length <= CLIP_CHARS) return b;
      const kept = `${b.content.slice(0, CLIP_CHARS)}\n[... ${
        b.content.length - CLIP_CHARS
      } characters left out to fit the context; the full result is stored in the session]`;
      saved += estimateTextTokens(b.content) - estimateTextTokens(kept);
      return { ...b, content: kept };
    });
    return { role: m.role, content };
  });
}

/** Plain text of messages for a model-written summary, trimmed to fit the window. */
function renderTranscript(messages: readonly ChatMessage[], window: number): string {
  const lines: string[] = [];
  for (const m of messages) {
    for (const b of m.content) {
      if (b.type === "text") lines.push(`${m.role === "user" ? "USER" : "ASSISTANT"}: ${b.text}`);
      else if (b.type === "tool_call") {
        lines.push(`TOOL CALL ${b.name}: ${b.rawInput.slice(0, 500)}`);
      } else if (b.type === "tool_result") {
        lines.push(`TOOL RESULT${b.isError ? " (error)" : ""}: ${b.content.slice(0, 800)}`);
      }
    }
  }
  const text = lines.join("\n");
  const maxChars = Math.floor(window * 0.5 * 3.5);
  return text.length > maxChars
    ? `[earlier part left out]\n${text.slice(text.length - maxChars)}`
    : text;
}
