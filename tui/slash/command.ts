import type { Db } from "../../core/storage/db.ts";
import type { Session } from "../../core/storage/sessions.ts";
import type { SessionRuntime } from "../../core/session/runtime.ts";
import type { SessionService } from "../../core/service/session_service.ts";
import type { Agent } from "../../core/agent/loop.ts";
import type { Style } from "../render/style.ts";

/** What a slash command can see and do in the REPL. */
export interface ReplContext {
  readonly db: Db;
  readonly service: SessionService;
  readonly runtime: SessionRuntime;
  /** Null when no provider is configured. */
  readonly agent: Agent | null;
  readonly style: Style;
  readonly width: number;
  readonly ascii: boolean;
  readonly timeZone: string;
  readonly isTerminal: boolean;
  readonly now: number;
  /** Writes text for the user (add the newline). */
  print(text: string): void;
  /** Asks yes/no (defaults to no without a terminal). */
  confirm(message: string): Promise<boolean>;
  /** Lets the user pick one of several choices; null when cancelled. */
  pick(
    message: string,
    choices: readonly { value: string; name: string }[],
  ): Promise<string | null>;
  /** Completes the current session and starts a fresh one (/clear, /new). */
  rotate(reason: "clear" | "new"): Promise<void>;
  /** Switches to another session of this project (/resume); throws with a clear refusal. */
  resume(target: Session): Promise<void>;
  /** Every slash command, for /help. */
  readonly commands: readonly SlashCommand[];
}

/** A slash command (A1). Every one listed by /help works. */
export interface SlashCommand {
  readonly name: string;
  readonly aliases?: readonly string[];
  /** Argument synopsis for /help, e.g. "[id]". */
  readonly args?: string;
  readonly summary: string;
  /** Runs it; "quit" ends the REPL. */
  run(ctx: ReplContext, args: string): Promise<void | "quit">;
  /** Completions for the argument being typed. */
  complete?(ctx: ReplContext, partial: string): string[];
}
