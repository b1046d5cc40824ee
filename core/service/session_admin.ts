import type { Clock } from "../clock.ts";
import { BonsaiError } from "../errors.ts";
import { type ExportOptions, exportSession, type SessionExport } from "../export/session_export.ts";
import type { Env } from "../home.ts";
import type { Ids } from "../ids.ts";
import { learnSettingSecret } from "../secrets.ts";
import { liveSessionError } from "../session/lifecycle.ts";
import { liveElsewhere, type ProcessId, type ProcessProbe } from "../session/liveness.ts";
import { rewindPoints } from "../session/rewind_plan.ts";
import { type SessionDetail, sessionDetail } from "../session/session_detail.ts";
import { transcriptPage, type TranscriptWindow } from "../session/transcript_page.ts";
import type { Db } from "../storage/db.ts";
import { type Message, MessageStore } from "../storage/messages.ts";
import { ProjectStore } from "../storage/projects.ts";
import type { PromptEntry } from "../storage/prompts.ts";
import { type SearchHit, searchMessages, type SearchOptions } from "../storage/search.ts";
import {
  cleanTitle,
  type ListSessionsOptions,
  type Session,
  SessionStore,
} from "../storage/sessions.ts";
import { SettingsStore } from "../storage/settings.ts";
import type { UsageFilter } from "../storage/usage_queries.ts";
import { buildDashboard, type Dashboard, type DashboardOptions } from "../usage/dashboard.ts";
import { denoRevertFiles, type RevertFiles } from "./file_revert.ts";
import { PermissionAdmin } from "./permission_admin.ts";
import {
  executeRewind,
  previewRewind,
  type RewindOptions,
  type RewindPreview,
  type RewindResult,
} from "./rewind.ts";
import {
  describeSettings,
  saveSetting,
  settingDef,
  type StoredSetting,
} from "./settings_catalog.ts";

export type { ExportOptions, SessionExport };

/** What a forget may not touch: the caller's current session, other projects' sessions. */
export interface ForgetScope {
  readonly current?: string;
  readonly project?: string;
}

/** What session admin needs from the world. */
export interface AdminDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly ids: Ids;
  /** The environment: a saved `env:NAME` key reference makes NAME's value a secret (S4). */
  readonly env: Env;
  /** This process (its own sessions are not "live elsewhere"). */
  readonly me: ProcessId;
  readonly probe: ProcessProbe;
  /** Called before reading, so what this process has not saved yet is seen (the REPL's flush). */
  readonly beforeRead?: () => void;
  /** The project files a rewind reverts (default: the real file system). */
  readonly files?: RevertFiles;
}

/**
 * Session admin beside the host (DESIGN.md): listing, showing, renaming, pinning and
 * forgetting sessions, searching, usage and saved settings, for every front end, with the
 * one liveness rule. Front ends supply only the words and the confirmations.
 */
export class SessionAdmin {
  readonly #deps: AdminDeps;
  readonly #store: SessionStore;

  constructor(deps: AdminDeps) {
    this.#deps = deps;
    this.#store = new SessionStore(deps.db, deps.ids);
  }

