import type { Ids } from "../ids.ts";
import { type Db, hasIndex } from "../storage/db.ts";
import { type ImportedFile, ImportFileStore } from "../storage/import_files.ts";
import { EXTERNAL_INDEX, type Lane, type LedgerEntry, LedgerStore } from "../storage/ledger.ts";
import { type MessageInput, MessageStore } from "../storage/messages.ts";
import {
  DEFAULT_TITLE,
  type NewSession,
  type SessionSource,
  SessionStore,
  type TitleSource,
} from "../storage/sessions.ts";
import { type ToolCallRecord, type ToolCallStatus, ToolCallStore } from "../storage/tool_calls.ts";
import { storedFallback } from "./prompt_title.ts";
import { ResponseIndex } from "./response_index.ts";
import { SessionModels } from "./session_model.ts";
import type { ImportStats } from "./stats.ts";

/**
 * How much an import queues before it commits: enough that a transaction touches each index
 * page once for many rows, little enough to keep memory flat and the write lock short
 * (other bonsai processes wait for it).
 */
const COMMIT_RECORDS = 10_000;
const COMMIT_BYTES = 8 << 20;

/**
 * Records after which an import stops maintaining the tool-duration and external-id
 * indexes and builds them once at the end (about 80k Claude Code responses): the sort then
 * costs less than a random page write per row. Response ids are looked up in memory
 * meanwhile (ResponseIndex).
 */
const BULK_RECORDS = 500_000;

/** Page cache for an import's connection, KiB (the OS caches the rest). */
const IMPORT_CACHE_KIB = 16 * 1024;
/**
 * WAL pages between checkpoints during an import (256 MiB), and after it. Every commit
 * rewrites the index pages its rows land on (response ids are random); a checkpoint
 * copies each page once however many commits rewrote it, so rare checkpoints copy less.
 * The WAL shrinks back to the connection's journal size limit once it is reused.
 */
const IMPORT_CHECKPOINT_PAGES = 65536;
const NORMAL_CHECKPOINT_PAGES = 1000;

/** The usage of one imported API response, before it is tied to a session. */
export type ImportedUsage = Omit<LedgerEntry, "sessionId" | "projectId">;

/** A source session seen for the first time: where it worked, and when it began. */
export interface SessionInit {
  readonly projectPath: string;
  readonly createdAt: number;
}

/** A transcript entry as a parser hands it over. */
export type ImportedMessage = MessageInput & { externalId: string; createdAt: number };

/** A tool call as a parser hands it over (its result may come later). */
export interface ImportedCall {
  readonly callId: string;
  readonly name: string;
  readonly args: string;
  readonly at: number;
}

/** A tool call's result as a parser hands it over. */
export interface ImportedResult {
  readonly status: ToolCallStatus;
  readonly output: string;
  readonly at: number;
  /** The exit code the output reports, if any. */
  readonly exitCode?: number | null;
}

/**
 * What a parser of source records writes to: the ImportWriter itself, or a recorder that
 * carries the calls from a parsing worker to the writer (see import_ops.ts).
 */
export interface ImportSink {
  /** Counters the parser bumps (malformed lines, unknown records). */
  readonly stats: ImportStats;
  /** The id under which a source session's records are queued. */
  session(key: string, init: SessionInit): string;
  /**
   * Proposes a title. `fallback` (1, 2, 3...) marks a derived title kept only while no
   * plain derived one comes, the lower the weaker: Claude Code's slash command beats a
   * sub-agent's prompt, which beats a warm-up.
   */
  title(sessionId: string, title: string, source: TitleSource, fallback?: number): void;
  /** The model a session ran, for a session whose responses carry no usage (legacy logs). */
  modelHint(sessionId: string, provider: string, model: string): void;
  message(sessionId: string, input: ImportedMessage): void;
  usage(sessionId: string, key: string | null, entry: ImportedUsage): void;
  toolCall(sessionId: string, call: ImportedCall): void;
  toolResult(sessionId: string, callId: string, result: ImportedResult): void;
}

interface PendingSession {
  messages: ImportedMessage[];
}

/** What the writer knows of a session it has seen in this import. */
interface SessionState {
  readonly id: string;
  projectId: number | null;
  title: string;
  titleSource: TitleSource;
  /** The title's strength: its source's rank, less a little for a fallback. */
  titleRank: number;
  /** Set until the row is inserted at the next commit. */
  create: NewSession | null;
  /** The title changed and must be written. */
  renamed: boolean;
  /** Created by this import: no stored messages to check for duplicates. */
  readonly fresh: boolean;
}

