import type { PermissionAnswer, PermissionRequest } from "../../core/agent/permissions.ts";
import type { Clock } from "../../core/clock.ts";
import { BonsaiError } from "../../core/errors.ts";
import type { CloseReason, TurnOutcome } from "../../core/service/end_state.ts";
import type { HostEvent } from "../../core/service/host_events.ts";
import type { SessionAdmin } from "../../core/service/session_admin.ts";
import type { SessionHost } from "../../core/service/session_host.ts";
import { renderStatusLine } from "../render/status_line.ts";
import type { Style } from "../render/style.ts";
import type { ReplContext, SlashCommand } from "../slash/command.ts";
import { findCommand, SLASH_COMMANDS, suggestCommand } from "../slash/registry.ts";
import { AgentView } from "./agent_view.ts";

/** How the REPL talks to the person (readline in a terminal; a script in tests). */
export interface ReplIO {
  write(text: string): void;
  readonly isTerminal: boolean;
  /** One line of input for a question (permission prompts); rejects when `signal` aborts. */
  question(prompt: string, signal?: AbortSignal): Promise<string>;
  pick(
    message: string,
    choices: readonly { value: string; name: string }[],
  ): Promise<string | null>;
  confirm(message: string): Promise<boolean>;
  /** Shows the prompt again after output that came while it waited (a wake's turn). */
  reprompt?(): void;
  /**
   * Shows text that arrived while the prompt waits (a peer's message): the status line and
   * prompt give way to it, and are drawn again below it, with what was typed, when `prompt`.
   */
  notify?(text: string, prompt: boolean): void;
  /** Resolves true when a key is pressed within `ms`, false when not (live views). */
  waitKey?(ms: number): Promise<boolean>;
}

/** What the REPL is built from. */
export interface ReplOptions {
  readonly host: SessionHost;
  readonly admin: SessionAdmin;
  readonly clock: Clock;
  readonly io: ReplIO;
  readonly style: Style;
  readonly ascii: boolean;
  readonly width: () => number;
  readonly timeZone: string;
}

/** How the REPL ended. */
export type QuitReason = Extract<CloseReason, "quit" | "eof" | "sigint" | "sigterm" | "error">;

/**
 * The interactive front end (A1): renders the session host's events and asks the person
 * what the host asks (permissions); slash commands go to their modules. It never runs the
 * session itself: persistence, heartbeat, cancellation and end states are the host's.
 */
export class Repl implements ReplContext {
  readonly #o: ReplOptions;
  #view: AgentView | null = null;
  /** The open permission question, taken back when its turn ends (Ctrl-C answers nothing). */
  #question: AbortController | null = null;
  readonly commands: readonly SlashCommand[] = SLASH_COMMANDS;

  constructor(options: ReplOptions) {
    this.#o = options;
    options.host.subscribe((e) => this.#render(e));
  }

  // --- ReplContext ---------------------------------------------------------------------

  get host(): SessionHost {
    return this.#o.host;
  }
  get admin(): SessionAdmin {
    return this.#o.admin;
  }
  get style(): Style {
    return this.#o.style;
  }
  get width(): number {
    return this.#o.width();
  }
  get ascii(): boolean {
    return this.#o.ascii;
  }
  get timeZone(): string {
    return this.#o.timeZone;
  }
  get isTerminal(): boolean {
    return this.#o.io.isTerminal;
  }
  get now(): number {
    return this.#o.clock.now();
  }

  print(text: string): void {
    this.#o.io.write(text);
  }

  confirm(message: string): Promise<boolean> {
    return this.#o.io.confirm(message);
  }

  pick(
    message: string,
    choices: readonly { value: string; name: string }[],
  ): Promise<string | null> {
    return this.#o.io.pick(message, choices);
  }

  waitKey(ms: number): Promise<boolean> {
    return this.#o.io.waitKey?.(ms) ?? Promise.resolve(false);
  }

  // --- the loop ------------------------------------------------------------------------

  /** The status line shown before each prompt. */
  statusLine(): string {
    return renderStatusLine(this.#o.host.statusInfo(), {
      style: this.#o.style,
      width: this.width,
      ascii: this.#o.ascii,
    });
  }

