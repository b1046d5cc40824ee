// Writes a deterministic synthetic Claude Code config dir, for testing the history importer
// against ccusage:
//   deno run -A scripts/gen_claude_logs.ts --out DIR --entries N --seed S \
//     [--days D] [--start YYYY-MM-DD]
// Layout: DIR/projects/<encoded-cwd>/<sessionId>.jsonl, plus subagent transcripts at
// DIR/projects/<encoded-cwd>/<sessionId>/subagents/agent-<id>.jsonl. N is the number of API
// responses (usage entries); each response with k content blocks is streamed as k lines that share
// message.id/requestId, with a partial output_tokens on all but the last. A few malformed lines are
// mixed in. Prints one JSON summary; progress goes to stderr.
import { join } from "node:path";
import { Prng } from "./lib/prng.ts";
import { runGenerator } from "./lib/generator_cli.ts";

/** Options of one generation run. */
export interface ClaudeLogOptions {
  /** The config dir to write (gets a projects/ folder). */
  out: string;
  /** API responses (usage entries) to write in total. */
  entries: number;
  seed: number;
  /** Days the timestamps spread over (default 30). */
  days?: number;
  /** First day, YYYY-MM-DD in UTC (default 2026-10-01). */
  start?: string;
  /** Called now and then with the number of entries written. */
  progress?: (entries: number) => void;
}

/** What a generation run wrote. */
export interface ClaudeLogResult {
  /** Files written (.jsonl transcripts and subagent .meta.json sidecars). */
  files: number;
  /** Main session files. */
  sessions: number;
  /** API responses written (each counted once, however many lines it streamed to). */
  entries: number;
  /** Lines written, malformed ones included. */
  lines: number;
  /** Lines ccusage must skip: truncated JSON, usage without output_tokens, empty lines. */
  malformed: number;
}

const DAY = 86_400_000;
const MINUTE = 60_000;
const FLUSH_BYTES = 1 << 20;

const PROJECTS = [
  "/home/dev/src/api-server",
  "/home/dev/src/web_app",
  "/home/dev/work/cli-tool",
  "/home/dev/work/data.pipeline",
  "/Users/dev/Code/infra-terraform",
  "/home/dev/src/mobile app",
  "/home/dev/src/docs-site",
  "/home/dev/lab/ml_experiments",
];
const BRANCHES = ["main", "main", "main", "develop", "feature/auth", "fix/parser-crash", ""];
const VERSIONS_INLINE = ["2.0.37", "2.0.46", "2.0.55", "2.0.76"];
const VERSIONS_SUBAGENT = ["2.1.9", "2.1.33", "2.1.50", "2.1.71"];
const MODELS = [
  "claude-sonnet-4-5-20250929",
  "claude-sonnet-4-5-20250929",
  "claude-sonnet-4-5-20250929",
  "claude-opus-4-5-20251101",
  "claude-opus-4-5-20251101",
  "claude-opus-4-1-20250805",
  "claude-sonnet-4-20250514",
  "claude-haiku-4-5-20251001",
];
const HAIKU = "claude-haiku-4-5-20251001";
const SUBAGENT_TYPES = ["general-purpose", "general-purpose", "Explore", "Plan"];
const TOOLS = [
  "Read",
  "Read",
  "Read",
  "Bash",
  "Bash",
  "Edit",
  "Edit",
  "Grep",
  "Glob",
  "Write",
  "TodoWrite",
];
const WORDS = (
  "the function returns a list of files we need to update test config parser handle error when " +
  "input is empty check module then run build fix type import export cache value request " +
  "response server client route handler schema database query index migration component state " +
  "render prop hook async await promise stream buffer token session user path directory option " +
  "flag command output log warning lint format commit branch diff patch line column edge case " +
  "retry timeout limit loop array map set key string number object null default helper util " +
  "service API endpoint payload field method class interface now first next also should will " +
  "can let me look at this that it and or in on for with from by so"
).split(" ");
const DIRS = ["src", "src/api", "src/components", "lib", "tests", "scripts", "internal", "docs"];
const NAMES = ["index", "main", "server", "config", "utils", "parser", "handler", "store", "types"];
const EXTS = [".ts", ".ts", ".tsx", ".py", ".go", ".rs", ".md", ".json"];
const COMMANDS = [
  "npm test",
  "git status",
  "git diff --stat",
  "deno task check",
  "ls -la",
  "cargo build",
  "pytest -q",
  "make lint",
];
const B62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
const encoder = new TextEncoder();

