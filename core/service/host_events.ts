import type { AgentEvent } from "../agent/events.ts";
import type { PermissionRequest } from "../agent/permissions.ts";
import type { Session } from "../storage/sessions.ts";
import type { TurnOutcome } from "./end_state.ts";

/**
 * What the session host tells its front ends, in order. A front end renders these and
 * answers `permission_request`s with `SessionHost.answerPermission()`; it never writes the
 * session itself.
 */
export type HostEvent =
  | AgentEvent
  | {
    /** A write or exec tool waits for a person's answer (interactive hosts only). */
    readonly type: "permission_request";
    readonly id: number;
    readonly request: PermissionRequest;
  }
  | {
    /** Something the person should know that does not stop the session. */
    readonly type: "notice";
    readonly level: "info" | "warning";
    readonly message: string;
  }
  | { readonly type: "review_start"; readonly verify: string | null; readonly selfReview: boolean }
  | {
    /** A message or wake from a peer session arrived (it is in the transcript and context). */
    readonly type: "peer_message";
    readonly kind: "message" | "wake";
    readonly from: string;
    readonly fromTitle: string;
    readonly text: string;
    /** A wake that starts a turn by itself: a `wake` event follows (the session was idle). */
    readonly startsTurn: boolean;
  }
  | {
    /**
     * A wake may start a turn by itself (an interactive front end calls `continueTurn()`);
     * within the hop and rate limits of automatic wakes.
     */
    readonly type: "wake";
    readonly from: string;
    readonly hops: number;
  }
  | { readonly type: "turn_end"; readonly outcome: TurnOutcome }
  | {
    /**
     * The host now runs another session: after /new, /clear or /resume, or a fork that
     * carries this process's work on after another process took the session over.
     */
    readonly type: "session";
    readonly session: Session;
    readonly reason: "new" | "clear" | "resumed" | "forked";
  };
