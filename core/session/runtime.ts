import { z } from "zod";
import { BonsaiError } from "../errors.ts";
import type { ChatMessage } from "../providers/types.ts";
import type { Db } from "../storage/db.ts";
import { type Compaction, CompactionStore } from "../storage/compactions.ts";
import { ContextItemStore } from "../storage/context_items.ts";
import { type EpisodeBoundary, EpisodeStore } from "../storage/episodes.ts";
import { type ChangedFile, FileRecordStore, type ReadEvidence } from "../storage/file_records.ts";
import { type LedgerEntry, LedgerStore } from "../storage/ledger.ts";
import { type MessageInput, MessageStore } from "../storage/messages.ts";
import { SnapshotGroupStore } from "../storage/snapshot_groups.ts";
import {
  type Session,
  type SessionMeta,
  type SessionStatus,
  SessionStore,
  type TitleSource,
} from "../storage/sessions.ts";
import { type ToolCallRecord, ToolCallStore } from "../storage/tool_calls.ts";
import { decodeMessage, encodeMessage, estimateTokens } from "./context_codec.ts";
import { signature } from "./signature.ts";

/** A model-facing message with its bookkeeping. */
export interface ContextEntry {
  readonly seq: number;
  readonly message: ChatMessage;
  readonly messageSeq: number | null;
  readonly tokensEst: number;
  readonly createdAt: number;
}

/** A todo of the plan. */
export interface PlanTodo {
  readonly id: string;
  readonly content: string;
  readonly status: "pending" | "in_progress" | "completed";
}

/** The plan canvas and todos (snapshot group `plan`). */
export interface Plan {
  readonly plan: string | null;
  readonly todos: readonly PlanTodo[];
}

/** A ledger entry waiting for its row id (messages link to it). */
export interface LedgerRef {
  id: number | null;
  readonly entry: LedgerEntry;
}

interface TranscriptEntry {
  input: MessageInput;
  ledger: LedgerRef | null;
}

/**
 * What a runtime holds that is not saved yet, and what its model knows: enough to carry
 * the work on in another session when this one was taken over (see fork.ts).
 */
export interface UnsavedState {
  /** Transcript entries not saved, in order, by their seq here. */
  readonly transcript: readonly {
    readonly seq: number;
    readonly input: MessageInput;
    readonly ledger: LedgerRef | null;
  }[];
  readonly ledger: readonly LedgerRef[];
  readonly toolCalls: readonly ToolCallRecord[];
  readonly reads: readonly ReadEvidence[];
  readonly changed: readonly ChangedFile[];
  /** The whole model-facing context, saved or not. */
  readonly context: readonly ContextEntry[];
  readonly plan: Plan;
  readonly fileHashes: ReadonlyMap<string, string>;
}

const EMPTY_PLAN: Plan = { plan: null, todos: [] };

/**
 * One live session in memory: everything it produces is recorded here first and written by
 * `flush()` — only what changed since the last flush, all in one transaction (L2). Every
 * front end (REPL, headless, API) drives a session through this object.
 */
export class SessionRuntime {
  readonly #db: Db;
  #session: Session;
  #meta: SessionMeta;
  /** Generation of the latest unsaved change to the row's fields, 0 when saved. */
  #metaDirty = 0;
  /** Counts changes; a flush saves what was changed up to its generation (see #markSaved). */
  #generation = 0;
  #lastSeq: number;
  readonly #transcript = new Map<number, TranscriptEntry>();
  /** Unsaved transcript entries, by seq, with the generation of their latest change. */
  readonly #dirtyMessages = new Map<number, number>();
  readonly #context: ContextEntry[];
  #contextPersisted: number;
  readonly #toolCalls = new Map<string, ToolCallRecord>();
  readonly #dirtyCalls = new Map<string, number>();
  #pendingReads: ReadEvidence[] = [];
  readonly #changed: Map<string, ChangedFile>;
  readonly #dirtyChanged = new Map<string, number>();
  #pendingLedger: LedgerRef[] = [];
  #plan: Plan;
  #fileHashes: Map<string, string>;
  readonly #groupSignatures: Map<string, string>;
  readonly #dirtyGroups = new Map<string, number>();
  #runStartedAt: number | null = null;
  readonly #compactions: Compaction[];
  #hasEpisode: boolean;
  /** This process's fencing token for the session: every write is conditional on it. */
  #epoch: number;