/** Buffers lines and writes them to one file in ~1 MiB chunks. */
class JsonlWriter {
  readonly #file: Deno.FsFile;
  #parts: string[] = [];
  #size = 0;

  constructor(path: string) {
    this.#file = Deno.openSync(path, { write: true, create: true, truncate: true });
  }

  line(text: string): void {
    this.#parts.push(text);
    this.#size += text.length + 1;
    if (this.#size >= FLUSH_BYTES) this.flush();
  }

  flush(): void {
    if (this.#parts.length === 0) return;
    const bytes = encoder.encode(this.#parts.join("\n") + "\n");
    let offset = 0;
    while (offset < bytes.length) offset += this.#file.writeSync(bytes.subarray(offset));
    this.#parts = [];
    this.#size = 0;
  }

  close(): void {
    this.flush();
    this.#file.close();
  }
}

/** One conversation thread: a main session, an inline sidechain or a subagent file. */
interface Chain {
  writer: JsonlWriter;
  sessionId: string;
  cwd: string;
  version: string;
  gitBranch: string;
  isSidechain: boolean;
  agentId: string | null;
  parent: string | null;
  /** Prompt-cache prefix length and tokens added since the last response. */
  cached: number;
  pending: number;
  ttl1h: boolean;
  lastResponseAt: number;
}

type Block =
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

interface ToolUse {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** Encodes a cwd the way Claude Code names project folders. */
export function encodeProjectDir(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, "-");
}

class ClaudeGen {
  readonly rng: Prng;
  readonly root: string;
  readonly begin: number;
  readonly end: number;
  t = 0;
  entries = 0;
  lines = 0;
  malformed = 0;
  files = 0;
  #nextMalformed: number;
  #malformedKind = 0;
  #nextProgress = 10_000;

  constructor(rng: Prng, root: string, begin: number, days: number) {
    this.rng = rng;
    this.root = root;
    this.begin = begin;
    this.end = begin + days * DAY;
    this.#nextMalformed = rng.int(40, 400);
  }

  // ---- ids, text, time -------------------------------------------------------------------

  uuid(): string {
    const b = this.rng.bytes(16);
    b[6] = (b[6]! & 0x0f) | 0x40;
    b[8] = (b[8]! & 0x3f) | 0x80;
    let s = "";
    for (let i = 0; i < 16; i++) {
      if (i === 4 || i === 6 || i === 8 || i === 10) s += "-";
      s += HEX[b[i]!];
    }
    return s;
  }

  hex(n: number): string {
    let s = "";
    for (const byte of this.rng.bytes(n)) s += HEX[byte];
    return s;
  }

  b62(n: number): string {
    let s = "";
    for (let i = 0; i < n; i++) s += B62[Math.floor(this.rng.next() * 62)];
    return s;
  }

  words(min: number, max: number): string {
    const n = this.rng.int(min, max);
    let s = "";
    let capital = true;
    for (let i = 0; i < n; i++) {
      const w = this.rng.pick(WORDS);
      s += capital ? w[0]!.toUpperCase() + w.slice(1) : w;
      capital = i < n - 1 && this.rng.next() < 0.08;
      s += i === n - 1 ? "." : capital ? ". " : " ";
    }
    return s;
  }

  path(cwd: string): string {
    const r = this.rng;
    return `${cwd}/${r.pick(DIRS)}/${r.pick(NAMES)}${r.pick(EXTS)}`;
  }

  /** Advances the clock; near the end of the period every gap shrinks so nothing spills over. */
  advance(lo: number, hi: number): void {
    this.t += this.gap(lo, hi);
  }

  gap(lo: number, hi: number): number {
    if (this.t > this.end - 45 * MINUTE) return this.rng.int(20, 200);
    return this.rng.int(lo, hi);
  }

  ts(): string {
    return new Date(this.t).toISOString();
  }

  // ---- lines -----------------------------------------------------------------------------

  emit(c: Chain, line: unknown): void {
    c.writer.line(JSON.stringify(line));
    this.lines++;
    if (this.lines >= this.#nextMalformed) this.#writeMalformed(c);
  }

  #writeMalformed(c: Chain): void {
    const kind = this.#malformedKind++ % 3;
    this.#nextMalformed = this.lines + this.rng.int(300, 2_700);
    let text = "";
    if (kind < 2) {
      const line = this.#assistantLine(c, {
        id: `msg_01${this.b62(22)}`,
        requestId: `req_011C${this.b62(20)}`,
        model: this.rng.pick(MODELS),
        block: { type: "text", text: this.words(4, 20) },
        stopReason: "end_turn",
        usage: { input: this.rng.int(3, 40), create: 0, read: this.rng.int(1000, 40000), h1: 0 },
        output: this.rng.int(20, 400),
        uuid: this.uuid(),
        parent: c.parent,
      });
      if (kind === 0) {
        const json = JSON.stringify(line);
        text = json.slice(0, Math.floor(json.length * (0.3 + 0.5 * this.rng.next())));
      } else {
        const usage = (line.message as { usage: Record<string, unknown> }).usage;
        delete usage.output_tokens;
        text = JSON.stringify(line);
      }
    }
    c.writer.line(text);
    this.lines++;
    this.malformed++;
  }

  #envelope(c: Chain, parent: string | null): Record<string, unknown> {
    const env: Record<string, unknown> = {
      parentUuid: parent,
      isSidechain: c.isSidechain,
      userType: "external",
      cwd: c.cwd,
      sessionId: c.sessionId,
      version: c.version,
      gitBranch: c.gitBranch,
    };
    if (c.agentId !== null) env.agentId = c.agentId;
    return env;
  }

