// The building blocks of the Codex rollout shapes (codex_shapes.ts): a conversation that
// writes Codex CLI 0.14x records (turns, model calls, tool calls and their outputs in the
// shapes Codex writes them, token counts), the writer that names and stores rollouts, and
// forks that copy a parent's history as Codex does.
import { join } from "node:path";
import { addUsage, b64, type Usage, uuid7, words, zeroUsage } from "./codex_text.ts";
import type { Prng } from "./prng.ts";

const MINUTE = 60_000;
const encoder = new TextEncoder();

/** One record of a rollout, at time `t`. */
export interface Line {
  readonly t: number;
  readonly type: string;
  readonly payload: Record<string, unknown>;
}

/** A tool call and the shape of its output. */
export type Tool =
  | { readonly kind: "exec"; readonly code: number }
  | { readonly kind: "exec_running"; readonly code: number }
  | { readonly kind: "shell_command"; readonly code: number }
  | { readonly kind: "shell_json"; readonly code: number }
  | { readonly kind: "mcp" }
  | { readonly kind: "image" }
  | { readonly kind: "patch" }
  | { readonly kind: "spawn"; readonly task: string };

/** A turn: what the person typed (as the model and the event record saw it) and the tools used. */
export interface Turn {
  readonly prompt: string;
  /** The user message item's text, if it differs (an IDE preamble around the prompt). */
  readonly item?: string;
  readonly tools: readonly Tool[];
  readonly model?: string;
}

/** One rollout being written: its lines, running totals and clock. */
export class Conversation {
  readonly id: string;
  readonly lines: Line[] = [];
  /** The running total after each token_count, for forks taken later. */
  readonly totals: { t: number; total: Usage; context: number }[] = [];
  t: number;
  total: Usage = zeroUsage();
  context: number;
  cached = 0;
  model: string;
  readonly cwd: string;
  readonly #w: ShapeWriter;

  constructor(w: ShapeWriter, start: number, cwd: string, model: string) {
    this.#w = w;
    this.t = start;
    this.id = uuid7(w.rng, start);
    this.cwd = cwd;
    this.model = model;
    this.context = w.rng.int(6_000, 12_000);
  }

  add(type: string, payload: Record<string, unknown>, t = this.t): void {
    this.lines.push({ t, type, payload });
  }

  meta(extra: Record<string, unknown> = {}): Record<string, unknown> {
    const payload = {
      id: this.id,
      timestamp: new Date(this.t).toISOString(),
      cwd: this.cwd,
      originator: "codex_cli_rs",
      cli_version: "0.143.0",
      source: "cli",
      model_provider: "openai",
      ...extra,
    };
    this.add("session_meta", payload);
    return payload;
  }

  user(text: string): void {
    this.add("response_item", {
      type: "message",
      role: "user",
      content: [{ type: "input_text", text }],
    });
  }

  environment(): void {
    this.t += this.#w.rng.int(1, 40);
    this.user(
      `<environment_context>\n  <cwd>${this.cwd}</cwd>\n  <approval_policy>on-request` +
        `</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <shell>${
          this.cwd.includes("\\") ? "powershell" : "bash"
        }</shell>\n</environment_context>`,
    );
  }

  agents(): void {
    this.t += this.#w.rng.int(1, 40);
    this.user(
      `# AGENTS.md instructions for ${this.cwd}\n\n<INSTRUCTIONS>\n` +
        `${words(this.#w.rng, 8, 20)}\n${words(this.#w.rng, 8, 20)}\n</INSTRUCTIONS>`,
    );
  }

  turn(turn: Turn, first = false): void {
    const r = this.#w.rng;
    this.#w.turns++;
    this.t += first ? r.int(1_000, 8_000) : r.int(30_000, 10 * MINUTE);
    this.user(turn.item ?? turn.prompt);
    this.add("event_msg", { type: "user_message", message: turn.prompt, images: [] });
    if (turn.model) this.model = turn.model;
    this.t += r.int(20, 200);
    this.add("turn_context", {
      cwd: this.cwd,
      approval_policy: "on-request",
      sandbox_policy: { type: "workspace-write", network_access: false },
      model: this.model,
      effort: "medium",
      summary: "auto",
    });
    this.context += Math.ceil(turn.prompt.length / 4);
    for (const tool of turn.tools) this.step(tool);
    this.step(null);
  }

