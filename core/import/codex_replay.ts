// Forks and spawned sub-agents of Codex CLI. Their rollout opens with the child's
// session_meta (`forked_from_id`, or `source.subagent.thread_spawn.parent_thread_id`), then a
// copy of the parent's session_meta and of the parent's history up to the fork: its
// messages, turn contexts and token_count events, every line re-stamped to the fork instant
// and written in a burst of milliseconds. That history is the parent's usage, not the
// child's. ccusage 20 skips it so, and bonsai does the same:
// - with the parent's rollout among the files, the child's leading usage events that equal
//   the parent's events up to the fork (its own first line's time) are the copy;
// - otherwise (or when the first event does not match), the copy is the burst: if the
//   file's first two token_count events are at most a second apart, events are skipped
//   from the first of them for as long as each follows the previous skipped one within a
//   second. The child's own first turn comes after a real pause.
import { parseJsonLine, readFirstLine, readLineBatches } from "./jsonl_reader.ts";
import { hasUsageInfo, type RawUsage, sameUsage, UsageTracker } from "./codex_usage.ts";

/** Longest gap between two events of a replayed burst (ccusage 20's value). */
export const BURST_GAP_MS = 1_000;

/** A usage event of a parent rollout, with its time (null when unreadable). */
export interface TimedUsage {
  readonly at: number | null;
  readonly usage: RawUsage;
}

type State =
  | { readonly kind: "matching"; readonly prefix: readonly TimedUsage[]; index: number }
  | { readonly kind: "burst"; previous: number }
  | { readonly kind: "done" };

/**
 * Decides, event by event, which of a fork's leading usage events are the copied history.
 * `prefix` is the parent's usage up to the fork (empty when the parent is missing);
 * `burstStart` finds when the file's copied burst begins, or null when it has none.
 */
export class ReplayFilter {
  #state: State;
  readonly #burstStart: () => number | null;

  constructor(prefix: readonly TimedUsage[], burstStart: () => number | null) {
    this.#state = { kind: "matching", prefix, index: 0 };
    this.#burstStart = burstStart;
  }

  /** Whether every further event is the child's own. */
  get done(): boolean {
    return this.#state.kind === "done";
  }

  /** True when the event (the next one that carries usage) was copied from the parent. */
  replayed(usage: RawUsage, at: number): boolean {
    for (;;) {
      const s = this.#state;
      if (s.kind === "done") return false;
      if (s.kind === "matching") {
        const expected = s.prefix[s.index];
        if (expected && sameUsage(expected.usage, usage)) {
          s.index++;
          return true;
        }
        const start = s.index === 0 ? this.#burstStart() : null;
        this.#state = start === null ? { kind: "done" } : { kind: "burst", previous: start };
        continue;
      }
      const gap = at - s.previous;
      if (!Number.isNaN(at) && gap >= 0 && gap <= BURST_GAP_MS) {
        s.previous = at;
        return true;
      }
      this.#state = { kind: "done" };
    }
  }
}

/**
 * When a rollout's copied burst begins: the time of its first token_count event with
 * usage, if the second one follows within a second; otherwise null.
 */
export function burstStart(path: string): number | null {
  const stats = { malformed: 0 };
  let first: number | null = null;
  for (const batch of readLineBatches(path, 0)) {
    for (const text of batch.lines) {
      const line = parseJsonLine(text, stats) as Record<string, unknown> | undefined;
      const payload = line?.payload as Record<string, unknown> | undefined;
      if (line?.type !== "event_msg" || payload?.type !== "token_count") continue;
      if (!hasUsageInfo(payload)) continue;
      const at = typeof line.timestamp === "string" ? Date.parse(line.timestamp) : NaN;
      if (Number.isNaN(at)) continue;
      if (first === null) first = at;
      else return at - first >= 0 && at - first <= BURST_GAP_MS ? first : null;
    }
  }
  return null;
}

/** What a fork may have copied from its parent's rollout. */
export interface ParentRecord {
  /** Every usage event, with its time, as the import counts them (no fork rule). */
  readonly usage: readonly TimedUsage[];
  /** A hash of every conversation line (response items, user messages), with its time. */
  readonly lines: readonly { readonly at: number | null; readonly hash: number }[];
}