  #assistantLine(c: Chain, a: {
    id: string;
    requestId: string | null;
    model: string;
    block: Block;
    stopReason: string | null;
    usage: { input: number; create: number; read: number; h1: number };
    output: number;
    uuid: string;
    parent: string | null;
  }): Record<string, unknown> {
    const line = this.#envelope(c, a.parent);
    line.message = {
      id: a.id,
      type: "message",
      role: "assistant",
      model: a.model,
      content: [a.block],
      stop_reason: a.stopReason,
      stop_sequence: null,
      usage: {
        input_tokens: a.usage.input,
        cache_creation_input_tokens: a.usage.create,
        cache_read_input_tokens: a.usage.read,
        cache_creation: {
          ephemeral_5m_input_tokens: a.usage.create - a.usage.h1,
          ephemeral_1h_input_tokens: a.usage.h1,
        },
        output_tokens: a.output,
        service_tier: "standard",
      },
    };
    if (a.requestId !== null) line.requestId = a.requestId;
    line.type = "assistant";
    line.uuid = a.uuid;
    line.timestamp = this.ts();
    return line;
  }

  userPrompt(c: Chain, text: string, snapshot: boolean): void {
    const uuid = this.uuid();
    if (snapshot) {
      this.emit(c, {
        type: "file-history-snapshot",
        messageId: uuid,
        snapshot: { messageId: uuid, trackedFileBackups: {}, timestamp: this.ts() },
        isSnapshotUpdate: false,
      });
    }
    const line = this.#envelope(c, c.parent);
    line.type = "user";
    line.message = { role: "user", content: text };
    line.uuid = uuid;
    line.timestamp = this.ts();
    this.emit(c, line);
    c.parent = uuid;
    c.pending += Math.ceil(text.length / 4) + this.rng.int(0, 3_000);
  }

  toolResult(
    c: Chain,
    use: ToolUse,
    content: unknown,
    result: unknown,
    isError: boolean,
    agentId: string | null,
  ): void {
    const uuid = this.uuid();
    const block: Record<string, unknown> = { tool_use_id: use.id, type: "tool_result", content };
    if (isError) block.is_error = true;
    const line = this.#envelope(c, c.parent);
    line.type = "user";
    line.message = { role: "user", content: [block] };
    line.uuid = uuid;
    line.timestamp = this.ts();
    line.toolUseResult = result;
    if (agentId !== null) line.agentId = agentId;
    this.emit(c, line);
    c.parent = uuid;
  }

  /** Writes one API response as one line per content block (streamed copies). */
  response(c: Chain, model: string, blocks: Block[], output: number): void {
    const r = this.rng;
    // Prompt caching: read the cached prefix, write what was added since the last response.
    const idle = this.t - c.lastResponseAt;
    let read = c.cached;
    let create = c.pending;
    if (c.cached > 150_000 + r.int(0, 20_000)) {
      // Auto-compaction: a fresh, shorter context.
      read = r.int(8_000, 14_000);
      create = r.int(6_000, 20_000);
    } else if (c.cached > 0 && (idle > (c.ttl1h ? 60 : 5) * MINUTE || r.next() < 0.02)) {
      read = 0;
      create = c.cached + c.pending;
    }
    const input = r.next() < 0.05 ? r.int(100, 3_000) : r.int(1, 12);
    let h1 = 0;
    if (c.ttl1h) h1 = r.next() < 0.15 ? Math.floor(create * r.next()) : create;
    c.cached = read + create;
    c.pending = output;
    c.lastResponseAt = this.t;
    const usage = { input, create, read, h1 };

    const id = `msg_01${this.b62(22)}`;
    const requestless = r.next() < 0.006;
    const requestId = requestless ? null : `req_011C${this.b62(20)}`;
    const identical = r.next() < 0.1;
    // Keep every copy of one response on the same UTC day.
    const gaps = blocks.map((_, i) => (i === 0 || requestless ? 0 : this.gap(200, 2_500)));
    const span = gaps.reduce((a, b) => a + b, 0);
    if (Math.floor(this.t / DAY) !== Math.floor((this.t + span) / DAY)) {
      this.t = (Math.floor(this.t / DAY) + 1) * DAY + r.int(500, 20_000);
    }
    let partial = 0;
    for (let i = 0; i < blocks.length; i++) {
      const last = i === blocks.length - 1;
      const block = blocks[i]!;
      this.t += gaps[i]!;
      partial = Math.min(9, partial + r.int(1, 4));
      const uuid = this.uuid();
      this.emit(
        c,
        this.#assistantLine(c, {
          id,
          requestId,
          model,
          block,
          stopReason: last ? (block.type === "tool_use" ? "tool_use" : "end_turn") : null,
          usage,
          output: last || identical ? output : partial,
          uuid,
          parent: c.parent,
        }),
      );
      c.parent = uuid;
    }
    this.entries++;
  }

  // ---- content ---------------------------------------------------------------------------

  blocks(model: string, tools: ToolUse[]): { blocks: Block[]; output: number } {
    const r = this.rng;
    const blocks: Block[] = [];
    let output = 0;
    if (r.next() < (model === HAIKU ? 0.1 : 0.35)) {
      blocks.push({
        type: "thinking",
        thinking: this.words(8, 60),
        signature: `Er${this.b62(r.int(60, 160))}`,
      });
      output += r.int(80, 2_500);
    }
    if (tools.length === 0 || r.next() < 0.6) {
      blocks.push({ type: "text", text: this.words(tools.length === 0 ? 10 : 3, 80) });
      output += r.int(20, 900);
    }
    for (const use of tools) {
      blocks.push({ type: "tool_use", id: use.id, name: use.name, input: use.input });
      output += r.int(25, use.name === "Write" ? 6_000 : 500);
    }
    if (r.next() < 0.01) output += r.int(4_000, 16_000);
    return { blocks, output: Math.max(12, output) };
  }

  toolUse(cwd: string, name: string): ToolUse {
    const r = this.rng;
    const id = `toolu_01${this.b62(22)}`;
    let input: Record<string, unknown>;
    switch (name) {
      case "Read":
        input = { file_path: this.path(cwd) };
        break;
      case "Bash":
        input = { command: r.pick(COMMANDS), description: this.words(2, 6) };
        break;
      case "Edit":
        input = {
          file_path: this.path(cwd),
          old_string: this.words(3, 12),
          new_string: this.words(3, 16),
        };
        break;
      case "Write":
        input = { file_path: this.path(cwd), content: this.words(20, 120) };
        break;
      case "Grep":
        input = { pattern: r.pick(WORDS), path: cwd, output_mode: "files_with_matches" };
        break;
      case "Glob":
        input = { pattern: `**/*${r.pick(EXTS)}` };
        break;
      default:
        input = {
          todos: [
            { content: this.words(2, 6), status: "in_progress", activeForm: this.words(2, 6) },
            { content: this.words(2, 6), status: "pending", activeForm: this.words(2, 6) },
          ],
        };
    }
    return { id, name, input };
  }

  /** Writes the tool_result line of a (non-Task) tool use and grows the context. */
  runTool(c: Chain, use: ToolUse): void {
    const r = this.rng;
    const input = use.input as Record<string, string>;
    const failed = r.next() < 0.04;
    let content: string;
    let result: unknown;
    if (failed) {
      content = `Error: ${this.words(3, 12)}`;
      result = content;
    } else {
      switch (use.name) {
        case "Read": {
          const n = r.int(1, 10);
          const lines: string[] = [];
          for (let i = 1; i <= n; i++) lines.push(`${String(i).padStart(6)}→${this.words(1, 8)}`);
          content = lines.join("\n");
          result = {
            type: "text",
            file: {
              filePath: input.file_path,
              content: content,
              numLines: n,
              startLine: 1,
              totalLines: n + r.int(0, 400),
            },
          };
          break;
        }
        case "Bash": {
          content = this.words(2, 30);
          result = { stdout: content, stderr: "", interrupted: false, isImage: false };
          break;
        }
        case "Edit":
          content = `The file ${input.file_path} has been updated.`;
          result = {
            filePath: input.file_path,
            oldString: input.old_string,
            newString: input.new_string,
            structuredPatch: [],
            userModified: false,
            replaceAll: false,
          };
          break;
        case "Write":
          content = `File created successfully at: ${input.file_path}`;
          result = { type: "create", filePath: input.file_path, content: input.content };
          break;
        case "Grep":
        case "Glob": {
          const files = [this.path(c.cwd), this.path(c.cwd)];
          content = `Found ${files.length} files\n${files.join("\n")}`;
          result = { filenames: files, numFiles: files.length, durationMs: r.int(3, 200) };
          break;
        }
        default:
          content = "Todos have been modified successfully.";
          result = { oldTodos: [], newTodos: use.input.todos };
      }
    }
    this.advance(300, 15_000);
    this.toolResult(c, use, content, result, failed, null);
    c.pending += r.int(40, r.next() < 0.2 ? 12_000 : 2_500);
  }

  // ---- sessions --------------------------------------------------------------------------

  /** Writes one main session file with `budget` responses (subagent responses included). */
  session(budget: number): void {
    const r = this.rng;
    const cwd = r.pick(this.projects);
    const sessionId = this.uuid();
    const dir = join(this.root, "projects", encodeProjectDir(cwd));
    const subagentFiles = r.next() < 0.7;
    const chain: Chain = {
      writer: new JsonlWriter(join(dir, `${sessionId}.jsonl`)),
      sessionId,
      cwd,
      version: r.pick(subagentFiles ? VERSIONS_SUBAGENT : VERSIONS_INLINE),
      gitBranch: r.pick(BRANCHES),
      isSidechain: false,
      agentId: null,
      parent: null,
      cached: 0,
      pending: r.int(12_000, 24_000),
      ttl1h: r.next() < 0.25,
      lastResponseAt: 0,
    };
    this.files++;
    const model = r.pick(MODELS);
    const span = this.end - this.begin;
    this.t = this.begin + r.int(0, Math.max(0, span - budget * 70_000 - 60 * MINUTE));

    if (r.next() < 0.3) {
      for (let i = r.int(1, 3); i > 0; i--) {
        this.emit(chain, { type: "summary", summary: this.words(3, 8), leafUuid: this.uuid() });
      }
    }
    let left = budget;
    let firstTurn = true;
    while (left > 0) {
      this.advance(firstTurn ? 0 : 20_000, firstTurn ? 0 : 20 * MINUTE);
      this.userPrompt(chain, this.words(3, 60), firstTurn || r.next() < 0.08);
      firstTurn = false;
      const turn = Math.min(left, r.int(1, 12));
      for (let j = 0; j < turn; j++) {
        const last = j === turn - 1;
        const after = turn - 1 - j; // responses of this turn still to come
        const m = r.next() < 0.05 ? r.pick(MODELS) : model;
        const tools: ToolUse[] = [];
        let agentBudget = 0;
        if (!last) {
          const avail = left - 1 - after;
          if (avail >= 2 && r.next() < (subagentFiles ? 0.05 : 0.015)) {
            agentBudget = Math.min(avail, r.int(2, 15));
            tools.push({
              id: `toolu_01${this.b62(22)}`,
              name: "Task",
              input: {
                description: this.words(2, 5),
                prompt: this.words(10, 50),
                subagent_type: r.pick(SUBAGENT_TYPES),
              },
            });
          } else {
            const n = r.next() < 0.8 ? 1 : r.next() < 0.75 ? 2 : 3;
            for (let k = 0; k < n; k++) tools.push(this.toolUse(cwd, r.pick(TOOLS)));
          }
        }
        this.advance(j === 0 ? 2_000 : 1_500, j === 0 ? 20_000 : 12_000);
        const { blocks, output } = this.blocks(m, tools);
        this.response(chain, m, blocks, output);
        left--;
        if (agentBudget > 0) {
          this.subagent(chain, tools[0]!, agentBudget, m, subagentFiles);
          left -= agentBudget;
        } else {
          for (const use of tools) this.runTool(chain, use);
        }
        if (this.progress && this.entries >= this.#nextProgress) {
          this.progress(this.entries);
          this.#nextProgress += 10_000;
        }
      }
    }
    chain.writer.close();
  }

  /** Runs a Task: a sidechain of `budget` responses, inline or in a subagent file. */
  subagent(parent: Chain, task: ToolUse, budget: number, parentModel: string, file: boolean) {
    const r = this.rng;
    const agentId = this.hex(4).slice(r.int(0, 1));
    let writer = parent.writer;
    if (file) {
      const dir = join(this.root, "projects", encodeProjectDir(parent.cwd), parent.sessionId);
      Deno.mkdirSync(join(dir, "subagents"), { recursive: true });
      const type = (task.input as { subagent_type: string }).subagent_type;
      Deno.writeTextFileSync(
        join(dir, "subagents", `agent-${agentId}.meta.json`),
        JSON.stringify({ agentType: type, spawnDepth: 1 }) + "\n",
      );
      writer = new JsonlWriter(join(dir, "subagents", `agent-${agentId}.jsonl`));
      this.files += 2;
    }
    const chain: Chain = {
      ...parent,
      writer,
      isSidechain: true,
      agentId,
      parent: null,
      cached: 0,
      pending: r.int(4_000, 12_000),
      ttl1h: false,
      lastResponseAt: 0,
    };
    const model = r.next() < 0.6 ? HAIKU : parentModel;
    this.advance(300, 3_000);
    this.userPrompt(chain, (task.input as { prompt: string }).prompt, false);
    let tokens = 0;
    for (let i = 0; i < budget; i++) {
      const last = i === budget - 1;
      const tools: ToolUse[] = [];
      if (!last) tools.push(this.toolUse(parent.cwd, r.pick(["Read", "Grep", "Glob", "Bash"])));
      this.advance(1_000, 8_000);
      const { blocks, output } = this.blocks(model, tools);
      this.response(chain, model, blocks, output);
      tokens += output;
      for (const use of tools) this.runTool(chain, use);
    }
    if (file) writer.close();
    const text = this.words(10, 60);
    this.advance(200, 2_000);
    this.toolResult(
      parent,
      task,
      [{ type: "text", text }],
      {
        status: "completed",
        prompt: (task.input as { prompt: string }).prompt,
        agentId,
        content: [{ type: "text", text }],
        totalDurationMs: r.int(5_000, 300_000),
        totalTokens: tokens + chain.cached,
        totalToolUseCount: budget - 1,
      },
      false,
      file ? null : agentId,
    );
    parent.pending += Math.ceil(text.length / 4) + 50;
  }

  projects: string[] = [];
  progress: ((entries: number) => void) | undefined;
}