  /** One model call: a tool call and its output, or (tool null) the turn's answer. */
  step(tool: Tool | null): void {
    const r = this.#w.rng;
    this.t += r.int(2_000, 30_000);
    const output = r.int(20, tool ? 600 : 1_500);
    const reasoning = r.next() < 0.7 ? Math.floor(output * r.next() * 0.7) : 0;
    const hit = Math.min(this.cached, this.context);
    const last: Usage = {
      input_tokens: this.context,
      cached_input_tokens: hit - (hit % 128),
      output_tokens: output,
      reasoning_output_tokens: reasoning,
      total_tokens: this.context + output,
    };
    this.cached = this.context;
    this.context += output;
    if (reasoning > 0) {
      this.add("response_item", {
        type: "reasoning",
        summary: [{ type: "summary_text", text: `**${words(r, 2, 5)}**` }],
        content: null,
        encrypted_content: `gAAAAA${b64(r, r.int(40, 120))}`,
      });
    }
    const callId = tool ? `call_${b64(r, 24)}` : "";
    if (tool) this.call(tool, callId);
    else {
      const text = words(r, 5, 60);
      this.add("event_msg", { type: "agent_message", message: text });
      this.add("response_item", {
        type: "message",
        role: "assistant",
        content: [{ type: "output_text", text }],
      });
    }
    this.t += r.int(30, 400);
    this.tokenCount(last);
    if (tool) {
      this.t += r.int(500, 20_000);
      this.output(tool, callId);
      this.context += r.int(50, 4_000);
    }
  }

  tokenCount(last: Usage): void {
    addUsage(this.total, last);
    this.add("event_msg", {
      type: "token_count",
      info: {
        total_token_usage: { ...this.total },
        last_token_usage: { ...last },
        model_context_window: 258_400,
      },
      rate_limits: null,
    });
    this.totals.push({ t: this.t, total: { ...this.total }, context: this.context });
    this.#w.tokenCounts++;
    if (this.#w.rng.next() < 0.2) {
      this.t += this.#w.rng.int(1_500, 6_000);
      this.add("event_msg", {
        type: "token_count",
        info: { total_token_usage: { ...this.total }, last_token_usage: { ...last } },
        rate_limits: null,
      });
      this.#w.reemits++;
    }
  }

  call(tool: Tool, callId: string): void {
    const r = this.#w.rng;
    const windows = this.cwd.includes("\\");
    const fn = (name: string, args: Record<string, unknown>) =>
      this.add("response_item", {
        type: "function_call",
        name,
        arguments: JSON.stringify(args),
        call_id: callId,
      });
    switch (tool.kind) {
      case "exec":
      case "exec_running":
        return fn("exec_command", {
          cmd: r.pick(["npm test", "cargo test", "rg -n TODO src", "git diff --stat"]),
          workdir: this.cwd,
          yield_time_ms: 10_000,
          max_output_tokens: 6_000,
        });
      case "shell_command":
        return fn("shell_command", {
          command: windows ? r.pick(["Get-ChildItem -Recurse src", "npm run build"]) : "make",
          workdir: this.cwd,
          timeout_ms: 120_000,
        });
      case "shell_json":
        return fn("shell", { command: ["bash", "-lc", "npm test"], workdir: this.cwd });
      case "mcp":
        return fn("docs__search", { query: words(r, 2, 5) });
      case "image":
        return fn("view_image", { path: `${this.cwd}${windows ? "\\" : "/"}screenshot.png` });
      case "spawn":
        return fn("spawn_agent", { message: tool.task, agent_type: "worker" });
      case "patch":
        return this.add("response_item", {
          type: "custom_tool_call",
          status: "completed",
          call_id: callId,
          name: "apply_patch",
          input: `*** Begin Patch\n*** Update File: src/main.ts\n@@\n-${words(r, 2, 6)}\n+` +
            `${words(r, 2, 6)}\n*** End Patch`,
        });
    }
  }

