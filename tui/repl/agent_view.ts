import type { AgentEvent } from "../../core/agent/events.ts";
import type { Style } from "../render/style.ts";
import { truncate } from "../render/width.ts";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/**
 * Renders a run's events as they happen: streamed text, dim thinking, one compact line per
 * tool call (name, short arguments, ok/error, duration), retries, and a spinner while
 * waiting for the first token (terminals only).
 */
export class AgentView {
  readonly #write: (text: string) => void;
  readonly #style: Style;
  readonly #width: () => number;
  readonly #animate: boolean;
  readonly #ascii: boolean;
  #atLineStart = true;
  #mode: "text" | "thinking" | null = null;
  #spinner: ReturnType<typeof setInterval> | null = null;
  #frame = 0;

  constructor(
    options: {
      write: (text: string) => void;
      style: Style;
      width: () => number;
      animate: boolean;
      ascii: boolean;
    },
  ) {
    this.#write = options.write;
    this.#style = options.style;
    this.#width = options.width;
    this.#animate = options.animate;
    this.#ascii = options.ascii;
  }

  /** Shows the waiting spinner (until the first output). */
  waiting(): void {
    if (!this.#animate || this.#spinner !== null) return;
    this.#spinner = setInterval(() => {
      this.#frame = (this.#frame + 1) % FRAMES.length;
      this.#write(`\r${this.#style.dim(`${FRAMES[this.#frame]} thinking…`)}`);
    }, 80);
  }

  /** Stops the spinner and clears its line. */
  settle(): void {
    if (this.#spinner === null) return;
    clearInterval(this.#spinner);
    this.#spinner = null;
    this.#write("\r\x1b[2K");
  }

  /** Renders one event. */
  onEvent(e: AgentEvent): void {
    const s = this.#style;
    switch (e.type) {
      case "turn_start":
        this.waiting();
        break;
      case "text":
        this.settle();
        if (this.#mode === "thinking") this.#newline();
        this.#mode = "text";
        this.#out(e.text);
        break;
      case "thinking":
        this.settle();
        if (this.#mode !== "thinking") {
          this.#newline();
          this.#out(s.dim(s.italic("thinking: ")));
        }
        this.#mode = "thinking";
        this.#out(s.dim(e.text));
        break;
      case "tool_start":
        this.settle();
        this.#newline();
        this.#mode = null;
        this.#out(
          `${s.cyan(this.#ascii ? "*" : "●")} ${s.bold(e.name)} ${
            s.dim(
              truncate(
                e.summary.replace(/\s+/g, " "),
                Math.max(20, this.#width() - e.name.length - 4),
              ),
            )
          }\n`,
        );
        break;
      case "tool_end": {
        const ok = e.status === "ok";
        const mark = ok
          ? s.green(e.summary || "ok")
          : s.red(`${e.status}${e.summary && e.summary !== "error" ? ` · ${e.summary}` : ""}`);
        this.#out(
          `  ${s.dim(this.#ascii ? "->" : "⎿")} ${mark} ${s.dim(`· ${formatMs(e.durationMs)}`)}\n`,
        );
        this.waiting();
        break;
      }
      case "permission":
        this.#newline();
        this.#out(`${e.granted ? s.dim("  ") : s.yellow("  ")}${s.dim(e.text)}\n`);
        break;
      case "retry":
        this.settle();
        this.#newline();
        this.#out(
          s.yellow(
            `${this.#ascii ? "~" : "↻"} ${e.message} — retrying in ${
              (e.delayMs / 1000).toFixed(1)
            }s\n`,
          ),
        );
        this.#mode = null;
        break;
      case "usage":
        break;
    }
  }

  /** Ends the run's output on a fresh line. */
  finish(): void {
    this.settle();
    this.#newline();
    this.#mode = null;
  }

  #out(text: string): void {
    if (text === "") return;
    this.#write(text);
    this.#atLineStart = text.endsWith("\n");
  }

  #newline(): void {
    if (!this.#atLineStart) this.#out("\n");
  }
}

function formatMs(ms: number): string {
  return ms < 1000 ? `${ms}ms` : `${(ms / 1000).toFixed(1)}s`;
}
