import type { Db } from "../storage/db.ts";
import { type Episode, EpisodeStore } from "../storage/episodes.ts";
import { type Message, MessageStore } from "../storage/messages.ts";
import type { Session } from "../storage/sessions.ts";
import { sessionJson } from "./session_json.ts";

/** Everything `sessions show` reports about one session. */
export interface SessionDetail {
  readonly session: Session;
  readonly episodes: readonly Episode[];
  /** The stable JSON document (`sessions show --json`). */
  readonly json: Record<string, unknown>;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Gathers the session's records into one document. */
export function sessionDetail(db: Db, session: Session): SessionDetail {
  return db.read(() => {
    const episodes = new EpisodeStore(db).list(session.id);
    const messages = new MessageStore(db).list(session.id);
    const json = {
      ...sessionJson(session),
      reasoning: session.reasoning,
      end_detail: session.endDetail,
      heartbeat_at: iso(session.heartbeatAt),
      active_ms: session.activeMs,
      parent_id: session.parentId,
      episodes: episodes.map((e) => ({
        ordinal: e.ordinal,
        boundary: e.boundary,
        title: e.title,
        summary: e.summary,
        start_seq: e.startSeq,
        end_seq: e.endSeq,
        started_at: iso(e.startedAt),
        ended_at: iso(e.endedAt),
      })),
      messages: messages.map(messageJson),
    };
    return { session, episodes, json };
  });
}

/** A transcript entry as JSON. */
export function messageJson(m: Message): Record<string, unknown> {
  return {
    seq: m.seq,
    role: m.role,
    kind: m.kind,
    text: m.text,
    tool_call_id: m.toolCallId,
    tool_name: m.toolName,
    tool_args: m.toolArgs,
    tool_result: m.toolResult,
    is_error: m.isError,
    status: m.status,
    created_at: new Date(m.createdAt).toISOString(),
  };
}