/** A result for a call queued in an earlier commit. */
interface LateResult {
  readonly sessionId: string;
  readonly callId: string;
  readonly result: { status: ToolCallStatus; output: string; endedAt: number };
}

/**
 * Collects imported records in memory and writes them through the storage layer in one
 * transaction per `commit()`: sessions by their source id, messages skipped when their
 * external id is known, and usage deduplicated by response id across every file — the
 * largest copy of a streamed response wins (ccusage 20's rule). Files' read offsets are
 * committed with the records read from them, so an interrupted import resumes exactly.
 * Big commits matter: every transaction rewrites the index pages it touches.
 */
export class ImportWriter implements ImportSink {
  readonly #db: Db;
  readonly #ids: Ids;
  readonly #source: Exclude<SessionSource, "bonsai">;
  readonly #sessions: SessionStore;
  readonly #messages: MessageStore;
  readonly #ledger: LedgerStore;
  readonly #tools: ToolCallStore;
  readonly #files: ImportFileStore;
  readonly stats: ImportStats;
  #pending = new Map<string, PendingSession>();
  #usage = new Map<string, { session: string; entry: ImportedUsage; order: number }>();
  #unkeyed: { session: string; entry: ImportedUsage }[] = [];
  /** Calls queued for this commit by session, then call id (results fill them in place). */
  #calls = new Map<string, Map<string, ToolCallRecord>>();
  #lateResults: LateResult[] = [];
  #fileProgress = new Map<string, ImportedFile>();
  #order = 0;
  #queued = 0;
  /** Records committed so far, and whether this import dropped its two indexes. */
  #committed = 0;
  #bulk = false;
  /** Response ids in memory, once the import drops their index or finds it dropped. */
  #responses: ResponseIndex | null = null;
  #queuedBytes = 0;
  /** The failure of a commit: the writer's memory no longer matches the database. */
  #failed: { readonly error: unknown } | null = null;
  readonly #byKey = new Map<string, SessionState>();
  readonly #byId = new Map<string, SessionState>();
  readonly #bulkRecords: number;
  readonly #commitRecords: number;
  readonly #models: SessionModels;

  constructor(
    db: Db,
    ids: Ids,
    source: Exclude<SessionSource, "bonsai">,
    stats: ImportStats,
    options: { bulkRecords?: number; commitRecords?: number } = {},
  ) {
    this.#db = db;
    this.#ids = ids;
    this.#bulkRecords = options.bulkRecords ?? BULK_RECORDS;
    this.#commitRecords = options.commitRecords ?? COMMIT_RECORDS;
    this.#source = source;
    this.#sessions = new SessionStore(db, ids);
    this.#messages = new MessageStore(db);
    this.#ledger = new LedgerStore(db);
    this.#tools = new ToolCallStore(db);
    this.#files = new ImportFileStore(db);
    this.#models = new SessionModels(db);
    this.stats = stats;
    db.setCacheSize(IMPORT_CACHE_KIB);
    db.setAutoCheckpoint(IMPORT_CHECKPOINT_PAGES);
    // An earlier big import may have been killed without them.
    this.#tools.buildDurationIndex();
    this.#ledger.buildExternalIndex();
  }

