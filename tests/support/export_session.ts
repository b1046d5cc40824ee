import type { Ids } from "../../core/ids.ts";
import { CompactionStore } from "../../core/storage/compactions.ts";
import type { Db } from "../../core/storage/db.ts";
import { LedgerStore } from "../../core/storage/ledger.ts";
import { type MessageInput, MessageStore } from "../../core/storage/messages.ts";
import { type SessionSource, SessionStore } from "../../core/storage/sessions.ts";
import { type ToolCallStatus, ToolCallStore } from "../../core/storage/tool_calls.ts";
import { VerificationStore } from "../../core/storage/verification_runs.ts";
import type { FakeClock } from "./fake_clock.ts";
import { ledgerRow } from "./usage_ledger.ts";

/** Tool output of 500 numbered lines, for clipping. */
export const LONG_OUTPUT =
  Array.from({ length: 500 }, (_, i) => `test ${i + 1} ... ok`).join("\n") +
  "\n\nok | 500 passed | 0 failed\n";

/** A result holding fences of three and four backticks, and tildes. */
const FENCED_OUTPUT = [
  "# Login",
  "```ts",
  "await login({ timeout: 5000 });",
  "```",
  "````md",
  "nested ``` inside",
  "````",
  "~~~",
  "</details> <script>alert(1)</script>",
].join("\n");

/**
 * A session with every kind of transcript entry (user text, thinking, assistant text, tool
 * calls with arguments, permissions granted and denied, results, a diff, a long output, a
 * notice, a multi-line error, a summary, a cancelled reply, a streaming one), plus a
 * compaction, a verification run, a self-review and ledger rows. Times advance one second per
 * entry from the clock's start. Returns the session id.
 */
