import type { RunResult } from "../agent/loop.ts";
import type { SessionStatus } from "../storage/sessions.ts";
import type { ReviewOutcome } from "./agent_factory.ts";

/** What cancelled a turn: the person (Ctrl-C, a cancel button) or a signal to the process. */
export type CancelCause = "user" | "sigint" | "sigterm";

/** One prompt's outcome: the agent's run, what verification and self-review found. */
export interface TurnOutcome {
  readonly result: RunResult;
  readonly review: ReviewOutcome | null;
  /** What cancelled the turn, when something did. */
  readonly cancelledBy: CancelCause | null;
}

/**
 * Why a session stops being the host's: the person left (`quit`, `eof`, `sigint` when the
 * REPL is left with Ctrl-C), the process is told to stop (`sigterm`), something broke
 * (`error`), a one-prompt run is over (`done`), the host moved on to another session
 * (`new`, `clear`, `switched`), or another process took the session over while a one-prompt
 * run worked (`taken`: the run's work went to a fork, which ends interrupted).
 */
export type CloseReason =
  | "quit"
  | "eof"
  | "sigint"
  | "sigterm"
  | "error"
  | "done"
  | "new"
  | "clear"
  | "switched"
  | "taken";

/** The typed terminal state recorded on the session row (L5). */
export interface EndState {
  readonly status: SessionStatus;
  readonly reason: string;
  readonly detail: string | null;
}

/** The end state for a close reason; `done` takes it from the last turn. */
export function endStateFor(
  reason: CloseReason,
  last: TurnOutcome | null,
  detail: string | null = null,
): EndState {
  switch (reason) {
    case "sigterm":
      return { status: "interrupted", reason: "sigterm", detail };
    case "error":
      return { status: "failed", reason: "error", detail };
    case "taken":
      return { status: "interrupted", reason: "taken_over", detail };
    case "done":
      return last ? turnEndState(last) : { status: "completed", reason: "completed", detail };
    default:
      return { status: "completed", reason, detail };
  }
}

function turnEndState(turn: TurnOutcome): EndState {
  const r = turn.result;
  switch (r.status) {
    case "completed":
      // Cancelled after the reply (during verification or self-review) is still cancelled.
      return turn.cancelledBy === null
        ? { status: "completed", reason: "completed", detail: null }
        : cancelledState(turn);
    case "budget_exhausted": {
      const b = r.budgetExhaustion!;
      return {
        status: "budget_exhausted",
        reason: b.reason,
        detail: JSON.stringify({ limit: b.limit, used: b.used }),
      };
    }
    case "cancelled":
      return cancelledState(turn);
    case "failed":
      return { status: "failed", reason: "provider_error", detail: r.error?.message ?? null };
  }
}

function cancelledState(turn: TurnOutcome): EndState {
  return {
    status: "cancelled",
    reason: turn.cancelledBy === "sigint" ? "sigint" : "cancelled",
    detail: null,
  };
}
