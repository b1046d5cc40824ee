import { raceAbort } from "../abort.ts";
import { BonsaiError, messageOf } from "../errors.ts";
import type { ContentBlock } from "../providers/types.ts";
import type { ToolCallRecord, ToolCallStatus } from "../storage/tool_calls.ts";
import type { BudgetLimits } from "./budget.ts";
import type { AgentDeps } from "./agent_deps.ts";
import type { AgentEvent } from "./events.ts";
import { denialReason, describeDecision } from "./permissions.ts";
import type { Tool, ToolContext, ToolResult } from "./tools/tool.ts";

type ToolCallBlock = Extract<ContentBlock, { type: "tool_call" }>;

/** Characters of a tool result kept in the searchable transcript text (the full result is stored too). */
const TRANSCRIPT_TEXT_CHARS = 4000;

/**
 * Runs the tool calls of one assistant message, in order: validates arguments (bad ones
 * become tool errors, never crashes), asks permission, applies the tool time limit, and
 * records calls, results, diffs and permission decisions.
 */
export class ToolRunner {
  readonly #deps: AgentDeps;
  #limits: BudgetLimits;
  readonly #callSeqs = new Map<string, number>();
  readonly #onTitle: (title: string) => void;

  constructor(deps: AgentDeps, limits: BudgetLimits, onTitle: (title: string) => void) {
    this.#deps = deps;
    this.#limits = limits;
    this.#onTitle = onTitle;
  }

  /** Uses new limits from the next call on. */
  setLimits(limits: BudgetLimits): void {
    this.#limits = limits;
  }

  /** Remembers the transcript entry of a call, for its tool_calls row. */
  rememberCall(callId: string, seq: number): void {
    this.#callSeqs.set(callId, seq);
  }

  /**
   * Runs every call; returns true when the user cancelled. Results go to the context as one
   * user message. If bonsai itself fails on the way (the database cannot be written, a front
   * end's renderer throws), every call is still settled and answered before the failure is
   * rethrown, so no call is left pending and the next request pairs every call with a result.
   */
  async runAll(
    calls: ToolCallBlock[],
    signal: AbortSignal,
    emit: (e: AgentEvent) => void,
  ): Promise<boolean> {
    const { runtime } = this.#deps;
    const results: ContentBlock[] = [];
    let failure: unknown = null;
    const settle = async (call: ToolCallBlock): Promise<ToolResult> => {
      if (failure !== null) {
        return this.#notRun(call, "error", `Not run: bonsai failed (${messageOf(failure)})`);
      }
      if (signal.aborted) return this.#notRun(call, "cancelled", "Not run: the user cancelled");
      try {
        return await this.#runOne(call, signal, emit);
      } catch (err) {
        failure ??= err;
        return this.#notRun(
          call,
          "error",
          `Stopped: bonsai failed while handling this call (${
            messageOf(err)
          }); whether it ran is unknown`,
        );
      }
    };
    // Calls run in order, except that consecutive calls of a concurrent tool run together.
    for (let i = 0; i < calls.length;) {
      let end = i + 1;
      if (this.#deps.tools.get(calls[i]!.name)?.concurrent) {
        while (end < calls.length && this.#deps.tools.get(calls[end]!.name)?.concurrent) end++;
      }
      const group = calls.slice(i, end);
      const settled = await Promise.all(group.map(settle));
      group.forEach((call, k) =>
        results.push({
          type: "tool_result",
          toolCallId: call.id,
          content: settled[k]!.output,
          isError: settled[k]!.isError,
        })
      );
      if (failure === null) {
        try {
          runtime.flush();
        } catch (err) {
          failure = err;
        }
      }
      i = end;
    }
    runtime.addContext({ role: "user", content: results }, runtime.lastSeq);
    if (failure !== null) throw failure;
    runtime.flush();
    return signal.aborted;
  }

