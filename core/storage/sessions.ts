import type { DatabaseSync } from "node:sqlite";
import type { Ids } from "../ids.ts";
import { BonsaiError } from "../errors.ts";
import type { Db, SqlValue } from "./db.ts";
import { ProjectStore } from "./projects.ts";
import { MessageStore } from "./messages.ts";
import { ToolCallStore } from "./tool_calls.ts";

/** Lifecycle states of a session row. */
export type SessionStatus =
  | "active"
  | "completed"
  | "interrupted"
  | "budget_exhausted"
  | "failed"
  | "cancelled";

/** Who chose a session's title. */
export type TitleSource = "default" | "derived" | "agent" | "user" | "import";

/** Where a session came from. */
export type SessionSource = "bonsai" | "claude-code" | "codex";

/** The default title of a new session (X1). */
export const DEFAULT_TITLE = "New conversation";

/** Longest title kept. */
const MAX_TITLE = 200;

/** A title as people type it, made one line of at most 200 characters; USAGE when empty. */
export function cleanTitle(title: string): string {
  const clean = title.replace(/\s+/g, " ").trim();
  if (clean === "") throw new BonsaiError("USAGE", "A title cannot be empty");
  return clean.slice(0, MAX_TITLE);
}

/** A session row as the rest of bonsai sees it. */
export interface Session {
  readonly id: string;
  readonly projectId: number;
  readonly projectPath: string;
  readonly parentId: string | null;
  /** A person's session, or a subagent's (its transcript, under its parent). */
  readonly kind: SessionKind;
  readonly title: string;
  readonly titleSource: TitleSource;
  readonly status: SessionStatus;
  readonly endReason: string | null;
  readonly endDetail: string | null;
  readonly pinned: boolean;
  readonly provider: string | null;
  readonly model: string | null;
  readonly reasoning: string | null;
  readonly cacheKey: string;
  readonly source: SessionSource;
  readonly externalId: string | null;
  readonly createdAt: number;
  readonly contentUpdatedAt: number;
  readonly heartbeatAt: number | null;
  readonly activeMs: number;
  readonly ownerPid: number | null;
  readonly ownerHost: string | null;
  /** The owner's fencing token: every takeover increments it (see SessionStore.claim). */
  readonly epoch: number;
  /** When the current owner took the session. */
  readonly ownerSince: number | null;
  /** What the owner is doing right now, for peers (set with the heartbeat). */
  readonly activity: string | null;
  readonly messageCount: number;
  readonly turns: number;
  readonly totalTokens: number;
  readonly costUsd: number;
  readonly unpricedAttempts: number;
}

/** A session a person runs, or one a subagent ran for it (the task tool). */
export type SessionKind = "main" | "subagent";

/** What a new session starts with. */
export interface NewSession {
  readonly projectPath: string;
  readonly title?: string;
  readonly titleSource?: TitleSource;
  readonly status?: SessionStatus;
  readonly provider?: string | null;
  readonly model?: string | null;
  readonly reasoning?: string | null;
  readonly parentId?: string | null;
  readonly kind?: SessionKind;
  readonly source?: SessionSource;
  readonly externalId?: string | null;
  readonly ownerPid?: number | null;
  readonly ownerHost?: string | null;
  /** Defaults to the clock; imports pass the original time. */
  readonly createdAt?: number;
  /** The id, when it must follow the original creation time (imports). */
  readonly id?: string;
}

/** The fields of a session row that its owning process changes. */
export interface SessionMeta {
  readonly title: string;
  readonly titleSource: TitleSource;
  readonly status: SessionStatus;
  readonly endReason: string | null;
  readonly endDetail: string | null;
  readonly activeMs: number;
  readonly heartbeatAt: number | null;
  readonly ownerPid: number | null;
  readonly ownerHost: string | null;
  readonly provider: string | null;
  readonly model: string | null;
  readonly reasoning: string | null;
}

/** What liveness is judged on, for a row marked active. */
export interface ActiveSessionRow {
  readonly id: string;
  readonly status: "active";
  readonly ownerPid: number | null;
  readonly ownerHost: string | null;
  readonly heartbeatAt: number | null;
  readonly createdAt: number;
}

interface ActiveRecord {
  id: string;
  owner_pid: number | null;
  owner_host: string | null;
  heartbeat_at: number | null;
  created_at: number;
}

