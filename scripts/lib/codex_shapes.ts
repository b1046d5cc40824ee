// The Codex CLI rollout shapes that real histories hold beyond a plain session, written by
// `gen_codex_logs.ts --shapes` after its ordinary sessions. Each is modelled on what Codex CLI
// 0.14x writes (see tests/fixtures/ccusage/README.md):
// - injected preambles: an `# AGENTS.md instructions for …` message, `<environment_context>`,
//   and an IDE/desktop request under `# Files mentioned by the user:` … `## My request for
//   Codex:`;
// - a Windows project (`cwd` D:\work\app, PowerShell through `shell_command`);
// - tool outputs as plain text with their exit code ("Exit code: 1", "Process exited with
//   code 2", "Process running with session ID 5"), as the older JSON, and as content arrays
//   (an MCP search, an image);
// - forks (`forked_from_id`) with their parent rollout and without it: the child's file opens
//   with its session_meta, a copy of the parent's, and the parent's history re-stamped to the
//   fork instant in a burst of milliseconds (one burst crosses a second boundary);
// - spawned sub-agents (`source.subagent.thread_spawn`): one replaying its parent's history
//   and answering within a second of the copy, one (MultiAgent v2) opening with only the
//   parent's running total, one whose parent's rollout is gone; and a review sub-agent;
// - legacy (pre-envelope) rollouts: one with a conversation, one with nothing but its header.
import { Conversation, fork, ShapeWriter } from "./codex_conversation.ts";
import { b64, uuid7, words } from "./codex_text.ts";
import type { Prng } from "./prng.ts";

const SECOND = 1_000;
const MINUTE = 60_000;
const DAY = 86_400_000;

/** What the shapes added to a generation run. */
export interface ShapesResult {
  files: number;
  sessions: number;
  turns: number;
  tokenCounts: number;
  reemits: number;
  lines: number;
  /** Forks written, and how many of them without their parent's rollout. */
  forks: number;
  forksWithoutParent: number;
  /** Spawned sub-agent rollouts. */
  subagents: number;
  /** Legacy rollouts: with messages, and with none. */
  legacy: number;
  legacyEmpty: number;
}

