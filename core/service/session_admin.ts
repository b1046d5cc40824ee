import type { Clock } from "../clock.ts";
import { BonsaiError } from "../errors.ts";
import type { Env } from "../home.ts";
import type { Ids } from "../ids.ts";
import { learnSettingSecret } from "../secrets.ts";
import { liveSessionError } from "../session/lifecycle.ts";
import { liveElsewhere, type ProcessId, type ProcessProbe } from "../session/liveness.ts";
import { type SessionDetail, sessionDetail } from "../session/session_detail.ts";
import type { Db } from "../storage/db.ts";
import { type Message, MessageStore } from "../storage/messages.ts";
import { type SearchHit, searchMessages, type SearchOptions } from "../storage/search.ts";
import { type ListSessionsOptions, type Session, SessionStore } from "../storage/sessions.ts";
import { SettingsStore } from "../storage/settings.ts";
import type { UsageFilter } from "../storage/usage_queries.ts";
import { buildDashboard, type Dashboard, type DashboardOptions } from "../usage/dashboard.ts";
import {
  describeSettings,
  saveSetting,
  settingDef,
  type StoredSetting,
} from "./settings_catalog.ts";

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

  /** Sessions, pinned first, then by content recency. */
  list(options: ListSessionsOptions = {}): Session[] {
    this.#deps.beforeRead?.();
    return this.#store.list(options);
  }

  /** The shortest unambiguous prefix of each id (at least 8 characters). */
  shortIds(ids: readonly string[]): Map<string, string> {
    return this.#store.shortIds(ids);
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

  /** Full-text search over every session's messages. */
  search(query: string, options: SearchOptions = {}): SearchHit[] {
    this.#deps.beforeRead?.();
    return searchMessages(this.#deps.db, query, options);
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