/**
 * Sessions marked active, with what liveness is judged on; on any connection (restore opens
 * one without the Db wrapper, on a database it may replace).
 */
export function activeSessions(conn: Pick<DatabaseSync, "prepare">): ActiveSessionRow[] {
  const rows = conn.prepare(
    `SELECT id, owner_pid, owner_host, heartbeat_at, created_at FROM sessions WHERE status = 'active'`,
  ).all() as unknown as ActiveRecord[];
  return rows.map((r) => ({
    id: r.id,
    status: "active",
    ownerPid: r.owner_pid,
    ownerHost: r.owner_host,
    heartbeatAt: r.heartbeat_at,
    createdAt: r.created_at,
  }));
}

/** Filters for listing sessions. */
export interface ListSessionsOptions {
  /** Only this project's sessions (canonical root); all projects when absent. */
  readonly projectPath?: string;
  /** Only sessions from this source (bonsai's own, or imported). */
  readonly source?: SessionSource;
  /** Only sessions marked active (owned by a process, live or not: liveness decides). */
  readonly active?: boolean;
  /** Only sessions with this status. */
  readonly status?: SessionStatus;
  readonly limit?: number;
  /** Skips this many (paging, with `limit`). */
  readonly offset?: number;
  /** Subagents' sessions too (they are listed under their parent otherwise). */
  readonly subagents?: boolean;
}

interface SessionRecord {
  id: string;
  project_id: number;
  root_path: string;
  parent_id: string | null;
  kind: SessionKind;
  title: string;
  title_source: TitleSource;
  status: SessionStatus;
  end_reason: string | null;
  end_detail: string | null;
  pinned: number;
  provider: string | null;
  model: string | null;
  reasoning: string | null;
  cache_key: string;
  source: SessionSource;
  external_id: string | null;
  created_at: number;
  content_updated_at: number;
  heartbeat_at: number | null;
  active_ms: number;
  owner_pid: number | null;
  owner_host: string | null;
  epoch: number;
  owner_since: number | null;
  activity: string | null;
  message_count: number;
  turns: number;
  total_tokens: number;
  cost_usd: number;
  unpriced_attempts: number;
}

const SELECT = `SELECT s.*, p.root_path FROM sessions s JOIN projects p ON p.id = s.project_id`;

/** Most candidates an ambiguous prefix error lists. */
const MAX_CANDIDATES = 10;

/** Reads and writes session rows. */
export class SessionStore {
  readonly #db: Db;
  readonly #ids: Ids | null;
  readonly #projects: ProjectStore;

  /** `ids` is needed only to create sessions. */
  constructor(db: Db, ids: Ids | null = null) {
    this.#db = db;
    this.#ids = ids;
    this.#projects = new ProjectStore(db);
  }

