import { z } from "zod";
import { defineTool } from "./tool.ts";

/** `set_session_title`: names the session (and marks an episode boundary, L4). */
export const setSessionTitleTool = defineTool({
  name: "set_session_title",
  description:
    "Give this session a short title describing the current task (3-8 words). Call it when the task becomes clear or changes.",
  schema: z.object({ title: z.string().trim().min(1).max(100).describe("The title") }).strict(),
  permission: "none",
  describe: (a) => a.title,
  run(args, ctx) {
    ctx.setTitle(args.title.replace(/\s+/g, " "));
    return Promise.resolve({
      output: `Session titled '${args.title}'`,
      isError: false,
      summary: "titled",
    });
  },
});

const TodoSchema = z.object({
  id: z.string().min(1).max(40).optional().describe("Stable id (default: its position)"),
  content: z.string().min(1).max(500),
  status: z.enum(["pending", "in_progress", "completed"]),
});

/** `todo_write`: replaces the plan and todo list (kept whole in the session, never summarised away). */
export const todoWriteTool = defineTool({
  name: "todo_write",
  description:
    "Write the plan and the todo list for the current task, replacing the previous ones. Keep at most one todo in_progress. The plan and todos stay visible to you for the whole session.",
  schema: z.object({
    plan: z.string().max(4000).optional().describe("A short plan (markdown)"),
    todos: z.array(TodoSchema).max(100),
  }).strict(),
  permission: "none",
  describe: (a) => `${a.todos.length} todos`,
  run(args, ctx) {
    const todos = args.todos.map((t, i) => ({
      id: t.id ?? String(i + 1),
      content: t.content,
      status: t.status,
    }));
    ctx.setPlan(args.plan ?? null, todos);
    const done = todos.filter((t) => t.status === "completed").length;
    const lines = todos.map((t) =>
      `[${t.status === "completed" ? "x" : t.status === "in_progress" ? "~" : " "}] ${t.content}`
    );
    return Promise.resolve({
      output: `Plan saved: ${done}/${todos.length} done\n${lines.join("\n")}`,
      isError: false,
      summary: `${done}/${todos.length} done`,
    });
  },
});

/** `recall`: full-text search over this project's past messages (all its sessions). */
export const recallTool = defineTool({
  name: "recall",
  description:
    'Search this project\'s past conversation messages (all sessions, including parts of this one that were summarised). Query: words (all must match), "phrases", prefix*.',
  schema: z.object({
    query: z.string().trim().min(1).max(500),
    limit: z.number().int().min(1).max(50).optional(),
  }).strict(),
  permission: "none",
  describe: (a) => a.query,
  run(args, ctx) {
    const hits = ctx.recall(args.query, args.limit ?? 10);
    if (hits.length === 0) {
      return Promise.resolve({
        output: "No past messages matched",
        isError: false,
        summary: "0 hits",
      });
    }
    const out = hits.map((h) =>
      `[${
        new Date(h.createdAt).toISOString().slice(0, 16).replace("T", " ")
      }] ${h.sessionTitle} (${h.role}): ${h.snippet}`
    );
    return Promise.resolve({
      output: out.join("\n"),
      isError: false,
      summary: `${hits.length} hits`,
    });
  },
});
