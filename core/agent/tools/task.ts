import { z } from "zod";
import { defineTool, toolError } from "./tool.ts";

/** Longest a subagent's answer may be in the parent's context (the child session keeps it all). */
const ANSWER_CHARS = 20_000;

/**
 * `task`: delegates a self-contained job to a subagent with a fresh context, in the same
 * workspace and with the parent's permissions (never wider); several in one turn run at
 * once (at most 4). Its transcript is kept as a child session.
 */
export const taskTool = defineTool({
  name: "task",
  description:
    "Delegate a self-contained job to a subagent (fresh context, same project and permissions); returns its answer. Calls in one turn run at once.",
  schema: z.object({
    description: z.string().min(1).max(80),
    prompt: z.string().min(1).max(40_000).describe("All it needs to know"),
    model: z.string().min(1).max(200).optional(),
    tools: z.array(z.string().min(1).max(64)).min(1).max(32).optional(),
  }).strict(),
  permission: "none",
  concurrent: true,
  stopsOnAbort: true,
  describe: (a) => a.description,
  async run(args, ctx) {
    if (!ctx.subagents) return toolError("A subagent cannot start subagents of its own");
    const outcome = await ctx.subagents.run({
      description: args.description,
      prompt: args.prompt,
      model: args.model ?? null,
      tools: args.tools ?? null,
      callId: ctx.callId,
      onUsage: ctx.onUsage,
    }, ctx.signal);
    const answer = outcome.answer.length > ANSWER_CHARS
      ? `${outcome.answer.slice(0, ANSWER_CHARS)}\n[… ${
        outcome.answer.length - ANSWER_CHARS
      } more characters in the subagent's session]`
      : outcome.answer;
    const record = [
      `[subagent session ${
        outcome.sessionId.slice(0, 10)
      }, ${outcome.model}: ${outcome.status} after ${outcome.turns} turn(s)`,
      outcome.changedFiles.length
        ? `; changed ${outcome.changedFiles.join(", ")}`
        : "; changed no files",
      outcome.error ? `; ${outcome.error}` : "",
      "]",
    ].join("");
    const ok = outcome.status === "completed";
    return {
      output: `${answer || "(no answer)"}\n\n${record}`,
      isError: !ok,
      summary: ok
        ? `${outcome.turns} turns${
          outcome.changedFiles.length ? `, ${outcome.changedFiles.length} files` : ""
        }`
        : outcome.status,
    };
  },
});