/** Writes the config dir; returns what was written. */
export function generateClaudeLogs(options: ClaudeLogOptions): Promise<ClaudeLogResult> {
  const days = options.days ?? 30;
  const start = options.start ?? "2026-10-01";
  const begin = Date.parse(`${start}T00:00:00.000Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(start) || Number.isNaN(begin)) {
    return Promise.reject(new Error(`bad --start: ${start}`));
  }
  if (!(days >= 1) || !Number.isInteger(days)) {
    return Promise.reject(new Error(`bad --days: ${days}`));
  }
  const rng = new Prng(options.seed);
  const gen = new ClaudeGen(rng, options.out, begin, days);
  gen.progress = options.progress;
  const shuffled = [...PROJECTS];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
  }
  gen.projects = shuffled.slice(0, rng.int(4, 6));
  for (const cwd of gen.projects) {
    Deno.mkdirSync(join(options.out, "projects", encodeProjectDir(cwd)), { recursive: true });
  }
  let sessions = 0;
  let left = Math.max(0, Math.floor(options.entries));
  while (left > 0) {
    let size = 5 + Math.floor(295 * rng.next() ** 2);
    if (left - size < 5) size = left;
    gen.session(size);
    left -= size;
    sessions++;
  }
  return Promise.resolve({
    files: gen.files,
    sessions,
    entries: gen.entries,
    lines: gen.lines,
    malformed: gen.malformed,
  });
}

if (import.meta.main) {
  await runGenerator("gen_claude_logs.ts", "entries", 10000, (run) =>
    generateClaudeLogs({
      out: run.out,
      entries: run.count,
      seed: run.seed,
      days: run.days,
      start: run.start,
      progress: run.progress,
    }));
}