  /** Commits when enough is queued; importers call it between batches of lines. */
  commitIfFull(): void {
    if (this.#queued >= this.#commitRecords || this.#queuedBytes >= COMMIT_BYTES) this.commit();
  }

  /** Commits the rest, names each session's model, and returns the connection to its everyday settings. */
  finish(): void {
    this.commit();
    this.#models.save((id) => this.#byId.get(id)?.fresh === true);
    // A failure below leaves everything committed; the next import builds what is missing.
    // Built unless present: dropped by this import, or by another one that may have died.
    this.#tools.buildDurationIndex();
    this.#ledger.buildExternalIndex();
    this.#db.setAutoCheckpoint(NORMAL_CHECKPOINT_PAGES);
    this.#db.checkpoint();
  }

  /** The bonsai session for a source session id, created (at the next commit) on first sight. */
  session(key: string, init: SessionInit): string {
    const known = this.#byKey.get(key);
    if (known) return known.id;
    const stored = this.#sessions.findExternal(this.#source, key);
    const state: SessionState = stored
      ? {
        id: stored.id,
        projectId: stored.projectId,
        title: stored.title,
        titleSource: stored.titleSource,
        titleRank: titleRank(stored.titleSource) -
          (stored.titleSource === "derived" ? fallbackRank(storedFallback(stored.title)) : 0),
        create: null,
        renamed: false,
        fresh: false,
      }
      : {
        id: this.#ids.at(init.createdAt),
        projectId: null,
        title: DEFAULT_TITLE,
        titleSource: "default",
        titleRank: 0,
        create: {
          projectPath: init.projectPath,
          source: this.#source,
          externalId: key,
          createdAt: init.createdAt,
          status: "completed",
          titleSource: "default",
        },
        renamed: false,
        fresh: true,
      };
    if (!stored) this.stats.sessions++;
    this.#byKey.set(key, state);
    this.#byId.set(state.id, state);
    return state.id;
  }

  /** Queues a transcript entry (skipped at write time if already imported). */
  message(sessionId: string, input: ImportedMessage): void {
    let p = this.#pending.get(sessionId);
    if (!p) this.#pending.set(sessionId, p = { messages: [] });
    p.messages.push(input);
    this.#queued++;
    this.#queuedBytes += input.text.length + (input.toolArgs?.length ?? 0) +
      (input.toolResult?.length ?? 0);
  }

  /** Queues the usage of a response; `key` identifies the response across files (null: never deduplicated). */
  usage(sessionId: string, key: string | null, entry: ImportedUsage): void {
    this.#queued++;
    if (key === null) {
      this.#unkeyed.push({ session: sessionId, entry });
      return;
    }
    const seen = this.#usage.get(key);
    if (!seen) {
      this.#usage.set(key, {
        session: sessionId,
        entry: { ...entry, externalId: key },
        order: this.#order++,
      });
    } else {
      this.stats.duplicates++;
      if (total(entry) > total(seen.entry)) seen.entry = { ...entry, externalId: key };
    }
  }

  /** Queues a tool call (its result may come later). */
  toolCall(sessionId: string, call: ImportedCall): void {
    this.#queued++;
    this.#queuedBytes += call.args.length;
    let calls = this.#calls.get(sessionId);
    if (!calls) this.#calls.set(sessionId, calls = new Map());
    if (calls.has(call.callId)) return; // seen again (a rewritten line): keep what we have
    calls.set(call.callId, {
      callId: call.callId,
      messageSeq: null,
      toolName: call.name,
      args: call.args,
      status: "pending",
      result: null,
      diff: null,
      exitCode: null,
      startedAt: call.at,
      endedAt: null,
      durationMs: null,
    });
  }

  /** Completes a tool call with its result (in place when the call is queued too). */
  toolResult(sessionId: string, callId: string, result: ImportedResult): void {
    this.#queued++;
    this.#queuedBytes += result.output.length;
    const calls = this.#calls.get(sessionId);
    const queued = calls?.get(callId);
    if (queued) {
      calls!.set(callId, {
        ...queued,
        status: result.status,
        result: result.output,
        exitCode: result.exitCode ?? null,
        endedAt: result.at,
        durationMs: queued.startedAt === null ? null : Math.max(0, result.at - queued.startedAt),
      });
      return;
    }
    this.#lateResults.push({
      sessionId,
      callId,
      result: { status: result.status, output: result.output, endedAt: result.at },
    });
  }

  /** Names a session (a summary beats a derived title; a user's own title is kept). */
  title(sessionId: string, title: string, source: TitleSource, fallback = 0): void {
    const s = this.#byId.get(sessionId);
    if (!s) throw new Error(`title() for a session this import has not seen: ${sessionId}`);
    const rank = titleRank(source) - fallbackRank(fallback);
    if (
      rank > s.titleRank ||
      (source === "import" && s.titleSource === "import" && s.title !== title)
    ) {
      s.title = title || DEFAULT_TITLE;
      s.titleSource = source;
      s.titleRank = rank;
      s.renamed = true;
    }
  }

  /** Notes the model a session ran, used when none of its turns says. */
  modelHint(sessionId: string, provider: string, model: string): void {
    this.#models.hint(sessionId, provider, model);
  }

  /** Notes how far a file has been read; written with the records read from it. */
  fileRead(path: string, progress: ImportedFile): void {
    this.#fileProgress.set(path, progress);
  }

  /**
   * Writes everything queued, and the files' progress, in one transaction. If it fails (a
   * full disk), earlier commits stay and the import can be run again to resume; this
   * writer refuses further work, since what it knows of the database no longer holds.
   */
  commit(): void {
    if (this.#failed) throw this.#failed.error;
    try {
      this.#write();
    } catch (err) {
      this.#failed = { error: err };
      throw err;
    }
  }

  #write(): void {
    this.#committed += this.#queued;
    const goBulk = !this.#bulk && this.#committed >= this.#bulkRecords;
    // Response ids go in memory for a big import, or when another import dropped their
    // index (scans would then hold the lock for minutes). The first read of a big ledger
    // happens outside the write lock; the read inside it only catches up.
    if (!this.#responses && (goBulk || !hasIndex(this.#db, EXTERNAL_INDEX))) {
      this.#responses = new ResponseIndex(this.#ledger);
      this.#responses.catchUp();
    }
    let written: LedgerEntry[] = [];
    this.#db.write(() => {
      if (goBulk) {
        this.#tools.dropDurationIndex();
        this.#ledger.dropExternalIndex();
        this.#bulk = true;
      }
      if (!this.#responses && !hasIndex(this.#db, EXTERNAL_INDEX)) {
        this.#responses = new ResponseIndex(this.#ledger); // dropped since the check above
      }
      this.#responses?.catchUp();
      for (const s of this.#byId.values()) {
        if (s.create) {
          const row = this.#sessions.create({ ...s.create, id: s.id });
          s.projectId = row.projectId;
          s.create = null;
        }
        if (s.renamed) {
          this.#sessions.rename(s.id, s.title, s.titleSource);
          s.renamed = false;
        }
      }
      const groups = [...this.#pending].map(([sessionId, p]) => ({
        sessionId,
        messages: this.#newMessages(sessionId, p.messages),
      })).filter((g) => g.messages.length > 0);
      this.#messages.appendMany(groups);
      for (const g of groups) this.stats.messages += g.messages.length;
      const rows: LedgerEntry[] = [];
      for (const [key, u] of [...this.#usage].sort((a, b) => a[1].order - b[1].order)) {
        const existing = this.#responses
          ? this.#responses.find(key)
          : this.#ledger.findExternal(key);
        const projectId = this.#projectOf(u.session);
        if (!existing) {
          rows.push({ ...u.entry, sessionId: u.session, projectId });
        } else if (total(u.entry) > existing.total) {
          this.#ledger.replaceUsage(existing.id, {
            ...u.entry,
            sessionId: existing.sessionId,
            projectId,
          });
          this.stats.updatedRows++;
        } else {
          this.stats.duplicates++;
        }
      }
      for (const u of this.#unkeyed) {
        rows.push({ ...u.entry, sessionId: u.session, projectId: this.#projectOf(u.session) });
      }
      if (rows.length) this.#ledger.append(rows);
      this.stats.ledgerRows += rows.length;
      written = rows;
      for (const [sessionId, calls] of this.#calls) {
        this.#tools.put(sessionId, [...calls.values()], { keepExisting: true });
      }
      for (const late of this.#lateResults) {
        this.#tools.complete(late.sessionId, late.callId, late.result);
      }
      for (const [path, progress] of this.#fileProgress) {
        this.#files.put(this.#source, path, progress);
      }
    });
    for (const r of written) this.#models.add(r.sessionId, { ...r, tokens: total(r) });
    this.#pending = new Map();
    this.#usage = new Map();
    this.#unkeyed = [];
    this.#calls = new Map();
    this.#lateResults = [];
    this.#fileProgress = new Map();
    this.#queued = 0;
    this.#queuedBytes = 0;
  }

  /**
   * The queued entries a session does not hold yet: a session this import created holds
   * only what earlier commits wrote (never the same line: files are read on from where
   * they stopped); one that existed before may be re-reading a rewritten file.
   */
  #newMessages(sessionId: string, queued: readonly ImportedMessage[]): ImportedMessage[] {
    const seen = this.#byId.get(sessionId)?.fresh
      ? new Set<string>()
      : this.#messages.externalIds(sessionId);
    return queued.filter((m) => {
      if (seen.has(m.externalId)) return false;
      seen.add(m.externalId);
      return true;
    });
  }

  #projectOf(sessionId: string): number {
    const s = this.#byId.get(sessionId);
    if (s?.projectId != null) return s.projectId;
    return this.#sessions.get(sessionId).projectId;
  }
}

/** The four token buckets of a response (ccusage's dedupe measure). */
export function total(
  e: Pick<
    LedgerEntry,
    "inputTokens" | "outputTokens" | "cacheReadTokens" | "cacheWrite5mTokens" | "cacheWrite1hTokens"
  >,
): number {
  return e.inputTokens + e.outputTokens + e.cacheReadTokens + e.cacheWrite5mTokens +
    e.cacheWrite1hTokens;
}

/** How strong a title from `source` is: a user's beats a summary, which beats a derived one. */
function titleRank(source: TitleSource): number {
  return { default: 0, derived: 1, import: 2, agent: 2, user: 3 }[source];
}

/** How much a fallback of weight `fallback` (1, 2, 3...) ranks below a plain derived title. */
function fallbackRank(fallback: number): number {
  return fallback > 0 ? 1 / (fallback + 1) : 0;
}

/** An imported lane name. */
export type ImportLane = Extract<Lane, "parent" | "subagent">;