  /** Creates a session row (and its project) with a fresh cache key. */
  create(input: NewSession): Session {
    const db = this.#db;
    const ids = this.#ids;
    if (!ids) throw new TypeError("SessionStore.create() needs an id source");
    return db.write(() => {
      const project = this.#projects.ensure(input.projectPath);
      const now = input.createdAt ?? db.clock.now();
      const id = input.id ?? ids.next();
      db.prepare(
        `INSERT INTO sessions (id, project_id, parent_id, title, title_source, status, provider, model,
           reasoning, cache_key, source, external_id, created_at, content_updated_at, owner_pid, owner_host,
           epoch, owner_since, kind)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        id,
        project.id,
        input.parentId ?? null,
        db.redactor.redact(input.title ?? DEFAULT_TITLE),
        input.titleSource ?? "default",
        input.status ?? "active",
        input.provider ?? null,
        input.model ?? null,
        input.reasoning ?? null,
        `bk_${ids.token()}`,
        input.source ?? "bonsai",
        input.externalId ?? null,
        now,
        now,
        input.ownerPid ?? null,
        input.ownerHost ?? null,
        input.ownerPid ? 1 : 0,
        input.ownerPid ? now : null,
        input.kind ?? "main",
      );
      return this.get(id);
    });
  }

  /** The session with exactly this id; NOT_FOUND otherwise. */
  get(id: string): Session {
    const found = this.find(id);
    if (!found) throw new BonsaiError("NOT_FOUND", `No session with id '${id}'`);
    return found;
  }

  /** The session with exactly this id, or null. */
  find(id: string): Session | null {
    const row = this.#db.prepare(`${SELECT} WHERE s.id = ?`).get(id) as SessionRecord | undefined;
    return row ? toSession(row) : null;
  }

  /** The imported session with this source id, or null. */
  findExternal(source: SessionSource, externalId: string): Session | null {
    const row = this.#db
      .prepare(`${SELECT} WHERE s.source = ? AND s.external_id = ?`)
      .get(source, externalId) as SessionRecord | undefined;
    return row ? toSession(row) : null;
  }

  /** The one session whose id starts with `prefix` (case-insensitive). */
  resolve(prefix: string): Session {
    const wanted = prefix.trim().toLowerCase();
    if (wanted === "") {
      throw new BonsaiError("USAGE", "A session id (or a unique prefix of one) is required");
    }
    // Ids use [0-9a-z]; '~' sorts after all of them, so this range is exactly the prefix.
    const rows = this.#db
      .prepare(`${SELECT} WHERE s.id >= ? AND s.id < ? ORDER BY s.id LIMIT ${MAX_CANDIDATES + 1}`)
      .all(wanted, `${wanted}~`) as unknown as SessionRecord[];
    if (rows.length === 0) {
      throw new BonsaiError("NOT_FOUND", `No session id starts with '${prefix}'`);
    }
    if (rows.length === 1) return toSession(rows[0]!);
    const shown = rows.slice(0, MAX_CANDIDATES).map((r) => `${r.id} (${r.title})`);
    const more = rows.length > MAX_CANDIDATES ? ", ..." : "";
    throw new BonsaiError(
      "AMBIGUOUS_ID",
      `Session id prefix '${prefix}' is ambiguous: ${shown.join(", ")}${more}`,
      { data: { candidates: rows.slice(0, MAX_CANDIDATES).map((r) => r.id) } },
    );
  }

  /** Sessions, pinned first, then by content recency. */
  list(options: ListSessionsOptions = {}): Session[] {
    const where: string[] = [];
    const params: SqlValue[] = [];
    if (options.projectPath !== undefined) {
      where.push("p.root_path = ?");
      params.push(options.projectPath);
    }
    if (options.source !== undefined) {
      where.push("s.source = ?");
      params.push(options.source);
    }
    if (options.active) where.push("s.status = 'active'");
    if (!options.subagents) where.push("s.kind = 'main'");
    if (options.status !== undefined) {
      where.push("s.status = ?");
      params.push(options.status);
    }
    const limit = options.limit !== undefined
      ? ` LIMIT ${Math.max(0, Math.floor(options.limit))}${
        options.offset ? ` OFFSET ${Math.max(0, Math.floor(options.offset))}` : ""
      }`
      : "";
    const sql = `${SELECT}${where.length ? ` WHERE ${where.join(" AND ")}` : ""}
      ORDER BY s.pinned DESC, s.content_updated_at DESC, s.id DESC${limit}`;
    return (this.#db.prepare(sql).all(...params) as unknown as SessionRecord[]).map(toSession);
  }

  /** The project's most recently updated session of bonsai's own (not imported), or null. */
  latest(projectPath: string): Session | null {
    const row = this.#db
      .prepare(
        `${SELECT} WHERE p.root_path = ? AND s.source = 'bonsai' AND s.kind = 'main'
         ORDER BY s.content_updated_at DESC, s.id DESC LIMIT 1`,
      )
      .get(projectPath) as SessionRecord | undefined;
    return row ? toSession(row) : null;
  }

  /** Renames a session (the title is cleaned as `cleanTitle` does). */
  rename(id: string, title: string, source: TitleSource = "user"): void {
    this.#update(id, "title = ?, title_source = ?", [
      this.#db.redactor.redact(cleanTitle(title)),
      source,
    ]);
  }

  /** Pins or unpins a session (pinned sessions list first). */
  setPinned(id: string, pinned: boolean): void {
    this.#update(id, "pinned = ?", [pinned ? 1 : 0]);
  }

  /** Marks new content now, which moves the session up in recency order. */
  touch(id: string, at: number = this.#db.clock.now()): void {
    this.#update(id, "content_updated_at = max(content_updated_at, ?)", [at]);
  }

  /** Records a terminal status and typed reason on the row. */
  end(id: string, status: SessionStatus, reason: string, detail: string | null = null): void {
    this.#update(id, "status = ?, end_reason = ?, end_detail = ?", [
      status,
      reason,
      this.#db.redactor.redactOptional(detail),
    ]);
  }

  /** Sets the provider and model a session is listed with (imports: its most used model). */
  setModel(id: string, provider: string, model: string): void {
    this.#update(id, "provider = ?, model = ?", [provider, model]);
  }

  /** Writes the mutable fields a live process keeps in memory (the persister's meta group). */
  saveMeta(id: string, meta: SessionMeta): void {
    const r = this.#db.redactor;
    this.#update(
      id,
      `title = ?, title_source = ?, status = ?, end_reason = ?, end_detail = ?, active_ms = ?,
       heartbeat_at = ?, owner_pid = ?, owner_host = ?, provider = ?, model = ?, reasoning = ?`,
      [
        r.redact(meta.title),
        meta.titleSource,
        meta.status,
        meta.endReason,
        r.redactOptional(meta.endDetail),
        Math.round(meta.activeMs),
        meta.heartbeatAt,
        meta.ownerPid,
        meta.ownerHost,
        meta.provider,
        meta.model,
        meta.reasoning,
      ],
    );
  }

  /**
   * Takes the session for `owner` (R3): increments its epoch, the fencing token, if it is
   * still `epoch` (compare-and-set), and marks it active and owned. Returns the new epoch, or
   * null when another process changed the owner first. Run it in the switch's transaction.
   */
  claim(
    id: string,
    epoch: number,
    owner: { pid: number; host: string },
    now: number,
  ): number | null {
    const row = this.#db.prepare(
      `UPDATE sessions SET epoch = epoch + 1, owner_pid = ?, owner_host = ?, owner_since = ?,
         status = 'active', end_reason = NULL, end_detail = NULL, heartbeat_at = ?
       WHERE id = ? AND epoch = ? RETURNING epoch`,
    ).get(owner.pid, owner.host, now, now, id, epoch) as { epoch: number } | undefined;
    return row?.epoch ?? null;
  }

  /**
   * The fence every write of a session's content starts its transaction with: a no-op update
   * that matches only while the session is still at `epoch`. Throws SESSION_TAKEN (saying
   * who took it and when) when a takeover moved it on; the write then changes nothing.
   */
  fence(id: string, epoch: number): void {
    const { changes } = this.#db.prepare(
      "UPDATE sessions SET epoch = epoch WHERE id = ? AND epoch = ?",
    )
      .run(id, epoch);
    if (Number(changes) !== 1) throw this.#taken(id, epoch);
  }

  /**
   * Stamps liveness (L3) without touching content recency, with the active time so far and
   * what the owner is doing; fenced like a content write. A session boot recovery took for
   * crashed while its owner was only suspended is the owner's again.
   */
  heartbeat(
    id: string,
    epoch: number,
    at: number,
    activeMs: number,
    activity: string | null,
  ): void {
    this.#db.write(() => {
      const { changes } = this.#db.prepare(
        `UPDATE sessions SET heartbeat_at = ?, active_ms = ?, activity = ?,
           status = CASE WHEN status = 'interrupted' AND end_reason = 'crash' THEN 'active' ELSE status END,
           end_reason = CASE WHEN status = 'interrupted' AND end_reason = 'crash' THEN NULL ELSE end_reason END
         WHERE id = ? AND epoch = ?`,
      ).run(at, Math.round(activeMs), activity, id, epoch);
      if (Number(changes) !== 1) throw this.#taken(id, epoch);
    });
  }

  #taken(id: string, epoch: number): BonsaiError {
    const now = this.find(id);
    if (!now) return new BonsaiError("NOT_FOUND", `Session '${id}' was deleted by another process`);
    const since = now.ownerSince === null ? "" : ` at ${new Date(now.ownerSince).toISOString()}`;
    return new BonsaiError(
      "SESSION_TAKEN",
      `Session '${now.title}' (${id}) was taken over by process ${now.ownerPid ?? "?"}${
        now.ownerHost ? ` on ${now.ownerHost}` : ""
      }${since}`,
      {
        data: {
          session: id,
          epoch,
          current_epoch: now.epoch,
          pid: now.ownerPid,
          host: now.ownerHost,
          since: now.ownerSince,
        },
      },
    );
  }

  /**
   * Boot recovery (L5): sessions left `active` that `isStale` judges abandoned (the liveness
   * rule lives in core/session) become `interrupted` with reason `crash`, their pending or
   * running tool calls `lost` (R4) and their still-streaming replies `failed`. Returns the
   * ids changed.
   */
  recoverInterrupted(
    isStale: (row: ActiveSessionRow) => boolean,
    lostResult: (status: "pending" | "running") => string,
  ): string[] {
    const db = this.#db;
    return db.write(() => {
      const stale = this.active().filter(isStale);
      const stmt = db.prepare(
        "UPDATE sessions SET status = 'interrupted', end_reason = 'crash', end_detail = NULL WHERE id = ?",
      );
      const calls = new ToolCallStore(db);
      const messages = new MessageStore(db);
      for (const r of stale) {
        stmt.run(r.id);
        calls.markLost(r.id, r.heartbeatAt ?? r.createdAt, lostResult);
        messages.settleStreaming(r.id);
      }
      return stale.map((r) => r.id);
    });
  }

  /** Sessions marked active, with what liveness is judged on. */
  active(): ActiveSessionRow[] {
    return activeSessions(this.#db);
  }

  /** Deletes a session and everything hanging off it (messages, FTS rows, ledger, ...). */
  forget(id: string): void {
    this.#db.write(() => {
      // Its subagents' transcripts go with it (their usage is the parent's already).
      this.#db.prepare("DELETE FROM sessions WHERE parent_id = ? AND kind = 'subagent'").run(id);
      const { changes } = this.#db.prepare("DELETE FROM sessions WHERE id = ?").run(id);
      if (changes === 0) throw new BonsaiError("NOT_FOUND", `No session with id '${id}'`);
    });
  }

  /** The sessions a session's subagents ran, oldest first. */
  subagents(parentId: string): Session[] {
    const rows = this.#db.prepare(
      `${SELECT} WHERE s.parent_id = ? AND s.kind = 'subagent' ORDER BY s.created_at, s.id`,
    ).all(parentId) as unknown as SessionRecord[];
    return rows.map(toSession);
  }

  /**
   * The shortest prefix of each id that no other session shares (at least `min` chars), so
   * what a listing shows can be typed back.
   */
  shortIds(ids: readonly string[], min = 8): Map<string, string> {
    const before = this.#db.prepare(
      "SELECT id FROM sessions WHERE id < ? ORDER BY id DESC LIMIT 1",
    );
    const after = this.#db.prepare("SELECT id FROM sessions WHERE id > ? ORDER BY id LIMIT 1");
    const out = new Map<string, string>();
    for (const id of ids) {
      const prev = (before.get(id) as { id: string } | undefined)?.id ?? "";
      const next = (after.get(id) as { id: string } | undefined)?.id ?? "";
      const shared = Math.max(commonPrefix(id, prev), commonPrefix(id, next));
      out.set(id, id.slice(0, Math.max(min, shared + 1)));
    }
    return out;
  }

  /** How many sessions exist. */
  count(): number {
    return (this.#db.prepare("SELECT count(*) AS n FROM sessions").get() as { n: number }).n;
  }

  #update(id: string, assignments: string, params: SqlValue[]): void {
    this.#db.write(() => {
      const { changes } = this.#db
        .prepare(`UPDATE sessions SET ${assignments} WHERE id = ?`)
        .run(...params, id);
      if (changes === 0) throw new BonsaiError("NOT_FOUND", `No session with id '${id}'`);
    });
  }
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function toSession(r: SessionRecord): Session {
  return {
    id: r.id,
    projectId: r.project_id,
    projectPath: r.root_path,
    parentId: r.parent_id,
    kind: r.kind,
    title: r.title,
    titleSource: r.title_source,
    status: r.status,
    endReason: r.end_reason,
    endDetail: r.end_detail,
    pinned: r.pinned === 1,
    provider: r.provider,
    model: r.model,
    reasoning: r.reasoning,
    cacheKey: r.cache_key,
    source: r.source,
    externalId: r.external_id,
    createdAt: r.created_at,
    contentUpdatedAt: r.content_updated_at,
    heartbeatAt: r.heartbeat_at,
    activeMs: r.active_ms,
    ownerPid: r.owner_pid,
    ownerHost: r.owner_host,
    epoch: r.epoch,
    ownerSince: r.owner_since,
    activity: r.activity,
    messageCount: r.message_count,
    turns: r.turns,
    totalTokens: r.total_tokens,
    costUsd: r.cost_usd,
    unpricedAttempts: r.unpriced_attempts,
  };
}
