// Makes deterministic synthetic history through the storage layer, for benchmarks and
// manual testing:
//   deno run -A scripts/gen_history.ts --home DIR --sessions N --messages M --seed S
// M is messages per session. Prints one JSON summary; progress goes to stderr.
import { parseArgs } from "node:util";
import { homeAt } from "../core/home.ts";
import { ulidSource } from "../core/ids.ts";
import { createRedactor } from "../core/secrets.ts";
import { openDatabase } from "../core/storage/db.ts";
import { type MessageInput, MessageStore } from "../core/storage/messages.ts";
import { SessionStore } from "../core/storage/sessions.ts";
import { Corpus } from "./lib/corpus.ts";
import { Prng } from "./lib/prng.ts";

/** Options of one generation run. */
export interface GenerateOptions {
  home: string;
  sessions: number;
  messages: number;
  seed: number;
  /** Called now and then with the number of sessions written. */
  progress?: (done: number) => void;
}

const PROJECTS = [
  "api-server",
  "web-app",
  "cli-tool",
  "data-pipeline",
  "infra",
  "mobile",
  "docs",
  "ml-lab",
];
const ANCHOR = Date.UTC(2026, 10, 1);
const YEAR = 365 * 86_400_000;

/** Writes the history; returns what was written. */
export async function generateHistory(
  options: GenerateOptions,
): Promise<{ sessions: number; messages: number }> {
  const rng = new Prng(options.seed);
  const corpus = new Corpus(rng);
  let now = ANCHOR - YEAR;
  const clock = { now: () => now };
  const db = await openDatabase({ home: homeAt(options.home), clock, redactor: createRedactor() });
  const ids = ulidSource(clock, (n) => rng.bytes(n));
  const sessions = new SessionStore(db, ids);
  const messages = new MessageStore(db);
  let written = 0;
  try {
    for (let i = 0; i < options.sessions; i++) {
      now = ANCHOR - YEAR + Math.floor((i / options.sessions) * YEAR) + rng.int(0, 3_600_000);
      const project = `/home/dev/src/${PROJECTS[rng.int(0, PROJECTS.length - 1)]}`;
      const batch = conversation(corpus, rng, options.messages, now);
      db.write(() => {
        const s = sessions.create({
          projectPath: project,
          title: corpus.title(),
          titleSource: "derived",
          status: "completed",
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          createdAt: now,
        });
        messages.append(s.id, batch);
      });
      written += batch.length;
      if (options.progress && (i + 1) % 100 === 0) options.progress(i + 1);
    }
  } finally {
    db.close();
  }
  return { sessions: options.sessions, messages: written };
}

function conversation(corpus: Corpus, rng: Prng, count: number, start: number): MessageInput[] {
  const out: MessageInput[] = [];
  let at = start;
  const push = (m: Omit<MessageInput, "createdAt">) => {
    at += rng.int(2_000, 60_000);
    out.push({ ...m, createdAt: at });
  };
  while (out.length < count) {
    push({ role: "user", text: corpus.message(rng.int(60, 360)) });
    if (out.length < count && rng.next() < 0.3) {
      const call = corpus.toolCall();
      const callId = `call_${out.length}`;
      push({
        role: "assistant",
        kind: "tool_call",
        text: `${call.name} ${call.args}`,
        toolCallId: callId,
        toolName: call.name,
        toolArgs: call.args,
      });
      if (out.length < count) {
        push({
          role: "tool",
          kind: "tool_result",
          text: call.result.slice(0, 300),
          toolCallId: callId,
          toolName: call.name,
          toolResult: call.result,
        });
      }
    }
    if (out.length < count) push({ role: "assistant", text: corpus.message(rng.int(120, 600)) });
  }
  return out.slice(0, count);
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      home: { type: "string" },
      sessions: { type: "string", default: "100" },
      messages: { type: "string", default: "200" },
      seed: { type: "string", default: "1" },
    },
  });
  if (!values.home) {
    console.error("usage: gen_history.ts --home DIR [--sessions N] [--messages M] [--seed S]");
    Deno.exit(2);
  }
  const sessions = Number(values.sessions);
  const started = performance.now();
  const result = await generateHistory({
    home: values.home,
    sessions,
    messages: Number(values.messages),
    seed: Number(values.seed),
    progress: (done) =>
      Deno.stderr.writeSync(new TextEncoder().encode(`\rgenerated ${done}/${sessions} sessions`)),
  });
  Deno.stderr.writeSync(new TextEncoder().encode("\n"));
  const bytes = Deno.statSync(`${values.home}/bonsai.db`).size;
  console.log(
    JSON.stringify({
      ...result,
      elapsed_ms: Math.round(performance.now() - started),
      db_bytes: bytes,
    }),
  );
}
