import { type SessionJson, sessionJson } from "../session/session_json.ts";
import type { RewindResult } from "./rewind.ts";

/** The stable JSON of a rewind, for `--json` and the HTTP API (snake_case). */
export interface RewindJson {
  session: SessionJson;
  /** The new session holding the whole conversation (continue it to undo the rewind). */
  linked_session: SessionJson;
  /** The prompt rewound to: it and everything after it moved to the linked session. */
  to_seq: number;
  prompt: string;
  kept_messages: number;
  moved_messages: number;
  moved_ledger_rows: number;
  moved_tool_calls: number;
  /** Files the rewound part changed with write or edit. */
  changed_files: string[];
  /** `exec` calls in the rewound part: what they did cannot be undone. */
  exec_calls: { call_id: string; command: string; status: string }[];
  /** Null when files were not reverted. */
  files: {
    reverted: { path: string; action: "restored" | "deleted" }[];
    changed_since: string[];
    unchanged: string[];
    unrevertable: { path: string; reason: string }[];
    failed: { path: string; reason: string }[];
  } | null;
}

/** A rewind's result as JSON. */
export function rewindJson(r: RewindResult): RewindJson {
  return {
    session: sessionJson(r.session),
    linked_session: sessionJson(r.linked),
    to_seq: r.point.seq,
    prompt: r.point.text,
    kept_messages: r.keptMessages,
    moved_messages: r.movedMessages,
    moved_ledger_rows: r.movedLedgerRows,
    moved_tool_calls: r.movedToolCalls,
    changed_files: [...r.changedFiles],
    exec_calls: r.execCalls.map((c) => ({
      call_id: c.callId,
      command: c.command,
      status: c.status,
    })),
    files: r.files
      ? {
        reverted: [...r.files.reverted],
        changed_since: [...r.files.changedSince],
        unchanged: [...r.files.unchanged],
        unrevertable: [...r.files.unrevertable],
        failed: [...r.files.failed],
      }
      : null,
  };
}
