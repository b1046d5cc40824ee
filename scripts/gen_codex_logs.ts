// Writes a deterministic synthetic Codex CLI home (rollout files in the current envelope format),
// for testing the history importer against ccusage:
//   deno run -A scripts/gen_codex_logs.ts --out DIR --sessions N --seed S \
//     [--days D] [--start YYYY-MM-DD] [--shapes]
// Layout: DIR/sessions/YYYY/MM/DD/rollout-<YYYY-MM-DDThh-mm-ss>-<uuid>.jsonl (UTC). Some
// token_count events are re-emitted (same total_token_usage, new timestamp), which ccusage 20
// skips. Prints one JSON summary; progress goes to stderr.
import { join } from "node:path";
import { b64, HEX, type Usage, uuid7, words } from "./lib/codex_text.ts";
import { writeCodexShapes } from "./lib/codex_shapes.ts";
import { Prng } from "./lib/prng.ts";
import { runGenerator } from "./lib/generator_cli.ts";

/** Options of one generation run. */
export interface CodexLogOptions {
  /** The CODEX_HOME to write (gets a sessions/ folder). */
  out: string;
  sessions: number;
  seed: number;
  /** Days the sessions spread over (default 30). */
  days?: number;
  /** First day, YYYY-MM-DD in UTC (default 2026-10-01). */
  start?: string;
  /** Called now and then with the number of sessions written. */
  progress?: (sessions: number) => void;
  /**
   * Also write the shapes real histories hold (scripts/lib/codex_shapes.ts: preambles, a
   * Windows project, plain-text exit codes, content-array outputs, forks with and without
   * their parent, spawned sub-agents, legacy rollouts), after the ordinary sessions.
   */
  shapes?: boolean;
}

/** What a generation run wrote. */
export interface CodexLogResult {
  files: number;
  sessions: number;
  turns: number;
  /** token_count events with usage info that advance the session total. */
  tokenCounts: number;
  /** token_count events that repeat the previous total (ccusage 20 skips them). */
  reemits: number;
  lines: number;
  /** With `shapes`: forks (and those without their parent), sub-agents, legacy rollouts. */
  forks?: number;
  forksWithoutParent?: number;
  subagents?: number;
  legacy?: number;
  legacyEmpty?: number;
}

const DAY = 86_400_000;
const MINUTE = 60_000;

const PROJECTS = [
  "/home/dev/src/api-server",
  "/home/dev/src/web_app",
  "/home/dev/work/cli-tool",
  "/Users/dev/Code/infra-terraform",
  "/home/dev/lab/ml_experiments",
];
const MODELS = ["gpt-5-codex", "gpt-5-codex", "gpt-5", "gpt-5.1-codex", "gpt-5-mini"];
const EFFORTS = ["low", "medium", "medium", "high"];
const COMMANDS = ["ls -la", "rg -n TODO", "git status", "npm test", "cargo check", "sed -n 1,80p"];
const encoder = new TextEncoder();

class CodexGen {
  readonly rng: Prng;
  t = 0;
  lines = 0;
  tokenCounts = 0;
  reemits = 0;
  turns = 0;
  #out: string[] = [];
  #usedPercent = 0;

  constructor(rng: Prng) {
    this.rng = rng;
  }

  uuid7(ms: number): string {
    return uuid7(this.rng, ms);
  }

  words(min: number, max: number): string {
    return words(this.rng, min, max);
  }

  b64(n: number): string {
    return b64(this.rng, n);
  }

  line(type: string, payload: unknown): void {
    this.#out.push(JSON.stringify({ timestamp: new Date(this.t).toISOString(), type, payload }));
    this.lines++;
  }