  output(tool: Tool, callId: string): void {
    const r = this.#w.rng;
    const text = words(r, 3, 30);
    const wall = (r.int(1, 90_000) / 10_000).toFixed(4);
    const out = (output: unknown, type = "function_call_output") =>
      this.add("response_item", { type, call_id: callId, output });
    switch (tool.kind) {
      case "exec":
        return out(
          `Chunk ID: ${b64(r, 6)}\nWall time: ${wall} seconds\nProcess exited with code ` +
            `${tool.code}\nOriginal token count: ${r.int(5, 900)}\nOutput:\n${text}`,
        );
      case "exec_running": {
        const session = r.int(1, 40);
        out(
          `Chunk ID: ${b64(r, 6)}\nWall time: 10.0021 seconds\nProcess running with session ID ` +
            `${session}\nOriginal token count: ${r.int(5, 900)}\nOutput:\n${text}`,
        );
        // The model polls the process; its output is a tool output of its own.
        const poll = `call_${b64(r, 24)}`;
        this.t += r.int(1_000, 5_000);
        this.add("response_item", {
          type: "function_call",
          name: "write_stdin",
          arguments: JSON.stringify({ session_id: session, chars: "", yield_time_ms: 30_000 }),
          call_id: poll,
        });
        this.t += r.int(1_000, 30_000);
        return this.add("response_item", {
          type: "function_call_output",
          call_id: poll,
          output: `Chunk ID: ${b64(r, 6)}\nWall time: ${wall} seconds\nProcess exited with code ` +
            `${tool.code}\nOriginal token count: ${r.int(5, 900)}\nOutput:\n${words(r, 3, 20)}`,
        });
      }
      case "shell_command":
        return out(
          `Exit code: ${tool.code}\nWall time: ${wall.slice(0, 3)} seconds\nOutput:\n${text}`,
        );
      case "shell_json":
        return out(JSON.stringify({
          output: text,
          metadata: { exit_code: tool.code, duration_seconds: Number(wall.slice(0, 4)) },
        }));
      case "mcp":
        return out([
          { type: "input_text", text: `Found 2 results for ${text}` },
          { type: "input_text", text: `1. ${words(r, 4, 12)}\n2. ${words(r, 4, 12)}` },
        ]);
      case "image":
        return out([{ type: "input_image", image_url: `data:image/png;base64,${b64(r, 64)}` }]);
      case "spawn":
        return out(JSON.stringify({ agent_id: uuid7(r, this.t), nickname: "Dewey" }));
      case "patch":
        return out(
          `Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\n` +
            `M src/main.ts\n`,
          "custom_tool_call_output",
        );
    }
  }

  /** The running total and context as of time `t` (what a fork taken then inherits). */
  snapshotAt(t: number): { total: Usage; context: number } {
    const s = this.totals.filter((x) => x.t <= t).pop();
    return s ? { total: { ...s.total }, context: s.context } : { total: zeroUsage(), context: 0 };
  }
}

/** The PRNG, counters and output folder shared by every shape. */
export class ShapeWriter {
  readonly rng: Prng;
  readonly out: string;
  turns = 0;
  tokenCounts = 0;
  reemits = 0;
  lines = 0;
  files = 0;

  constructor(out: string, rng: Prng) {
    this.out = out;
    this.rng = rng;
  }

  /** Writes a rollout named after its first line's time and its session id. */
  write(c: { id: string; lines: readonly Line[] }): void {
    const start = new Date(c.lines[0]!.t).toISOString();
    this.raw(
      start,
      c.id,
      c.lines.map((l) =>
        JSON.stringify({ timestamp: new Date(l.t).toISOString(), type: l.type, payload: l.payload })
      ),
    );
  }

  raw(start: string, id: string, lines: readonly string[]): void {
    const dir = join(
      this.out,
      "sessions",
      start.slice(0, 4),
      start.slice(5, 7),
      start.slice(8, 10),
    );
    const name = `rollout-${start.slice(0, 19).replaceAll(":", "-")}-${id}.jsonl`;
    Deno.mkdirSync(dir, { recursive: true });
    Deno.writeFileSync(join(dir, name), encoder.encode(lines.join("\n") + "\n"));
    this.lines += lines.length;
    this.files++;
  }
}

/**
 * A fork of `parent` taken at `at`: the child's session_meta (`meta`), a copy of the parent's,
 * then the parent's history up to `at` re-stamped to the fork instant, written in a burst.
 */
export function fork(
  w: ShapeWriter,
  parent: Conversation,
  at: number,
  meta: (child: Conversation) => Record<string, unknown>,
  options: { model?: string; copy?: "history" | "total" } = {},
): Conversation {
  const child = new Conversation(w, at, parent.cwd, options.model ?? parent.model);
  child.meta(meta(child));
  const parentMeta = parent.lines.find((l) => l.type === "session_meta")!;
  child.add("session_meta", parentMeta.payload, at + 1);
  const inherited = parent.snapshotAt(at);
  let t = at + 2;
  if (options.copy === "total") {
    // MultiAgent v2: only the parent's running total, then the child's turn starting.
    child.add("event_msg", {
      type: "token_count",
      info: { total_token_usage: { ...inherited.total }, last_token_usage: null },
      rate_limits: null,
    }, t);
    t += w.rng.int(200, 600);
    child.add("event_msg", { type: "task_started", turn_id: uuid7(w.rng, t) }, t);
    inherited.total.input_tokens += 20;
    inherited.total.cached_input_tokens += 10;
    inherited.total.total_tokens += 20;
    child.add("event_msg", {
      type: "token_count",
      info: { total_token_usage: { ...inherited.total }, last_token_usage: null },
      rate_limits: null,
    }, t);
  } else {
    for (const l of parent.lines) {
      if (l.type === "session_meta" || l.t > at) continue;
      t += w.rng.int(0, 2);
      child.add(l.type, l.payload, t);
    }
  }
  child.t = t;
  child.total = inherited.total;
  child.context = inherited.context || child.context;
  child.cached = inherited.context;
  return child;
}