  private constructor(db: Db, session: Session) {
    this.#db = db;
    this.#session = session;
    this.#epoch = session.epoch;
    this.#meta = metaOf(session);
    this.#lastSeq = new MessageStore(db).lastSeq(session.id);
    this.#context = new ContextItemStore(db).list(session.id).map((row) => ({
      seq: row.seq,
      message: decodeMessage(row.body, `${session.id}#${row.seq}`),
      messageSeq: row.messageSeq,
      tokensEst: row.tokensEst,
      createdAt: row.createdAt,
    }));
    this.#contextPersisted = this.#context.length;
    const files = new FileRecordStore(db);
    this.#changed = new Map(files.changed(session.id).map((f) => [f.path, f]));
    const groups = new SnapshotGroupStore(db).get(session.id);
    this.#groupSignatures = new Map([...groups].map(([k, g]) => [k, g.signature]));
    this.#plan = parseGroup(PlanSchema, groups.get("plan")?.body) ?? EMPTY_PLAN;
    this.#fileHashes = new Map(
      Object.entries(parseGroup(FileHashes, groups.get("files")?.body) ?? {}),
    );
    this.#compactions = new CompactionStore(db).list(session.id);
    this.#hasEpisode = new EpisodeStore(db).current(session.id) !== null;
  }

  /** Loads a stored session (its context is the authority on resume). */
  static load(db: Db, sessionId: string): SessionRuntime {
    return db.read(() => new SessionRuntime(db, new SessionStore(db).get(sessionId)));
  }

  /** The session row as of the last change. */
  get session(): Session {
    return { ...this.#session, ...this.#meta };
  }

  get id(): string {
    return this.#session.id;
  }

  // --- transcript ---------------------------------------------------------------------

  /** Appends a transcript entry; returns its seq. */
  addMessage(input: MessageInput, ledger: LedgerRef | null = null): number {
    const seq = ++this.#lastSeq;
    this.#transcript.set(seq, {
      input: { ...input, createdAt: input.createdAt ?? this.#db.clock.now() },
      ledger,
    });
    this.#dirtyMessages.set(seq, ++this.#generation);
    return seq;
  }

  /** Changes an entry this runtime added (a streaming reply growing, a final status). */
  updateMessage(seq: number, patch: Partial<MessageInput>, ledger?: LedgerRef | null): void {
    const entry = this.#transcript.get(seq);
    if (!entry) throw new RangeError(`Transcript entry ${seq} was not written by this process`);
    entry.input = { ...entry.input, ...patch };
    if (ledger !== undefined) entry.ledger = ledger;
    this.#dirtyMessages.set(seq, ++this.#generation);
  }

  /** Text of an entry this runtime added. */
  messageText(seq: number): string {
    return this.#transcript.get(seq)?.input.text ?? "";
  }

  /** The highest transcript seq so far. */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  // --- context --------------------------------------------------------------------------

  /** Appends a model-facing message. */
  addContext(message: ChatMessage, messageSeq: number | null): ContextEntry {
    const entry: ContextEntry = {
      seq: (this.#context[this.#context.length - 1]?.seq ?? 0) + 1,
      message,
      messageSeq,
      tokensEst: estimateTokens(message),
      createdAt: this.#db.clock.now(),
    };
    this.#context.push(entry);
    return entry;
  }

  /** Every model-facing message, in order. */
  get context(): readonly ContextEntry[] {
    return this.#context;
  }

  /** The latest compaction (its summary stands for context items up to `toSeq`), or null. */
  get latestCompaction(): Compaction | null {
    return this.#compactions[this.#compactions.length - 1] ?? null;
  }

  /** Records a compaction (after flushing, so the range it names is stored). */
  addCompaction(c: Omit<Compaction, "id">): Compaction {
    this.flush();
    const stored = this.write(() => new CompactionStore(this.#db).add(this.id, c));
    this.#compactions.push(stored);
    return stored;
  }

  // --- episodes -------------------------------------------------------------------------

  /** Whether the session has an episode yet. */
  get hasEpisode(): boolean {
    return this.#hasEpisode;
  }

  /**
   * Starts an episode (a stretch of work with one goal) at the latest transcript entry,
   * closing the previous one with `previousSummary`.
   */
  beginEpisode(
    boundary: EpisodeBoundary,
    title: string | null,
    previousSummary: string | null = null,
  ): void {
    this.flush();
    const episodes = new EpisodeStore(this.#db);
    this.write(() => {
      if (previousSummary !== null) episodes.describe(this.id, { summary: previousSummary });
      episodes.begin(this.id, { boundary, startSeq: Math.max(1, this.#lastSeq), title });
    });
    this.#hasEpisode = true;
  }

  /** Names the current episode (set_session_title on a fresh episode). */
  titleEpisode(title: string): void {
    this.write(() => new EpisodeStore(this.#db).describe(this.id, { title }));
  }

  /** The current episode's title, or null. */
  get currentEpisodeTitle(): string | null {
    return new EpisodeStore(this.#db).current(this.id)?.title ?? null;
  }

  /** Where the current episode starts in the transcript, or 1. */
  get episodeStartSeq(): number {
    return new EpisodeStore(this.#db).current(this.id)?.startSeq ?? 1;
  }

  // --- tool calls, files, ledger --------------------------------------------------------

  /** Records a tool call (insert or update). */
  putToolCall(record: ToolCallRecord): void {
    this.#toolCalls.set(record.callId, record);
    this.#dirtyCalls.set(record.callId, ++this.#generation);
  }

  /** Read evidence (S3) and the file's hash as the session now knows it. */
  recordRead(read: ReadEvidence): void {
    this.#pendingReads.push(read);
    this.#setFileHash(read.path, read.fileHash);
  }

  /** A file the session wrote, with its new hash. */
  recordWrite(path: string, fileHash: string, at: number): void {
    const before = this.#changed.get(path);
    this.#changed.set(path, {
      path,
      firstAt: before?.firstAt ?? at,
      lastAt: at,
      changes: (before?.changes ?? 0) + 1,
    });
    this.#dirtyChanged.set(path, ++this.#generation);
    this.#setFileHash(path, fileHash);
  }

  /** The hash of the file as this session last read or wrote it. */
  knownHash(path: string): string | null {
    return this.#fileHashes.get(path) ?? null;
  }

  /** Files this session changed. */
  get changedFiles(): readonly ChangedFile[] {
    return [...this.#changed.values()];
  }

  /** Takes over a changed-file record as it is (a fork carrying work on). */
  adoptChanged(file: ChangedFile): void {
    this.#changed.set(file.path, file);
    this.#dirtyChanged.set(file.path, ++this.#generation);
  }

  /** Takes over what another runtime knew of the files' contents (a fork carrying work on). */
  adoptFileHashes(hashes: ReadonlyMap<string, string>): void {
    for (const [path, hash] of hashes) this.#setFileHash(path, hash);
  }

  /** What is not saved yet, and the whole context (for carrying work on after a takeover). */
  unsaved(): UnsavedState {
    return {
      transcript: [...this.#dirtyMessages.keys()].sort((a, b) => a - b).map((seq) => ({
        seq,
        ...this.#transcript.get(seq)!,
      })),
      ledger: [...this.#pendingLedger],
      toolCalls: [...this.#dirtyCalls.keys()].map((k) => this.#toolCalls.get(k)!),
      reads: [...this.#pendingReads],
      changed: [...this.#dirtyChanged.keys()].map((p) => this.#changed.get(p)!),
      context: [...this.#context],
      plan: this.#plan,
      fileHashes: new Map(this.#fileHashes),
    };
  }

  /** Queues a ledger row; the returned ref gets its id at the next flush. */
  addLedger(entry: LedgerEntry): LedgerRef {
    const ref: LedgerRef = { id: null, entry };
    this.#pendingLedger.push(ref);
    return ref;
  }

  // --- plan, title, status, time ----------------------------------------------------------

  /** The plan and todos. */
  get plan(): Plan {
    return this.#plan;
  }

  /** Replaces the plan and todos (todo_write). */
  setPlan(plan: Plan): void {
    this.#plan = plan;
    this.#dirtyGroups.set("plan", ++this.#generation);
  }

  /** Renames the session. */
  setTitle(title: string, source: TitleSource): void {
    this.#setMeta({ title, titleSource: source });
  }

  /** Changes status and reason (terminal reasons are typed: quit, max_turns, sigterm, ...). */
  setStatus(status: SessionStatus, reason: string | null, detail: string | null = null): void {
    this.#setMeta({ status, endReason: reason, endDetail: detail });
  }

  /**
   * Takes the session over for `owner` (R3): a compare-and-set on the epoch it was loaded
   * with, which moves the fencing token on, so the previous owner's writes are refused from
   * now on. Throws SESSION_LIVE when another process took it first. Run it in the switch's
   * transaction.
   */
  takeOver(owner: { pid: number; host: string }, now: number): void {
    const epoch = new SessionStore(this.#db).claim(this.id, this.#epoch, owner, now);
    if (epoch === null) {
      throw new BonsaiError(
        "SESSION_LIVE",
        `Cannot resume session '${this.id}': another process took it just now`,
      );
    }
    this.#epoch = epoch;
    this.#meta = {
      ...this.#meta,
      status: "active",
      endReason: null,
      endDetail: null,
      ownerPid: owner.pid,
      ownerHost: owner.host,
      heartbeatAt: now,
    };
  }

  /** This process's fencing token (the session's epoch when it took it). */
  get epoch(): number {
    return this.#epoch;
  }

  /**
   * Runs `fn` in a transaction fenced by this process's epoch: for the session's writes that
   * do not go through flush (compactions, episodes, verification runs). SESSION_TAKEN when
   * another process took the session over; nothing is written then.
   */
  write<T>(fn: () => T): T {
    return this.#db.write(() => {
      new SessionStore(this.#db).fence(this.id, this.#epoch);
      return fn();
    });
  }

  /** Pins the provider, model and reasoning the session runs with. */
  setModel(provider: string, model: string, reasoning: string | null): void {
    this.#setMeta({ provider, model, reasoning });
  }

  /** Starts the active-run timer (L3). */
  beginRun(now: number): void {
    this.#runStartedAt ??= now;
  }

  /** Stops the active-run timer, adding the foreground time to the session. */
  endRun(now: number): void {
    if (this.#runStartedAt === null) return;
    this.#setMeta({ activeMs: this.#meta.activeMs + Math.max(0, now - this.#runStartedAt) });
    this.#runStartedAt = null;
  }

  /** Active time including the run in progress. */
  activeMs(now: number): number {
    return this.#meta.activeMs +
      (this.#runStartedAt === null ? 0 : Math.max(0, now - this.#runStartedAt));
  }

  /**
   * Stamps the heartbeat (with the active time so far and what the owner is doing) directly:
   * liveness is not content. Fenced: SESSION_TAKEN when another process took the session.
   */
  heartbeat(now: number, activity: string | null = null): void {
    new SessionStore(this.#db).heartbeat(this.id, this.#epoch, now, this.activeMs(now), activity);
    this.#meta = { ...this.#meta, heartbeatAt: now };
  }

  // --- persistence ------------------------------------------------------------------------

  /** True when something changed since the last flush (cheap: no hashing, no I/O). */
  get dirty(): boolean {
    return this.#metaDirty > 0 || this.#dirtyMessages.size > 0 ||
      this.#context.length > this.#contextPersisted ||
      this.#dirtyCalls.size > 0 || this.#pendingReads.length > 0 || this.#dirtyChanged.size > 0 ||
      this.#pendingLedger.length > 0 || this.#dirtyGroups.size > 0;
  }

  /**
   * Writes every changed group in one transaction; unchanged groups cost nothing. Returns
   * whether anything was written.
   */
  flush(): boolean {
    if (!this.dirty) return false;
    const groups = this.#changedGroups();
    const db = this.#db;
    const id = this.id;
    db.write(() => {
      // The fence first: a process whose session was taken over writes nothing.
      new SessionStore(db).fence(id, this.#epoch);
      if (this.#pendingLedger.length > 0) {
        const ids = new LedgerStore(db).append(this.#pendingLedger.map((r) => r.entry));
        this.#pendingLedger.forEach((ref, i) => (ref.id = ids[i]!));
      }
      const messages = new MessageStore(db);
      for (const seq of [...this.#dirtyMessages.keys()].sort((a, b) => a - b)) {
        const entry = this.#transcript.get(seq)!;
        messages.put(id, seq, {
          ...entry.input,
          ledgerId: entry.ledger?.id ?? entry.input.ledgerId ?? null,
        });
      }
      if (this.#context.length > this.#contextPersisted) {
        new ContextItemStore(db).put(
          id,
          this.#context.slice(this.#contextPersisted).map((c) => ({
            seq: c.seq,
            role: c.message.role,
            body: encodeMessage(c.message),
            messageSeq: c.messageSeq,
            tokensEst: c.tokensEst,
            createdAt: c.createdAt,
          })),
        );
      }
      if (this.#dirtyCalls.size > 0) {
        new ToolCallStore(db).put(
          id,
          [...this.#dirtyCalls.keys()].map((k) => this.#toolCalls.get(k)!),
        );
      }
      const files = new FileRecordStore(db);
      if (this.#pendingReads.length > 0) files.addReads(id, this.#pendingReads);
      if (this.#dirtyChanged.size > 0) {
        files.putChanged(
          id,
          [...this.#dirtyChanged.keys()].map((p) => this.#changed.get(p)!),
        );
      }
      if (groups.length > 0) new SnapshotGroupStore(db).put(id, groups);
      if (this.#metaDirty > 0) new SessionStore(db).saveMeta(id, this.#meta);
      // Saved only once committed: a flush nested in a transaction that rolls back saved
      // nothing, and a failed transaction leaves everything dirty for the next try.
      const written = {
        generation: this.#generation,
        context: this.#context.length,
        reads: this.#pendingReads.length,
        ledger: this.#pendingLedger.length,
        groups,
      };
      db.afterCommit(() => this.#markSaved(written));
    });
    return true;
  }

  /** Forgets as unsaved what a committed flush wrote; what changed since stays dirty. */
  #markSaved(written: {
    generation: number;
    context: number;
    reads: number;
    ledger: number;
    groups: readonly { grp: string; signature: string }[];
  }): void {
    const saved = (gen: number) => gen <= written.generation;
    const forget = <K>(dirty: Map<K, number>) => {
      for (const [key, gen] of dirty) if (saved(gen)) dirty.delete(key);
    };
    forget(this.#dirtyMessages);
    forget(this.#dirtyCalls);
    forget(this.#dirtyChanged);
    // Groups whose content matched what was stored were not written, and are clean too.
    forget(this.#dirtyGroups);
    for (const g of written.groups) this.#groupSignatures.set(g.grp, g.signature);
    if (saved(this.#metaDirty)) this.#metaDirty = 0;
    this.#contextPersisted = Math.max(this.#contextPersisted, written.context);
    this.#pendingReads.splice(0, written.reads);
    this.#pendingLedger.splice(0, written.ledger);
    this.#dropSettledMessages();
  }

  #changedGroups() {
    const out = [];
    const now = this.#db.clock.now();
    for (const grp of this.#dirtyGroups.keys()) {
      const body = grp === "plan"
        ? JSON.stringify(this.#plan)
        : JSON.stringify(Object.fromEntries(this.#fileHashes));
      const sig = signature(body);
      // Same content as stored: no write (L2).
      if (this.#groupSignatures.get(grp) !== sig) {
        out.push({ grp, signature: sig, body, updatedAt: now });
      }
    }
    return out;
  }

  /** Forgets saved entries that can no longer change, so memory stays flat. */
  #dropSettledMessages(): void {
    for (const [seq, entry] of this.#transcript) {
      if (entry.input.status !== "streaming" && !this.#dirtyMessages.has(seq)) {
        this.#transcript.delete(seq);
      }
    }
  }

  #setFileHash(path: string, hash: string): void {
    if (this.#fileHashes.get(path) === hash) return;
    this.#fileHashes.set(path, hash);
    this.#dirtyGroups.set("files", ++this.#generation);
  }

  #setMeta(patch: Partial<SessionMeta>): void {
    this.#meta = { ...this.#meta, ...patch };
    this.#metaDirty = ++this.#generation;
  }
}

function metaOf(s: Session): SessionMeta {
  return {
    title: s.title,
    titleSource: s.titleSource,
    status: s.status,
    endReason: s.endReason,
    endDetail: s.endDetail,
    activeMs: s.activeMs,
    heartbeatAt: s.heartbeatAt,
    ownerPid: s.ownerPid,
    ownerHost: s.ownerHost,
    provider: s.provider,
    model: s.model,
    reasoning: s.reasoning,
  };
}

const PlanSchema = z.object({
  plan: z.string().nullable(),
  todos: z.array(z.object({
    id: z.string(),
    content: z.string(),
    status: z.enum(["pending", "in_progress", "completed"]),
  })),
});
const FileHashes = z.record(z.string(), z.string());

/** A stored group parsed with its schema; a damaged group starts over rather than blocking the session. */
function parseGroup<T>(schema: z.ZodType<T>, body: string | undefined): T | null {
  if (body === undefined) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(body));
    return parsed.success ? parsed.data : null;
  } catch {
    return null; // not JSON: same as damaged
  }
}
