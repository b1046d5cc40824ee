import type { LedgerEntry } from "../storage/ledger.ts";

/** What the loop reports while it works; front ends render these. */
export type AgentEvent =
  | { readonly type: "turn_start"; readonly turn: number }
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "thinking"; readonly text: string }
  | {
    readonly type: "tool_start";
    readonly callId: string;
    readonly name: string;
    readonly summary: string;
  }
  | {
    readonly type: "tool_end";
    readonly callId: string;
    readonly name: string;
    readonly status: string;
    readonly summary: string;
    readonly durationMs: number;
  }
  | { readonly type: "permission"; readonly text: string; readonly granted: boolean }
  | {
    readonly type: "retry";
    readonly attempt: number;
    readonly delayMs: number;
    readonly message: string;
  }
  | { readonly type: "usage"; readonly entry: LedgerEntry };