  rateLimits(): unknown {
    const r = this.rng;
    this.#usedPercent = Math.min(100, this.#usedPercent + r.int(0, 3));
    return {
      primary: {
        used_percent: this.#usedPercent,
        window_minutes: 300,
        resets_in_seconds: r.int(60, 18_000),
      },
      secondary: {
        used_percent: Math.floor(this.#usedPercent / 3),
        window_minutes: 10_080,
        resets_in_seconds: r.int(3_600, 604_800),
      },
    };
  }

  tokenCount(total: Usage, last: Usage): void {
    this.line("event_msg", {
      type: "token_count",
      info: {
        total_token_usage: { ...total },
        last_token_usage: { ...last },
        model_context_window: 272_000,
      },
      rate_limits: this.rateLimits(),
    });
  }

  /** Writes one rollout file. */
  session(out: string, begin: number, days: number): void {
    const r = this.rng;
    this.t = begin + r.int(0, days * DAY - 6 * 60 * MINUTE);
    this.#usedPercent = r.int(0, 40);
    const start = new Date(this.t).toISOString();
    const id = this.uuid7(this.t);
    const dir = join(out, "sessions", start.slice(0, 4), start.slice(5, 7), start.slice(8, 10));
    const name = `rollout-${start.slice(0, 19).replaceAll(":", "-")}-${id}.jsonl`;
    const cwd = r.pick(PROJECTS);
    let model = r.pick(MODELS);
    const effort = r.pick(EFFORTS);
    this.line("session_meta", {
      id,
      timestamp: start,
      cwd,
      originator: "codex_cli_rs",
      cli_version: r.pick(["0.46.0", "0.53.0", "0.58.0", "0.63.0"]),
      instructions: null,
      source: "cli",
      model_provider: "openai",
      git: {
        commit_hash: Array.from(r.bytes(20), (b) => HEX[b]).join(""),
        branch: r.pick(["main", "main", "develop", "feature/codex"]),
        repository_url: `git@github.com:dev/${cwd.split("/").pop()}.git`,
      },
    });
    this.t += r.int(50, 400);
    this.line("response_item", {
      type: "message",
      role: "user",
      content: [{
        type: "input_text",
        text: `<environment_context>\n  <cwd>${cwd}</cwd>\n  <approval_policy>on-request` +
          `</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n` +
          `</environment_context>`,
      }],
    });

    const zero = (): Usage => ({
      input_tokens: 0,
      cached_input_tokens: 0,
      output_tokens: 0,
      reasoning_output_tokens: 0,
      total_tokens: 0,
    });
    const total = zero();
    let context = r.int(6_000, 12_000);
    let cached = 0;
    let firstCount = true;
    const turns = r.int(2, 10);
    for (let turn = 0; turn < turns; turn++) {
      this.turns++;
      this.t += turn === 0 ? r.int(1_000, 8_000) : r.int(30_000, 15 * MINUTE);
      const prompt = this.words(3, 40);
      this.line("response_item", {
        type: "message",
        role: "user",
        content: [{ type: "input_text", text: prompt }],
      });
      this.line("event_msg", { type: "user_message", message: prompt, images: [] });
      if (turn > 0 && r.next() < 0.15) model = r.pick(MODELS);
      this.t += r.int(20, 200);
      this.line("turn_context", {
        cwd,
        approval_policy: "on-request",
        sandbox_policy: { mode: "workspace-write", network_access: false },
        model,
        effort,
        summary: "auto",
      });
      if (turn === 0) {
        this.t += r.int(50, 300);
        this.line("event_msg", { type: "token_count", info: null, rate_limits: this.rateLimits() });
      }
      context += Math.ceil(prompt.length / 4);
      const steps = r.int(1, 8);
      for (let step = 0; step < steps; step++) {
        const final = step === steps - 1;
        this.t += r.int(2_000, 40_000);
        // One model call: the whole context is input, most of it a cache hit.
        const output = r.int(20, final ? 1_500 : 600);
        const reasoning = r.next() < 0.7 ? Math.floor(output * r.next() * 0.7) : 0;
        const input = context;
        const hit = r.next() < 0.05 ? 0 : Math.min(cached, input);
        const last: Usage = {
          input_tokens: input,
          cached_input_tokens: hit - (hit % 128),
          output_tokens: output,
          reasoning_output_tokens: reasoning,
          total_tokens: input + output,
        };
        total.input_tokens += last.input_tokens;
        total.cached_input_tokens += last.cached_input_tokens;
        total.output_tokens += last.output_tokens;
        total.reasoning_output_tokens += last.reasoning_output_tokens;
        total.total_tokens += last.total_tokens;
        cached = input;
        context = input + output;
        if (reasoning > 0) {
          this.line("response_item", {
            type: "reasoning",
            summary: [{ type: "summary_text", text: `**${this.words(2, 5)}**` }],
            content: null,
            encrypted_content: `gAAAAA${this.b64(r.int(40, 120))}`,
          });
        }
        let callId = "";
        if (final) {
          const text = this.words(5, 80);
          this.line("event_msg", { type: "agent_message", message: text });
          this.line("response_item", {
            type: "message",
            role: "assistant",
            content: [{ type: "output_text", text }],
          });
        } else {
          callId = `call_${this.b64(24)}`;
          if (r.next() < 0.2) {
            this.line("response_item", {
              type: "custom_tool_call",
              status: "completed",
              call_id: callId,
              name: "apply_patch",
              input: `*** Begin Patch\n*** Update File: src/main.ts\n@@\n-${this.words(2, 6)}\n+` +
                `${this.words(2, 6)}\n*** End Patch`,
            });
          } else {
            this.line("response_item", {
              type: "function_call",
              name: "shell",
              arguments: JSON.stringify({
                command: ["bash", "-lc", r.pick(COMMANDS)],
                workdir: cwd,
                timeout_ms: 120_000,
              }),
              call_id: callId,
            });
          }
        }
        this.t += r.int(30, 400);
        this.tokenCount(total, last);
        this.tokenCounts++;
        // Codex sometimes writes the same token_count again (UI / rate-limit refresh). Keep it
        // well apart from the first event of a file so it never looks like a fork replay burst.
        if (!firstCount && r.next() < 0.25) {
          this.t += r.int(1_500, 6_000);
          this.tokenCount(total, last);
          this.reemits++;
        }
        firstCount = false;
        if (!final) {
          this.t += r.int(500, 20_000);
          const output = this.words(2, 30);
          this.line("response_item", {
            type: "function_call_output",
            call_id: callId,
            output: JSON.stringify({
              output,
              metadata: {
                exit_code: r.next() < 0.9 ? 0 : 1,
                duration_seconds: r.int(1, 900) / 100,
              },
            }),
          });
          context += r.int(50, 4_000);
        }
      }
    }
    Deno.mkdirSync(dir, { recursive: true });
    Deno.writeFileSync(join(dir, name), encoder.encode(this.#out.join("\n") + "\n"));
    this.#out = [];
  }
}

/** Writes the rollout files; returns what was written. */
export function generateCodexLogs(options: CodexLogOptions): Promise<CodexLogResult> {
  const days = options.days ?? 30;
  const start = options.start ?? "2026-10-01";
  const begin = Date.parse(`${start}T00:00:00.000Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(start) || Number.isNaN(begin)) {
    return Promise.reject(new Error(`bad --start: ${start}`));
  }
  if (!(days >= 1) || !Number.isInteger(days)) {
    return Promise.reject(new Error(`bad --days: ${days}`));
  }
  const gen = new CodexGen(new Prng(options.seed));
  const sessions = Math.max(0, Math.floor(options.sessions));
  for (let i = 0; i < sessions; i++) {
    gen.session(options.out, begin, days);
    if (options.progress && (i + 1) % 100 === 0) options.progress(i + 1);
  }
  const result: CodexLogResult = {
    files: sessions,
    sessions,
    turns: gen.turns,
    tokenCounts: gen.tokenCounts,
    reemits: gen.reemits,
    lines: gen.lines,
  };
  if (!options.shapes) return Promise.resolve(result);
  const s = writeCodexShapes(options.out, gen.rng, begin, days);
  return Promise.resolve({
    files: result.files + s.files,
    sessions: result.sessions + s.sessions,
    turns: result.turns + s.turns,
    tokenCounts: result.tokenCounts + s.tokenCounts,
    reemits: result.reemits + s.reemits,
    lines: result.lines + s.lines,
    forks: s.forks,
    forksWithoutParent: s.forksWithoutParent,
    subagents: s.subagents,
    legacy: s.legacy,
    legacyEmpty: s.legacyEmpty,
  });
}

if (import.meta.main) {
  await runGenerator("gen_codex_logs.ts", "sessions", 20, (run) =>
    generateCodexLogs({
      out: run.out,
      sessions: run.count,
      seed: run.seed,
      days: run.days,
      start: run.start,
      progress: run.progress,
      shapes: run.flags.shapes,
    }), { flags: ["shapes"] });
}
