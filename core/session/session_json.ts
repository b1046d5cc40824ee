import type { SearchHit } from "../storage/search.ts";
import type { Session } from "../storage/sessions.ts";

/** The stable JSON shape of a session for `--json` output and the HTTP API (snake_case). */
export interface SessionJson {
  id: string;
  title: string;
  status: string;
  end_reason: string | null;
  pinned: boolean;
  project_path: string;
  created_at: string;
  updated_at: string;
  message_count: number;
  total_tokens: number;
  turns: number;
  cost_usd: number;
  cost_exact: boolean;
  unpriced_attempts: number;
  provider: string | null;
  model: string | null;
  source: string;
}

/** A session as JSON. */
export function sessionJson(s: Session): SessionJson {
  return {
    id: s.id,
    title: s.title,
    status: s.status,
    end_reason: s.endReason,
    pinned: s.pinned,
    project_path: s.projectPath,
    created_at: new Date(s.createdAt).toISOString(),
    updated_at: new Date(s.contentUpdatedAt).toISOString(),
    message_count: s.messageCount,
    total_tokens: s.totalTokens,
    turns: s.turns,
    cost_usd: roundUsd(s.costUsd),
    cost_exact: s.unpricedAttempts === 0,
    unpriced_attempts: s.unpricedAttempts,
    provider: s.provider,
    model: s.model,
    source: s.source,
  };
}

/** Rounds money to a millionth of a dollar, removing float noise from sums. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}

/** A search hit as JSON (`bonsai search --json`, `GET /api/user/search`). */
export function searchHitJson(hit: SearchHit): Record<string, unknown> {
  return {
    session_id: hit.sessionId,
    session_title: hit.sessionTitle,
    project_path: hit.projectPath,
    role: hit.role,
    seq: hit.seq,
    snippet: hit.snippet,
    highlights: hit.highlights,
    created_at: new Date(hit.createdAt).toISOString(),
    score: hit.score,
  };
}
