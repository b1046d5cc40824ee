import { raceAbort } from "../abort.ts";
import type { ToolPermission } from "./tools/tool.ts";

/** A person's answer to a permission prompt. */
export type PermissionAnswer = "once" | "always" | "deny";

/** What is being asked. */
export interface PermissionRequest {
  readonly tool: string;
  readonly kind: Exclude<ToolPermission, "none">;
  /** The command or path, shortened. */
  readonly summary: string;
}

/** How a request was settled, for the record (every request and answer is stored). */
export interface PermissionDecision {
  readonly granted: boolean;
  /**
   * flag: --allow; session: "always" earlier; user: asked now; headless: no one to ask;
   * cancelled: the run was cancelled while the question was open.
   */
  readonly by: "flag" | "session" | "user" | "headless" | "cancelled";
  readonly answer: PermissionAnswer | null;
}

/** Asks a person; settles "deny" or rejects when `signal` aborts. */
export type PermissionAsker = (
  request: PermissionRequest,
  signal: AbortSignal,
) => Promise<PermissionAnswer>;

/** Decides whether write/exec tools may run: flags, earlier "always" answers, else ask (or deny headless). */
export class PermissionGate {
  readonly #allowed: Set<string>;
  readonly #ask: PermissionAsker | null;

  constructor(options: { allow?: Iterable<"write" | "exec">; ask?: PermissionAsker | null }) {
    this.#allowed = new Set(options.allow ?? []);
    this.#ask = options.ask ?? null;
  }

  /** Settles a request; a cancelled run never leaves the question hanging. */
  async decide(request: PermissionRequest, signal: AbortSignal): Promise<PermissionDecision> {
    if (this.#allowed.has(request.kind)) return { granted: true, by: "flag", answer: null };
    if (this.#allowed.has(`${request.kind}:session`)) {
      return { granted: true, by: "session", answer: "always" };
    }
    if (!this.#ask) return { granted: false, by: "headless", answer: null };
    if (signal.aborted) return { granted: false, by: "cancelled", answer: null };
    let answer: PermissionAnswer;
    try {
      answer = await raceAbort(this.#ask(request, signal), signal);
    } catch (err) {
      if (signal.aborted) return { granted: false, by: "cancelled", answer: null };
      throw err;
    }
    if (answer === "always") this.#allowed.add(`${request.kind}:session`);
    return { granted: answer !== "deny", by: "user", answer };
  }
}

/** One line for the transcript describing a decision. */
export function describeDecision(request: PermissionRequest, decision: PermissionDecision): string {
  const what = `Permission to ${
    request.kind === "exec" ? "run" : "write"
  } (${request.tool}): ${request.summary}`;
  switch (decision.by) {
    case "flag":
      return `${what} — allowed by --allow ${request.kind}`;
    case "session":
      return `${what} — allowed (always for this session)`;
    case "headless":
      return `${what} — denied: no one to ask in headless mode (pass --allow ${request.kind} or --allow-all)`;
    case "cancelled":
      return `${what} — not answered: the run was cancelled`;
    case "user":
      return `${what} — ${
        decision.answer === "deny"
          ? "denied by the user"
          : decision.answer === "always"
          ? "allowed always for this session"
          : "allowed once"
      }`;
  }
}