  /**
   * A new, empty session of the project at `projectPath` (a canonical root), not running
   * anywhere yet: its first prompt opens it in a host (the HTTP API's create).
   */
  create(projectPath: string, title: string | null): Session {
    return this.#store.create({
      projectPath,
      status: "completed",
      ...(title === null ? {} : { title: cleanTitle(title), titleSource: "user" as const }),
    });
  }

  /** Sessions, pinned first, then by content recency. */
  list(options: ListSessionsOptions = {}): Session[] {
    this.#deps.beforeRead?.();
    return this.#store.list(options);
  }

  /** The shortest unambiguous prefix of each id (at least 8 characters). */
  shortIds(ids: readonly string[]): Map<string, string> {
    return this.#store.shortIds(ids);
  }

  /** Saved permission rules: list, add, remove (`bonsai permissions`, `/permissions`). */
  get permissions(): PermissionAdmin {
    return new PermissionAdmin(this.#deps.db, this.#deps.ids);
  }

  /** The one session an id prefix names (NOT_FOUND, AMBIGUOUS_ID otherwise). */
  resolve(prefix: string): Session {
    this.#deps.beforeRead?.();
    return this.#store.resolve(prefix);
  }

  /** Everything `sessions show` reports. */
  detail(session: Session): SessionDetail {
    return sessionDetail(this.#deps.db, session);
  }

  /** The transcript, or its last `tail` messages. */
  transcript(session: Session, tail?: number): Message[] {
    const messages = new MessageStore(this.#deps.db);
    if (tail === undefined) return messages.list(session.id);
    return messages.list(session.id, {
      afterSeq: Math.max(0, messages.lastSeq(session.id) - tail),
    });
  }

  /** One window of the transcript with tool outcomes and usage (the web view pages with it). */
  transcriptPage(session: Session, window: TranscriptWindow): Record<string, unknown> {
    this.#deps.beforeRead?.();
    return transcriptPage(this.#deps.db, session, window);
  }

  /** Renames a session; returns it renamed. */
  rename(prefix: string, title: string): Session {
    const session = this.resolve(prefix);
    this.#store.rename(session.id, title, "user");
    return this.#store.get(session.id);
  }

  /** Pins or unpins a session. */
  setPinned(prefix: string, pinned: boolean): Session {
    const session = this.resolve(prefix);
    this.#store.setPinned(session.id, pinned);
    return this.#store.get(session.id);
  }

  /**
   * The session `prefix` names, if it may be forgotten: not the one `scope.current` runs,
   * not another project's when `scope.project` is given (the REPL works in one project), and
   * not live in another process. Changes nothing; ask the person, then `forget()`.
   */
  forgettable(prefix: string, scope: ForgetScope = {}): Session {
    const session = this.resolve(prefix);
    this.#checkForget(session, scope);
    return session;
  }

  /** Deletes a session and everything recorded with it, checking again in the same transaction. */
  forget(session: Session, scope: ForgetScope = {}): void {
    this.#deps.beforeRead?.();
    this.#deps.db.write(() => {
      this.#checkForget(this.#store.get(session.id), scope);
      this.#store.forget(session.id);
    });
  }

  #checkForget(session: Session, scope: ForgetScope): void {
    if (session.id === scope.current) {
      throw new BonsaiError(
        "USAGE",
        `Cannot forget '${session.title}': it is the session you are in (start a new one first)`,
      );
    }
    if (scope.project !== undefined && session.projectPath !== scope.project) {
      throw new BonsaiError(
        "CROSS_PROJECT",
        `Cannot forget session '${session.id}' here: it belongs to project '${session.projectPath}'`,
      );
    }
    if (liveElsewhere(session, this.#deps.clock.now(), this.#deps.me, this.#deps.probe)) {
      throw liveSessionError(session, "forget");
    }
  }

  /**
   * Exports the session `prefix` names to Markdown (X5) from what the database holds: written
   * atomically to `<project_path>/对话/<YYYY-MM-DD>-<title>-<id8>.md` (or into `outDir`), or
   * only rendered with `write: false`. Read-only for the session, so a live one exports too.
   */
  async export(prefix: string, options: ExportOptions = {}): Promise<SessionExport> {
    const session = this.resolve(prefix);
    return await exportSession(this.#deps.db, session.id, {
      ...options,
      tag: String(this.#deps.me.pid),
    });
  }

  /** The steps `prefix`'s session can be rewound to: its user prompts, in order. */
  rewindPoints(prefix: string): PromptEntry[] {
    return rewindPoints(this.#deps.db, this.resolve(prefix).id);
  }

  /**
   * What rewinding `prefix`'s session to before its prompt at `options.to` would move, the
   * `exec` calls it cannot undo and (with `files`) the state of the files; changes nothing.
   * Ask the person, then `rewind()`. USAGE when `to` is not a prompt, SESSION_LIVE when
   * another live process owns the session.
   */
  previewRewind(prefix: string, options: RewindOptions): Promise<RewindPreview> {
    return previewRewind(this.#rewindDeps(), this.resolve(prefix), options);
  }

  /**
   * Rolls a session back to before one of its prompts (Z5): the prompt and everything after
   * it move to a new session linked by `parent_id` that holds the whole conversation
   * (continuing it undoes the rewind); with `files`, the changes its write and edit calls
   * made from there on are reverted. FILES_CHANGED (nothing changed) when such a file no
   * longer holds what bonsai left or cannot be reverted, unless `force`.
   */
  async rewind(target: string | RewindPreview, options: RewindOptions): Promise<RewindResult> {
    const preview = typeof target === "string" ? await this.previewRewind(target, options) : target;
    return await executeRewind(this.#rewindDeps(), preview, options);
  }

  #rewindDeps() {
    this.#deps.beforeRead?.();
    const { db, ids, clock, me, probe } = this.#deps;
    return { db, ids, clock, me, probe, files: this.#deps.files ?? denoRevertFiles };
  }

  /** Full-text search over every session's messages. */
  search(query: string, options: SearchOptions = {}): SearchHit[] {
    this.#deps.beforeRead?.();
    return searchMessages(this.#deps.db, query, options);
  }

  /** The id of the project at a canonical root; -1 (matching nothing) when it is unknown. */
  projectId(root: string): number {
    return new ProjectStore(this.#deps.db).find(root)?.id ?? -1;
  }

  /** The usage dashboard (U2). */
  usage(filter: UsageFilter, options: DashboardOptions): Dashboard {
    this.#deps.beforeRead?.();
    return buildDashboard(this.#deps.db, filter, options);
  }

  /** Every known setting as stored (bad values are reported, not thrown). */
  describeSettings(): StoredSetting[] {
    return describeSettings(new SettingsStore(this.#deps.db));
  }

  /**
   * Saves a setting from typed text (validated); returns the stored value. A key reference
   * (`env:NAME`) makes this process redact NAME's value from now on, as every later one does.
   */
  saveSetting(key: string, text: string): unknown {
    const value = saveSetting(new SettingsStore(this.#deps.db), key, text);
    learnSettingSecret(this.#deps.db.redactor, { value, env: this.#deps.env });
    return value;
  }

  /** Removes a saved setting. */
  unsetSetting(key: string): void {
    settingDef(key);
    new SettingsStore(this.#deps.db).set(key, null);
  }
}
