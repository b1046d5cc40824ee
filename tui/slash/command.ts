import type { SessionAdmin } from "../../core/service/session_admin.ts";
import type { SessionHost } from "../../core/service/session_host.ts";
import type { Style } from "../render/style.ts";

/** What a slash command can see and do in the REPL. */
export interface ReplContext {
  /** Runs the current session: prompts, titles, switching, usage of this session. */
  readonly host: SessionHost;
  /** Every session, search, usage and settings. */
  readonly admin: SessionAdmin;
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
  /** Waits up to `ms` for a key; true when one was pressed (live views; false without a terminal). */
  waitKey(ms: number): Promise<boolean>;
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
