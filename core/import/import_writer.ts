import type { Ids } from "../ids.ts";
import type { Db } from "../storage/db.ts";
import { ImportFileStore } from "../storage/import_files.ts";
import { type Lane, type LedgerEntry, LedgerStore } from "../storage/ledger.ts";
import { type MessageInput, MessageStore } from "../storage/messages.ts";
import {
  DEFAULT_TITLE,
  type SessionSource,
  SessionStore,
  type TitleSource,
} from "../storage/sessions.ts";
import { type ToolCallStatus, ToolCallStore } from "../storage/tool_calls.ts";

/** What an import did (`--json` summary). */
export interface ImportStats {
  files: number;
  skippedFiles: number;
  sessions: number;
  messages: number;
  ledgerRows: number;
  /** Rows replaced by a later, fuller copy of the same response (streamed lines). */
  updatedRows: number;
  /** Usage lines dropped because the same response was already counted. */
  duplicates: number;
  /** Lines that were not JSON, or not a record bonsai understands. */
  malformed: number;
  /** Well-formed records of a type bonsai does not know (a newer tool version, say). */
  unknownRecords: number;
  unreadable: number;
}

/** A new, empty tally. */
export function emptyStats(): ImportStats {
  return {
    files: 0,
    skippedFiles: 0,
    sessions: 0,
    messages: 0,
    ledgerRows: 0,
    updatedRows: 0,
    duplicates: 0,
    malformed: 0,
    unknownRecords: 0,
    unreadable: 0,
  };
}

/** The usage of one imported API response, before it is tied to a session. */
export type ImportedUsage = Omit<LedgerEntry, "sessionId" | "projectId">;

interface PendingSession {
  readonly id: string;
  readonly projectId: number;
  messages: MessageInput[];
  latest: number;
}

/**
 * Writes imported records through the storage layer, one batch per transaction:
 * sessions by their source id, messages skipped when their external id is known, and
 * usage deduplicated by response id across every file — the largest copy of a streamed
 * response wins (ccusage 20's rule).
 */
export class ImportWriter {
  readonly #db: Db;
  readonly #source: SessionSource;
  readonly #sessions: SessionStore;
  readonly #messages: MessageStore;
  readonly #ledger: LedgerStore;
  readonly #tools: ToolCallStore;
  readonly stats: ImportStats;
  #pending = new Map<string, PendingSession>();
  #usage = new Map<string, { session: string; entry: ImportedUsage; order: number }>();
  #unkeyed: { session: string; entry: ImportedUsage }[] = [];
  #order = 0;
  readonly #known = new Map<string, { id: string; projectId: number }>();
  readonly #projects = new Map<string, number>();

  constructor(db: Db, ids: Ids, source: Exclude<SessionSource, "bonsai">, stats: ImportStats) {
    this.#db = db;
    this.#source = source;
    this.#sessions = new SessionStore(db, ids);
    this.#messages = new MessageStore(db);
    this.#ledger = new LedgerStore(db);
    this.#tools = new ToolCallStore(db);
    this.stats = stats;
  }

  /** The bonsai session for a source session id, created on first sight. */
  session(key: string, init: { projectPath: string; createdAt: number; ids: Ids }): string {
    const known = this.#known.get(key);
    if (known) return known.id;
    let s = this.#sessions.findExternal(this.#source, key);
    if (!s) {
      s = this.#sessions.create({
        id: init.ids.at(init.createdAt),
        projectPath: init.projectPath,
        source: this.#source,
        externalId: key,
        createdAt: init.createdAt,
        status: "completed",
        titleSource: "default",
      });
      this.stats.sessions++;
    }
    this.#known.set(key, { id: s.id, projectId: s.projectId });
    this.#projects.set(s.id, s.projectId);
    return s.id;
  }

  /** Queues a transcript entry (skipped at write time if already imported). */
  message(
    sessionId: string,
    input: MessageInput & { externalId: string; createdAt: number },
  ): void {
    const p = this.#pendingFor(sessionId);
    p.messages.push(input);
    p.latest = Math.max(p.latest, input.createdAt);
  }

  /** Queues the usage of a response; `key` identifies the response across files (null: never deduplicated). */
  usage(sessionId: string, key: string | null, entry: ImportedUsage): void {
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

  /** Records a tool call (its result may come later). */
  toolCall(
    sessionId: string,
    call: { callId: string; name: string; args: string; at: number; messageSeq?: number },
  ): void {
    this.#tools.put(sessionId, [{
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
    }]);
  }

  /** Completes a tool call with its result. */
  toolResult(
    sessionId: string,
    callId: string,
    result: { status: ToolCallStatus; output: string; at: number },
  ): void {
    this.#tools.complete(sessionId, callId, {
      status: result.status,
      output: result.output,
      endedAt: result.at,
    });
  }

  /** Names a session (a summary beats a derived title; a user's own title is kept). */
  title(sessionId: string, title: string, source: TitleSource): void {
    const s = this.#sessions.get(sessionId);
    const rank = (t: TitleSource) => ({ default: 0, derived: 1, import: 2, agent: 2, user: 3 })[t];
    if (
      rank(source) > rank(s.titleSource) ||
      (source === "import" && s.titleSource === "import" && s.title !== title)
    ) {
      this.#sessions.rename(sessionId, title || DEFAULT_TITLE, source);
    }
  }

  /** Writes everything queued, and the file's progress, in one transaction. */
  commit(file: { path: string; size: number; mtimeMs: number; offset: number }): void {
    this.#db.write(() => {
      for (const [sessionId, p] of this.#pending) {
        const fresh = p.messages.filter((m) =>
          !this.#messages.hasExternal(sessionId, m.externalId!)
        );
        if (fresh.length) {
          this.#messages.append(sessionId, fresh);
          this.stats.messages += fresh.length;
        }
      }
      const rows: LedgerEntry[] = [];
      for (const [key, u] of [...this.#usage].sort((a, b) => a[1].order - b[1].order)) {
        const existing = this.#ledger.findExternal(key);
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
      new ImportFileStore(this.#db).put(this.#source as "claude-code" | "codex", file.path, file);
    });
    this.#pending = new Map();
    this.#usage = new Map();
    this.#unkeyed = [];
  }

  #pendingFor(sessionId: string): PendingSession {
    let p = this.#pending.get(sessionId);
    if (!p) {
      p = { id: sessionId, projectId: this.#projectOf(sessionId), messages: [], latest: 0 };
      this.#pending.set(sessionId, p);
    }
    return p;
  }

  #projectOf(sessionId: string): number {
    let id = this.#projects.get(sessionId);
    if (id === undefined) {
      id = this.#sessions.get(sessionId).projectId;
      this.#projects.set(sessionId, id);
    }
    return id;
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

/** An imported lane name. */
export type ImportLane = Extract<Lane, "parent" | "subagent">;