export function seedEverySession(
  db: Db,
  ids: Ids,
  clock: FakeClock,
  options: { projectPath: string; title: string; source?: SessionSource },
): string {
  const sessions = new SessionStore(db, ids);
  const s = sessions.create({
    projectPath: options.projectPath,
    title: "New conversation",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    reasoning: "medium",
    source: options.source,
    externalId: options.source && options.source !== "bonsai" ? "ext-1" : null,
    status: "completed",
  });
  sessions.rename(s.id, options.title, "agent");
  const messages = new MessageStore(db);
  const calls = new ToolCallStore(db);
  const add = (m: MessageInput) => {
    clock.advance(1000);
    return messages.append(s.id, [{ ...m, createdAt: clock.now() }])[0]!;
  };
  const call = (
    id: string,
    name: string,
    args: Record<string, unknown>,
    result: { status: ToolCallStatus; output: string; diff?: string; exitCode?: number },
  ) => {
    const seq = add({
      role: "assistant",
      kind: "tool_call",
      text: `${name} ${JSON.stringify(args)}`,
      toolCallId: id,
      toolName: name,
      toolArgs: JSON.stringify(args),
    });
    calls.put(s.id, [{
      callId: id,
      messageSeq: seq,
      toolName: name,
      args: JSON.stringify(args),
      status: result.status,
      result: result.output,
      diff: result.diff ?? null,
      exitCode: result.exitCode ?? null,
      startedAt: clock.now(),
      endedAt: clock.now() + 1500,
      durationMs: 1500,
    }]);
  };
  const result = (id: string, name: string, output: string, isError = false) =>
    add({
      role: "tool",
      kind: "tool_result",
      text: output.slice(0, 4000),
      toolCallId: id,
      toolName: name,
      toolResult: output,
      isError,
    });

  add({
    role: "user",
    text:
      "Fix the flaky login test.\n\n```\nTimeout after 5000ms\n```\n\nIt fails <b>sometimes</b>.",
  });
  add({
    role: "assistant",
    kind: "thinking",
    text: "The test waits on a real clock.\n\n</details>\n\nI should read `auth_test.ts` first.",
  });
  add({ role: "assistant", text: "Let me read the test first." });
  call("call_read", "read", { path: "src/auth_test.ts" }, { status: "ok", output: FENCED_OUTPUT });
  result("call_read", "read", FENCED_OUTPUT);
  call("call_write", "write", {
    path: "src/auth.ts",
    content: "export const TIMEOUT_MS = 10_000;\nexport function login() {\n  return `ok`;\n}\n",
  }, {
    status: "ok",
    output: "Wrote src/auth.ts (4 lines)",
    diff:
      "--- a/src/auth.ts\n+++ b/src/auth.ts\n@@ -1 +1 @@\n-export const TIMEOUT_MS = 5_000;\n+export const TIMEOUT_MS = 10_000;\n",
  });
  add({
    role: "system",
    kind: "permission",
    text: "Permission to write (write): src/auth.ts — allowed once",
    toolCallId: "call_write",
    toolName: "write",
  });
  result("call_write", "write", "Wrote src/auth.ts (4 lines)");
  call("call_rm", "exec", { command: "rm -rf node_modules && echo `done`" }, {
    status: "denied",
    output: "Permission denied by the user",
  });
  add({
    role: "system",
    kind: "permission",
    text: "Permission to run (exec): rm -rf node_modules — denied by the user",
    toolCallId: "call_rm",
    toolName: "exec",
  });
  result("call_rm", "exec", "Permission denied by the user", true);
  call("call_test", "exec", { command: "deno test", timeout_ms: 60000 }, {
    status: "ok",
    output: LONG_OUTPUT,
    exitCode: 0,
  });
  result("call_test", "exec", LONG_OUTPUT);
  add({ role: "system", kind: "notice", text: "Provider error (overloaded); retrying in 2.0s" });
  add({
    role: "system",
    kind: "error",
    text: 'Provider returned 500:\n{"error": {"type": "api_error"}}',
    isError: true,
  });
  add({
    role: "system",
    kind: "summary",
    text: "Earlier: the user asked to fix the login test.\n- read src/auth_test.ts",
  });
  add({
    role: "assistant",
    text: "Done: the timeout is 10 s. <img src=x onerror=alert(1)>\n\n```ts\nconst left = 'open';",
  });
  add({ role: "assistant", text: "I was going to", status: "cancelled" });
  new CompactionStore(db).add(s.id, {
    method: "rule",
    fromSeq: 1,
    toSeq: 6,
    summary: "The user asked to fix the login test; auth.ts now waits 10 s.",
    tokensBefore: 12_000,
    tokensAfter: 800,
    ledgerId: null,
    createdAt: clock.now() - 1500,
  });
  const verify = new VerificationStore(db);
  verify.add(s.id, {
    kind: "verify",
    command: "deno test",
    exitCode: 1,
    durationMs: 2300,
    output: "FAILED: login_test.ts\n",
    findings: null,
    ledgerId: null,
    createdAt: clock.now() - 500,
  });
  verify.add(s.id, {
    kind: "self-review",
    command: null,
    exitCode: null,
    durationMs: 900,
    output: null,
    findings: JSON.stringify([{ file: "src/auth.ts", note: "magic number" }]),
    ledgerId: null,
    createdAt: clock.now() + 500,
  });
  add({ role: "user", text: "Thanks!" });
  add({ role: "assistant", text: "You're welcome", status: "streaming" });
  const base = { sessionId: s.id, projectId: s.projectId, createdAt: clock.now() };
  new LedgerStore(db).append([
    ledgerRow(base, {
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      inputTokens: 1200,
      outputTokens: 340,
      cacheReadTokens: 9000,
      cacheWrite5mTokens: 2000,
      reasoningTokens: 120,
      costUsd: 0.0312,
      baselineCostUsd: 0.05,
    }),
    ledgerRow(base, {
      provider: "anthropic",
      model: "claude-haiku-4-5",
      lane: "compaction",
      inputTokens: 3000,
      outputTokens: 200,
      costUsd: 0.004,
      baselineCostUsd: 0.004,
    }),
  ]);
  return s.id;
}