/** Reads a parent rollout for its forks; an unreadable one has nothing. */
export function parentRecord(path: string): ParentRecord {
  const record = { usage: [] as TimedUsage[], lines: [] as { at: number | null; hash: number }[] };
  try {
    readParent(path, record);
  } catch (err) {
    if (!unreadable(err)) throw err;
  }
  return record;
}

function readParent(
  path: string,
  out: { usage: TimedUsage[]; lines: { at: number | null; hash: number }[] },
): void {
  const stats = { malformed: 0 };
  const tracker = new UsageTracker();
  for (const batch of readLineBatches(path, 0)) {
    for (const text of batch.lines) {
      const line = parseJsonLine(text, stats) as Record<string, unknown> | undefined;
      const payload = line?.payload as Record<string, unknown> | undefined;
      if (!line || !payload || typeof payload !== "object") continue;
      const parsed = typeof line.timestamp === "string" ? Date.parse(line.timestamp) : NaN;
      const at = Number.isNaN(parsed) ? null : parsed;
      if (isConversation(line.type, payload)) {
        out.lines.push({ at, hash: payloadHash(payload) });
      } else if (line.type === "event_msg" && payload.type === "token_count") {
        const event = tracker.next(payload);
        if (event) out.usage.push({ at, usage: event.usage });
      }
    }
  }
}

/** Whether a record is part of the conversation a fork copies (and bonsai imports). */
export function isConversation(type: unknown, payload: Record<string, unknown>): boolean {
  return type === "response_item" || (type === "event_msg" && payload.type === "user_message");
}

/** A 53-bit hash of a payload's JSON (cyrb53): a copied line hashes as its original. */
export function payloadHash(payload: unknown): number {
  const text = JSON.stringify(payload);
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** The events of a parent's usage that a fork at `forkedAt` copied: those up to that time. */
export function forkPrefix<T extends { readonly at: number | null }>(
  events: readonly T[],
  forkedAt: number | null,
): readonly T[] {
  if (forkedAt === null) return events;
  const end = events.findIndex((e) => e.at !== null && e.at > forkedAt);
  return end < 0 ? events : events.slice(0, end);
}

/** What a rollout's first line says about where it came from. */
export interface RolloutOrigin {
  /** The session id (`session_meta.payload.id`). */
  readonly id: string | null;
  /** The session it was forked or spawned from, if any. */
  readonly parentId: string | null;
  /** The first line's time: the fork instant for a fork. */
  readonly at: number | null;
}

/** Reads a rollout's origin from its first line (ccusage reads only that line too). */
export function rolloutOrigin(path: string): RolloutOrigin {
  let first: string | null;
  try {
    first = readFirstLine(path);
  } catch (err) {
    if (unreadable(err)) return { id: null, parentId: null, at: null };
    throw err;
  }
  return originOf(first === null ? undefined : parseJsonLine(first, { malformed: 0 }));
}

function unreadable(err: unknown): boolean {
  return err instanceof Deno.errors.NotFound || err instanceof Deno.errors.PermissionDenied;
}

/** The origin recorded by a rollout's first record (a session_meta, or nothing known). */
export function originOf(record: unknown): RolloutOrigin {
  const r = record as Record<string, unknown> | null | undefined;
  const at = typeof r?.timestamp === "string" ? Date.parse(r.timestamp) : NaN;
  const p = r?.type === "session_meta" ? r.payload as Record<string, unknown> : undefined;
  if (!p || typeof p !== "object") return { id: null, parentId: null, at: null };
  const spawn = (p.source as { subagent?: { thread_spawn?: { parent_thread_id?: unknown } } })
    ?.subagent?.thread_spawn?.parent_thread_id;
  // An empty `forked_from_id` hides the spawn parent, as in ccusage.
  const parent = typeof p.forked_from_id === "string" ? p.forked_from_id : spawn;
  return {
    id: typeof p.id === "string" ? p.id : null,
    parentId: typeof parent === "string" && parent !== "" ? parent : null,
    at: Number.isNaN(at) ? null : at,
  };
}