/** Writes every shape into `out`, drawing from `rng`, over the `days` from `begin`. */
export function writeCodexShapes(
  out: string,
  rng: Prng,
  begin: number,
  days: number,
): ShapesResult {
  const w = new ShapeWriter(out, rng);
  const day = (n: number) =>
    begin + (n % days) * DAY + rng.int(8 * 60, 20 * 60) * MINUTE + rng.int(0, 59_999);
  let forks = 0;
  let orphans = 0;
  let subagents = 0;

  // Preambles, plain-text exit codes and content arrays, from Codex Desktop.
  const ide = new Conversation(w, day(2), "/home/dev/src/api-server", "gpt-5.1-codex");
  ide.meta({ originator: "Codex Desktop", source: "vscode" });
  ide.agents();
  ide.environment();
  const request = "Add an index on sessions.created_at and a migration for it";
  ide.turn({
    prompt: `# Files mentioned by the user:\n\n## schema.ts: ${ide.cwd}/src/schema.ts\n\n` +
      `## My request for Codex:\n${request}\n`,
    tools: [{ kind: "exec", code: 1 }, { kind: "mcp" }, { kind: "exec_running", code: 2 }],
  }, true);
  ide.turn({ prompt: words(rng, 3, 20), tools: [{ kind: "patch" }, { kind: "exec", code: 0 }] });
  w.write(ide);

  // A Windows project.
  const win = new Conversation(w, day(4), "D:\\work\\app", "gpt-5-codex");
  win.meta({ originator: "codex_cli_rs", cli_version: "0.144.0" });
  win.agents();
  win.environment();
  win.turn({
    prompt: "Fix the build script so it works with backslash paths",
    tools: [{ kind: "shell_command", code: 1 }, { kind: "image" }, {
      kind: "shell_command",
      code: 0,
    }],
  }, true);
  win.turn({ prompt: words(rng, 3, 20), tools: [{ kind: "shell_json", code: 3 }] });
  w.write(win);

  // A fork with its parent present, and one whose parent is gone (its burst crosses a second).
  for (const present of [true, false]) {
    const parent = new Conversation(w, day(present ? 6 : 9), "/home/dev/work/cli-tool", "gpt-5");
    parent.meta();
    parent.environment();
    parent.turn({
      prompt: present ? "Plan the rollout of the new billing service" : words(rng, 4, 12),
      tools: [{ kind: "exec", code: 0 }, { kind: "shell_json", code: 0 }],
    }, true);
    parent.turn({ prompt: words(rng, 3, 20), tools: [{ kind: "exec", code: 0 }] });
    let at = parent.t + rng.int(5, 60) * SECOND;
    if (!present) at = Math.floor(at / SECOND) * SECOND + 990;
    parent.t = Math.max(parent.t, at);
    parent.turn({ prompt: words(rng, 3, 20), tools: [{ kind: "patch" }] });
    const child = fork(w, parent, at, () => ({ forked_from_id: parent.id }));
    child.t += rng.int(5, 15) * SECOND; // the person types in the fork
    child.turn({
      prompt: present
        ? "Try the alternative: ship billing behind a flag"
        : "Continue from here with the smaller migration",
      tools: [{ kind: "exec", code: present ? 0 : 1 }],
      model: "gpt-5-codex",
    });
    if (present) w.write(parent);
    w.write(child);
    forks++;
    if (!present) orphans++;
  }

  // Spawned sub-agents: one replays the parent's history and answers within a second of the
  // copy; one (MultiAgent v2) inherits only the parent's running total.
  const lead = new Conversation(w, day(12), "/home/dev/src/web_app", "gpt-5-codex");
  lead.meta();
  lead.agents();
  lead.environment();
  const task = "Review src/server.ts for unhandled promise rejections";
  lead.turn(
    { prompt: "Find the crash in the request handler", tools: [{ kind: "spawn", task }] },
    true,
  );
  const spawnedAt = lead.lines.find((l) => l.payload.name === "spawn_agent")!.t + 5;
  const spawn = () => ({
    source: {
      subagent: {
        thread_spawn: {
          parent_thread_id: lead.id,
          depth: 1,
          agent_nickname: "Dewey",
          agent_role: "worker",
        },
      },
    },
    thread_source: "subagent",
    agent_nickname: "Dewey",
  });
  const sub = fork(w, lead, spawnedAt, spawn, { model: "gpt-5-mini" });
  sub.t += rng.int(2, 8);
  sub.user(task);
  sub.add("event_msg", { type: "user_message", message: task, images: [] });
  sub.add("turn_context", { cwd: sub.cwd, model: sub.model, effort: "low", summary: "auto" });
  sub.t += rng.int(300, 700); // a fast first answer: within a second of the copy
  sub.tokenCount({
    input_tokens: sub.context,
    cached_input_tokens: sub.context - (sub.context % 128),
    output_tokens: 40,
    reasoning_output_tokens: 0,
    total_tokens: sub.context + 40,
  });
  sub.step({ kind: "exec", code: 0 });
  sub.step(null);
  lead.turn({ prompt: words(rng, 3, 20), tools: [{ kind: "exec", code: 0 }] });
  const v2 = fork(w, lead, lead.t + rng.int(2, 20) * SECOND, spawn, {
    model: "gpt-5-mini",
    copy: "total",
  });
  v2.t += rng.int(3, 9) * SECOND;
  v2.turn({ prompt: "Summarise the failing tests", tools: [{ kind: "exec", code: 1 }] });
  w.write(lead);
  w.write(sub);
  w.write(v2);
  subagents += 2;

  // A sub-agent whose parent's rollout is gone: its task comes with the copied history.
  const gone = new Conversation(w, day(16), "/home/dev/src/api-server", "gpt-5-codex");
  gone.meta();
  gone.environment();
  gone.turn({ prompt: words(rng, 4, 12), tools: [{ kind: "exec", code: 0 }] }, true);
  gone.turn({ prompt: words(rng, 4, 12), tools: [{ kind: "spawn", task: "x" }] });
  const orphanTask = "Write a regression test for the retry loop";
  const lost = fork(w, gone, gone.t + rng.int(1, 9) * SECOND, () => ({
    source: { subagent: { thread_spawn: { parent_thread_id: gone.id, depth: 1 } } },
    thread_source: "subagent",
  }), { model: "gpt-5-mini" });
  lost.t += rng.int(2, 8);
  lost.user(orphanTask);
  lost.add("event_msg", { type: "user_message", message: orphanTask, images: [] });
  lost.add("turn_context", { cwd: lost.cwd, model: lost.model, effort: "low", summary: "auto" });
  lost.step({ kind: "patch" });
  lost.step(null);
  w.write(lost);
  subagents++;
  orphans++;

  // A review sub-agent: a sub-agent's lane, but no fork.
  const review = new Conversation(w, day(18), "/home/dev/work/cli-tool", "gpt-5-codex");
  review.meta({ source: { subagent: "review" }, thread_source: "subagent" });
  review.turn({
    prompt: "Review the current changes and report correctness issues",
    tools: [{ kind: "exec", code: 0 }],
  }, true);
  w.write(review);

  // Legacy rollouts: a conversation without usage, and a header alone.
  const legacyStart = Date.parse("2025-08-20T13:20:47.060Z");
  const legacyId = uuid7(rng, legacyStart);
  const item = (p: Record<string, unknown>) => JSON.stringify(p);
  const callId = `call_${b64(rng, 24)}`;
  w.raw("2025-08-20T13:20:47.060Z", legacyId, [
    JSON.stringify({
      id: legacyId,
      timestamp: "2025-08-20T13:20:47.060Z",
      instructions: null,
      git: { branch: "main" },
    }),
    item({ record_type: "state" }),
    item({
      type: "message",
      id: null,
      role: "user",
      content: [{
        type: "input_text",
        text: "<environment_context>\n  <cwd>/home/dev/lab/ml_experiments</cwd>\n" +
          "</environment_context>",
      }],
    }),
    item({
      type: "message",
      id: null,
      role: "user",
      content: [{ type: "input_text", text: "List the experiments that ran last week" }],
    }),
    item({ record_type: "state" }),
    item({ type: "reasoning", id: "rs_1", summary: [], encrypted_content: b64(rng, 40) }),
    item({
      type: "function_call",
      id: "fc_1",
      name: "shell",
      arguments: JSON.stringify({ command: ["bash", "-lc", "ls runs"] }),
      call_id: callId,
    }),
    item({
      type: "function_call_output",
      call_id: callId,
      output: JSON.stringify({
        output: "run-0812\nrun-0814\n",
        metadata: { exit_code: 0, duration_seconds: 0.1 },
      }),
    }),
    item({
      type: "message",
      id: null,
      role: "assistant",
      content: [{ type: "output_text", text: words(rng, 5, 20) }],
    }),
  ]);
  const emptyStart = Date.parse("2025-08-21T09:02:11.500Z");
  const emptyId = uuid7(rng, emptyStart);
  w.raw("2025-08-21T09:02:11.500Z", emptyId, [
    JSON.stringify({ id: emptyId, timestamp: "2025-08-21T09:02:11.500Z", instructions: null }),
    item({ record_type: "state" }),
  ]);

  return {
    files: w.files,
    sessions: w.files,
    turns: w.turns,
    tokenCounts: w.tokenCounts,
    reemits: w.reemits,
    lines: w.lines,
    forks,
    forksWithoutParent: orphans,
    subagents,
    legacy: 1,
    legacyEmpty: 1,
  };
}