  /** Records every call as not run (a budget ended the run) and answers them in the context. */
  skipAll(calls: ToolCallBlock[], reason: string): void {
    const results: ContentBlock[] = calls.map((call) => {
      this.#record(call, "cancelled", { output: reason, isError: true }, this.#deps.clock.now());
      return { type: "tool_result", toolCallId: call.id, content: reason, isError: true };
    });
    this.#deps.runtime.addContext({ role: "user", content: results }, this.#deps.runtime.lastSeq);
  }

  /** Records a call that did not run (or did not finish under bonsai's watch) with why. */
  #notRun(call: ToolCallBlock, status: ToolCallStatus, why: string): ToolResult {
    const result = { output: why, isError: true };
    this.#record(call, status, result, this.#deps.clock.now());
    return result;
  }

  async #runOne(
    call: ToolCallBlock,
    signal: AbortSignal,
    emit: (e: AgentEvent) => void,
  ): Promise<ToolResult> {
    const { runtime, clock } = this.#deps;
    const startedAt = clock.now();
    const tool = this.#deps.tools.get(call.name);
    const parsed = tool ? tool.schema.safeParse(call.input) : null;
    const summary = tool && parsed?.success
      ? tool.describe(parsed.data)
      : call.rawInput.slice(0, 120);
    // Pending until it may run (a permission question can be open for long), then running.
    this.#record(call, tool?.permission === "none" ? "running" : "pending", null, startedAt);
    emit({ type: "tool_start", callId: call.id, name: call.name, summary });
    runtime.flush();
    let status: ToolCallStatus;
    let result: ToolResult;
    let ranFrom = startedAt;
    if (!tool) {
      [status, result] = [
        "error",
        error(`Unknown tool '${call.name}'. Available: ${this.#deps.tools.names.join(", ")}`),
      ];
    } else if (call.input === null) {
      [status, result] = [
        "error",
        error(`The arguments were not valid JSON: ${call.rawInput.slice(0, 300)}`),
      ];
    } else if (!parsed!.success) {
      const issues = parsed!.error.issues.map((i) =>
        `${i.path.join(".") || "(arguments)"}: ${i.message}`
      );
      [status, result] = [
        "error",
        error(`Invalid arguments for ${call.name}: ${issues.join("; ")}`),
      ];
    } else {
      [status, result, ranFrom] = await this.#execute(
        tool,
        call,
        parsed!.data,
        { summary, startedAt },
        signal,
        emit,
      );
    }
    // The duration is the tool's own: time spent waiting for a person's answer is not in it.
    const endedAt = clock.now();
    this.#record(call, status, result, ranFrom, endedAt);
    runtime.addMessage({
      role: "tool",
      kind: "tool_result",
      text: result.output.length > TRANSCRIPT_TEXT_CHARS
        ? result.output.slice(0, TRANSCRIPT_TEXT_CHARS)
        : result.output,
      toolCallId: call.id,
      toolName: call.name,
      toolResult: result.fullOutput ?? result.output,
      isError: result.isError,
    });
    emit({
      type: "tool_end",
      callId: call.id,
      name: call.name,
      status,
      summary: result.summary ?? (result.isError ? "error" : "ok"),
      durationMs: endedAt - ranFrom,
    });
    return result;
  }

  async #execute(
    tool: Tool,
    call: ToolCallBlock,
    args: unknown,
    { summary, startedAt }: { summary: string; startedAt: number },
    signal: AbortSignal,
    emit: (e: AgentEvent) => void,
  ): Promise<[ToolCallStatus, ToolResult, ranFrom: number]> {
    const { runtime } = this.#deps;
    let ranFrom = startedAt;
    if (tool.permission !== "none") {
      const request = {
        tool: tool.name,
        kind: tool.permission,
        summary,
        subject: tool.subject?.(args),
      };
      const decision = await this.#deps.permissions.decide(request, signal);
      const text = describeDecision(request, decision);
      runtime.addMessage({
        role: "system",
        kind: "permission",
        text,
        toolCallId: call.id,
        toolName: tool.name,
      });
      emit({ type: "permission", text, granted: decision.granted });
      if (decision.by === "cancelled") {
        return [
          "cancelled",
          error("Not run: the user cancelled before answering the permission request"),
          ranFrom,
        ];
      }
      if (!decision.granted) return ["denied", error(denialReason(request, decision)), ranFrom];
      ranFrom = this.#deps.clock.now();
      this.#record(call, "running", null, ranFrom);
      runtime.flush();
    }
    // A concurrent tool (task) is bounded by its subagent's own budgets and time limits.
    const timeoutMs = tool.concurrent ? null : this.#limits.toolTimeoutMs ?? null;
    const controller = new AbortController();
    const onAbort = () => controller.abort("cancelled");
    signal.addEventListener("abort", onAbort, { once: true });
    let timedOut = false;
    const timer = timeoutMs === null ? undefined : setTimeout(() => {
      timedOut = true;
      controller.abort("timeout");
    }, timeoutMs);
    try {
      const ctx = this.#context(call.id, controller.signal, timeoutMs, emit);
      // A tool that stops itself on abort is awaited (its partial output is worth keeping).
      const running = tool.run(args, ctx);
      const result = await (tool.stopsOnAbort ? running : raceAbort(running, controller.signal));
      if (result.timedOut || timedOut) return ["timeout", { ...result, isError: true }, ranFrom];
      if (signal.aborted) return ["cancelled", { ...result, isError: true }, ranFrom];
      return [result.isError ? "error" : "ok", result, ranFrom];
    } catch (err) {
      if (timedOut) {
        return [
          "timeout",
          error(`${tool.name} timed out after ${timeoutMs} ms and was stopped`),
          ranFrom,
        ];
      }
      if (signal.aborted) {
        return ["cancelled", error(`${tool.name} was cancelled by the user`), ranFrom];
      }
      const message = err instanceof BonsaiError
        ? err.message
        : `${tool.name} failed: ${err instanceof Error ? err.message : err}`;
      return ["error", error(message), ranFrom];
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    }
  }

  #context(
    callId: string,
    signal: AbortSignal,
    timeoutMs: number | null,
    emit: (e: AgentEvent) => void,
  ): ToolContext {
    const { runtime, clock } = this.#deps;
    return {
      root: this.#deps.root,
      callId,
      signal,
      clock,
      env: this.#deps.env,
      timeoutMs,
      files: {
        knownHash: (rel) => runtime.knownHash(rel),
        recordRead: (r) =>
          runtime.recordRead({
            path: r.rel,
            startLine: r.startLine,
            endLine: r.endLine,
            contentHash: r.contentHash,
            fileHash: r.fileHash,
            callId,
            readAt: clock.now(),
          }),
        recordWrite: (rel, hash) => runtime.recordWrite(rel, hash, clock.now()),
      },
      workspace: this.#deps.workspace,
      peers: this.#deps.peers,
      setTitle: (title) => {
        // A title the user chose wins over the agent's; either way it marks an episode.
        if (runtime.session.titleSource !== "user") runtime.setTitle(title, "agent");
        this.#onTitle(title);
      },
      setPlan: (plan, todos) => runtime.setPlan({ plan, todos }),
      recall: this.#deps.recall,
      subagents: this.#deps.subagents ?? null,
      onUsage: (entry) => emit({ type: "usage", entry }),
    };
  }

  #record(
    call: ToolCallBlock,
    status: ToolCallStatus,
    result: ToolResult | null,
    startedAt: number,
    endedAt?: number,
  ) {
    const record: ToolCallRecord = {
      callId: call.id,
      messageSeq: this.#callSeqs.get(call.id) ?? null,
      toolName: call.name,
      args: call.rawInput || "{}",
      status,
      result: result ? (result.fullOutput ?? result.output) : null,
      diff: result?.diff ?? null,
      // Set only by a write or edit that changed the file (even if the turn was cancelled after).
      file: result?.file ?? null,
      exitCode: result?.exitCode ?? null,
      startedAt,
      endedAt: endedAt ?? null,
      durationMs: endedAt === undefined ? null : endedAt - startedAt,
    };
    this.#deps.runtime.putToolCall(record);
  }
}

function error(message: string): ToolResult {
  return { output: message, isError: true, summary: "error" };
}