  /** Handles one input line; returns "quit" when the REPL should end. */
  async handle(line: string): Promise<"quit" | void> {
    const text = line.trim();
    if (text === "") return;
    try {
      if (text.startsWith("/")) return await this.#slash(text);
      await this.#prompt(line);
    } catch (err) {
      if (!(err instanceof BonsaiError)) throw err;
      this.print(this.#o.style.red(`${err.message}\n`));
    }
  }

  /** Ctrl-C: cancels the running reply or tool; false when nothing was running. */
  cancel(): boolean {
    return this.#o.host.cancel("user");
  }

  /** Tab completion: slash commands, then their arguments (session ids, setting keys). */
  complete(line: string): [string[], string] {
    if (!line.startsWith("/")) return [[], line];
    const space = line.indexOf(" ");
    if (space < 0) {
      const names = this.commands.flatMap((c) => [c.name, ...(c.aliases ?? [])]).map((n) =>
        `/${n}`
      );
      const hits = names.filter((n) => n.startsWith(line));
      return [hits.length ? hits : names, line];
    }
    const command = findCommand(line.slice(1, space));
    const partial = line.slice(space + 1);
    const options = command?.complete?.(this, partial) ?? [];
    return [options.map((o) => `${line.slice(0, space + 1)}${o}`), line];
  }

  /** Leaves: the host settles a running turn, records the end state and saves everything. */
  async close(reason: QuitReason): Promise<void> {
    this.#view?.settle();
    await this.#o.host.close(reason);
  }

  async #slash(text: string): Promise<"quit" | void> {
    const space = text.indexOf(" ");
    const name = text.slice(1, space < 0 ? undefined : space);
    const args = space < 0 ? "" : text.slice(space + 1);
    const command = findCommand(name, this.commands);
    if (!command) {
      const guess = suggestCommand(name, this.commands);
      this.print(
        this.#o.style.yellow(
          `Unknown command /${name}.${guess ? ` Did you mean /${guess}?` : ""} /help lists them.\n`,
        ),
      );
      return;
    }
    return await command.run(this, args);
  }

  async #prompt(text: string): Promise<void> {
    const host = this.#o.host;
    if (host.configError && !host.model) {
      // Try anyway: a key set since (or a fixed setting) makes it work; else the error says what to set.
      this.print(this.#o.style.dim("(no model was configured when the REPL started)\n"));
    }
    await this.#turn(() => host.prompt(text));
  }

  /** A turn started by a wake: rendered like a prompt's, then the prompt is shown again. */
  async #continue(hops: number): Promise<void> {
    try {
      await this.#turn(() => this.#o.host.continueTurn(hops));
    } catch (err) {
      if (!(err instanceof BonsaiError)) throw err;
      this.print(this.#o.style.red(`${err.message}\n`));
    }
    this.#o.io.reprompt?.();
  }

  async #turn(run: () => Promise<TurnOutcome>): Promise<void> {
    const view = new AgentView({
      write: (t) => this.print(t),
      style: this.#o.style,
      width: () => this.width,
      animate: this.#o.io.isTerminal,
      ascii: this.#o.ascii,
    });
    this.#view = view;
    try {
      const outcome = await run();
      view.finish();
      this.#report(outcome);
    } finally {
      view.settle();
      this.#view = null;
      this.#question?.abort();
    }
  }

  /** Renders a host event: the running turn's through its view; notices at any time. */
  #render(e: HostEvent): void {
    const s = this.#o.style;
    switch (e.type) {
      case "notice":
        this.#view?.settle();
        this.print(
          e.level === "warning" ? s.yellow(`bonsai: ${e.message}\n`) : s.dim(`${e.message}\n`),
        );
        return;
      case "permission_request":
        this.#view?.settle();
        void this.#ask(e.request).then((answer) => this.#o.host.answerPermission(e.id, answer));
        return;
      case "review_start": {
        const what = [
          e.verify ? `verifying with \`${e.verify}\`` : null,
          e.selfReview ? "reviewing the session's diff" : null,
        ].filter(Boolean).join(", then ");
        this.#view?.finish();
        this.print(s.dim(`${what}…\n`));
        return;
      }
      case "peer_message": {
        this.#view?.settle();
        const head = e.kind === "wake" ? "woken by" : "message from";
        const line = `${s.cyan(`${head} '${e.fromTitle}'`)} ${
          s.dim(`(${e.from.slice(0, 10)})`)
        }: ${e.text}\n`;
        if (this.#view || !this.#o.io.notify) this.print(line);
        else this.#o.io.notify(line, !e.startsTurn);
        return;
      }
      case "wake":
        // A peer this session waited for is done: go on without a new prompt.
        if (!this.#o.host.busy) void this.#continue(e.hops);
        return;
      case "turn_end":
      case "session":
        return;
      default:
        this.#view?.onEvent(e);
    }
  }

  /** What the person should know once a turn is over. */
  #report({ result, review }: TurnOutcome): void {
    const s = this.#o.style;
    if (result.status === "cancelled") {
      this.print(s.dim("(cancelled; what was written so far is kept)\n"));
    } else if (result.status === "failed") {
      this.print(s.red(`${result.error?.message ?? "failed"}\n`));
    } else if (result.budgetExhaustion) {
      const b = result.budgetExhaustion;
      this.print(
        s.yellow(
          `Budget exhausted: ${b.reason} (used ${round(b.used)} of ${
            round(b.limit)
          }). Send another prompt to go on.\n`,
        ),
      );
    }
    if (result.cost.enforcement && !result.cost.enforcement.enforced) {
      this.print(
        s.dim(
          `The session cost limit is not enforced exactly: ${result.cost.enforcement.reason}.\n`,
        ),
      );
    }
    const v = review?.verification;
    if (v) {
      this.print(
        v.exitCode === 0
          ? s.green(`Verification \`${v.command}\` passed.\n`)
          : s.red(`Verification \`${v.command}\` failed (exit ${v.exitCode ?? "timeout"}).\n`),
      );
    }
    if (review?.reviewed) {
      this.print(
        review.findings.length === 0
          ? s.green("Self-review found nothing to report.\n")
          : review.findings.map((f) =>
            `${s.yellow(`review [${f.severity}]`)} ${f.path ? `${f.path}: ` : ""}${f.message}\n`
          ).join(""),
      );
    }
  }

  async #ask(request: PermissionRequest): Promise<PermissionAnswer> {
    const s = this.#o.style;
    const verb = request.kind === "exec" ? "Run" : "Write";
    // "Always for this project" saves exact allow rules; offered only when there are some.
    const saves = request.saves ?? [];
    const project = saves.length === 0
      ? ""
      : `, always for this ${s.bold("p")}roject (saves ${
        saves.map((p) => `allow ${request.kind} '${p}'`).join(", ")
      })`;
    const question = new AbortController();
    this.#question = question;
    try {
      for (;;) {
        const answer = (await this.#o.io.question(
          `${s.yellow("?")} ${verb} ${s.bold(request.summary)} ${s.dim(`(${request.tool})`)} — ${
            s.bold("y")
          }es once, ${s.bold("a")}lways this session${project}, ${s.bold("n")}o: `,
          question.signal,
        )).trim().toLowerCase();
        if (["y", "yes"].includes(answer)) return "once";
        if (["a", "always"].includes(answer)) return "always";
        if (project && ["p", "project"].includes(answer)) return "project";
        if (["n", "no", ""].includes(answer)) return "deny";
      }
    } catch {
      // The turn ended first (Ctrl-C: the host has settled the request already), or the
      // input closed (piped input ran out): either way no one can answer, which is a no.
      return "deny";
    } finally {
      if (this.#question === question) this.#question = null;
    }
  }
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
