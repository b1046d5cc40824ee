import type { ContentBlock } from "../providers/types.ts";
import { type ToolCallRecord, type ToolCallStatus, ToolCallStore } from "../storage/tool_calls.ts";
import type { Db } from "../storage/db.ts";
import type { SessionRuntime } from "./runtime.ts";

/** What the model is told about a call its process was running when it ended (R4, Z6). */
export const LOST_WHILE_RUNNING =
  "The bonsai process ended while this tool call was running, so its outcome is unknown: it may have finished, failed, or done part of its work. Check the current state (read the files again, re-run read-only commands) before relying on it.";

/** What the model is told about a call that was still waiting for permission. */
export const LOST_BEFORE_RUNNING =
  "The bonsai process ended while this tool call was waiting for permission, so it did not run.";

/** The result a call gets when its process ended in `status` (pending or running). */
export function lostResult(status: ToolCallStatus): string {
  return status === "pending" ? LOST_BEFORE_RUNNING : LOST_WHILE_RUNNING;
}

/** Longest stored result put back into the context (the full one stays in the session). */
const RESULT_CHARS = 30_000;

const SETTLED: ReadonlySet<ToolCallStatus> = new Set([
  "ok",
  "error",
  "denied",
  "cancelled",
  "timeout",
]);

/**
 * Z6 at resume: when the stored context ends with an assistant message whose tool calls
 * were never answered (the process ended between the calls and their results), answers
 * each one in a user message right after it. A call whose result was stored gets that
 * result; the others are marked `lost` (R4) and get a result saying what is known. Returns
 * how many calls were answered. Changes go through the runtime (flushed by the caller).
 */
export function answerOpenToolCalls(db: Db, runtime: SessionRuntime, lostAt: number): number {
  const last = runtime.context[runtime.context.length - 1];
  if (!last || last.message.role !== "assistant") return 0;
  const calls = last.message.content.filter((b) => b.type === "tool_call");
  if (calls.length === 0) return 0;
  const stored = new Map(new ToolCallStore(db).list(runtime.id).map((c) => [c.callId, c]));
  const results: ContentBlock[] = calls.map((call) => {
    const record = stored.get(call.id);
    if (record && SETTLED.has(record.status) && record.result !== null) {
      return {
        type: "tool_result",
        toolCallId: call.id,
        content: clip(record.result),
        isError: record.status !== "ok",
      };
    }
    // Boot recovery may have marked it lost already, with the words for its state.
    const text = record?.status === "lost" && record.result !== null
      ? record.result
      : lostResult(record?.status ?? "running");
    if (record?.status !== "lost") runtime.putToolCall(lostRecord(record, call, lostAt, text));
    runtime.addMessage({
      role: "tool",
      kind: "tool_result",
      text,
      toolCallId: call.id,
      toolName: call.name,
      toolResult: text,
      isError: true,
    });
    return { type: "tool_result", toolCallId: call.id, content: text, isError: true };
  });
  runtime.addContext({ role: "user", content: results }, runtime.lastSeq);
  return calls.length;
}

function lostRecord(
  record: ToolCallRecord | undefined,
  call: Extract<ContentBlock, { type: "tool_call" }>,
  at: number,
  text: string,
): ToolCallRecord {
  const startedAt = record?.startedAt ?? null;
  return {
    callId: call.id,
    messageSeq: record?.messageSeq ?? null,
    toolName: call.name,
    args: record?.args ?? (call.rawInput || "{}"),
    status: "lost",
    result: text,
    diff: record?.diff ?? null,
    exitCode: null,
    startedAt,
    endedAt: record?.endedAt ?? Math.max(startedAt ?? at, at),
    durationMs: null,
  };
}

function clip(text: string): string {
  return text.length <= RESULT_CHARS
    ? text
    : `${text.slice(0, RESULT_CHARS)}\n[... ${
      text.length - RESULT_CHARS
    } characters left out; the full result is stored in the session]`;
}
