import * as readline from "node:readline";
import process from "node:process";
import type { Style } from "../render/style.ts";
import type { QuitReason, Repl, ReplIO } from "./repl.ts";

/** Ctrl-C twice within this long on an empty prompt quits. */
const DOUBLE_CTRL_C_MS = 2000;

/** The REPL's terminal: readline for lines, history and Tab; inquirer for the picker. */
export interface TerminalSession {
  readonly io: ReplIO;
  /** Runs the prompt loop until /quit, Ctrl-D, Ctrl-C twice, or end of input. */
  run(repl: Repl): Promise<QuitReason>;
  /** Ends the loop from outside (signals). */
  stop(reason: QuitReason): void;
}

/** A terminal session on the process's stdin and stdout. */
export function terminalSession(options: { style: Style }): TerminalSession {
  const isTerminal = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  let repl: Repl | null = null;
  const rl = readline.createInterface({
    input: process.stdin,
    output: process.stdout,
    terminal: isTerminal,
    historySize: 500,
    completer: (line: string) => repl?.complete(line) ?? [[], line],
  });
  // Lines can arrive (piped input) and input can end before the loop starts: keep both.
  const early: string[] = [];
  let onLine: ((line: string) => void) | null = null;
  rl.on("line", (line: string) => (onLine ? onLine(line) : early.push(line)));
  let inputClosed = false;
  const closeListeners: (() => void)[] = [];
  rl.on("close", () => {
    inputClosed = true;
    for (const l of closeListeners) l();
  });
  const write = (text: string) => {
    process.stdout.write(text);
  };
  const io: ReplIO = {
    write,
    isTerminal,
    question: (prompt, signal) =>
      new Promise((resolve, reject) => {
        if (!signal) return rl.question(prompt, resolve);
        signal.addEventListener("abort", () => {
          write("\n");
          reject(signal.reason);
        }, { once: true });
        rl.question(prompt, { signal }, resolve);
      }),
    async pick(message, choices) {
      if (!isTerminal) {
        choices.forEach((c, i) => write(`  ${i + 1}) ${c.name}\n`));
        const answer = await new Promise<string>((resolve) =>
          rl.question(`${message} (number, Enter to cancel): `, resolve)
        );
        return choices[Number(answer.trim()) - 1]?.value ?? null;
      }
      rl.pause();
      try {
        const { select } = await import("@inquirer/prompts");
        return await select({ message, choices: [...choices] });
      } catch {
        return null; // Ctrl-C in the picker cancels it
      } finally {
        // inquirer leaves stdin cooked and paused: give readline its terminal back.
        process.stdin.setRawMode?.(true);
        process.stdin.resume();
        rl.resume();
      }
    },
    async confirm(message) {
      const answer = await new Promise<string>((resolve) =>
        rl.question(`${message} [y/N] `, resolve)
      );
      return /^y(es)?$/i.test(answer.trim());
    },
    reprompt: () => reprompt(),
    notify(text, again) {
      if (isTerminal && promptShown) {
        // The status line and the prompt are the last two lines: the text takes their place.
        readline.cursorTo(process.stdout, 0);
        readline.moveCursor(process.stdout, 0, -1);
        readline.clearScreenDown(process.stdout);
        promptShown = false;
      }
      write(text);
      if (again) reprompt();
    },
    waitKey(ms) {
      if (!isTerminal) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        const done = (pressed: boolean) => {
          clearTimeout(timer);
          process.stdin.off("keypress", onKey);
          if (pressed) {
            rl.write("", { ctrl: true, name: "u" }); // the key is not input
            // Erasing it drew the prompt again: the line is the command's output's again.
            readline.cursorTo(process.stdout, 0);
            readline.clearLine(process.stdout, 0);
          }
          resolve(pressed);
        };
        const onKey = () => done(true);
        const timer = setTimeout(() => done(false), ms);
        process.stdin.on("keypress", onKey);
      });
    },
  };
  // Set by run(): shows the status line and prompt again after output between prompts.
  let reprompt = () => {};
  /** The status line and prompt are the last lines on screen, waiting for input. */
  let promptShown = false;
  let finish: (reason: QuitReason) => void = () => {};
  const done = new Promise<QuitReason>((resolve) => (finish = resolve));
  return {
    io,
    stop: (reason) => finish(reason),
    async run(r) {
      repl = r;
      const queue: string[] = [];
      let working: Promise<void> | null = null;
      let ended = false;
      let lastCtrlC = 0;
      const prompt = () => {
        if (ended || inputClosed) return;
        write(`${r.statusLine()}\n`);
        rl.setPrompt(options.style.bold(options.style.green("> ")));
        rl.prompt(true); // keeps what was typed before the prompt was drawn again
        promptShown = true;
      };
      reprompt = () => {
        if (!working) prompt();
      };
      const pump = async () => {
        while (queue.length > 0 && !ended) {
          const line = queue.shift()!;
          const outcome = await r.handle(line);
          if (outcome === "quit") {
            finish("quit");
            return;
          }
        }
        prompt();
      };
      onLine = (line: string) => {
        promptShown = false;
        queue.push(line);
        if (!working) working = pump().finally(() => (working = null));
      };
      for (const line of early.splice(0)) onLine(line);
      rl.on("SIGINT", () => {
        if (r.cancel()) {
          write(options.style.dim("^C\n"));
          return;
        }
        if (rl.line.length > 0) {
          rl.write("", { ctrl: true, name: "u" });
          return;
        }
        const now = Date.now();
        if (now - lastCtrlC < DOUBLE_CTRL_C_MS) {
          finish("sigint");
          return;
        }
        lastCtrlC = now;
        write(options.style.dim("\n(Ctrl-C again, Ctrl-D or /quit to leave)\n"));
        rl.prompt();
      });
      const onClose = async () => {
        // End of input: finish what was typed first (piped input), then leave.
        while (working) await working;
        finish("eof");
      };
      if (inputClosed) void onClose();
      else closeListeners.push(() => void onClose());
      prompt();
      const reason = await done;
      ended = true;
      if (!inputClosed) rl.close();
      return reason;
    },
  };
}
