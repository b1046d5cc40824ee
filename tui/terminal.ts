// The terminal as ports: text sinks and a prompter. main.ts plugs in the real ones below;
// tests plug in fakes.

/** Where output goes. */
export interface TextSink {
  /** Writes text as is (include the newline). */
  write(text: string): void;
  readonly isTerminal: boolean;
  /** Terminal width, or null when not a terminal. */
  readonly columns: number | null;
}

/** Interactive questions. */
export interface Prompter {
  /** Whether a person can answer (stdin and stdout are terminals). */
  readonly interactive: boolean;
  confirm(message: string, defaultValue?: boolean): Promise<boolean>;
  select<T extends string>(
    message: string,
    choices: readonly { value: T; name: string; description?: string }[],
  ): Promise<T>;
  /** Reads a secret without echoing it. */
  password(message: string): Promise<string>;
}

/** Raised when the reader of our output has gone away (`bonsai ... | head`). */
export class BrokenPipe extends Error {}

/** A sink over a Deno file (stdout or stderr) that writes everything or raises BrokenPipe. */
export function fileSink(file: typeof Deno.stdout | typeof Deno.stderr): TextSink {
  const encoder = new TextEncoder();
  const isTerminal = file.isTerminal();
  return {
    isTerminal,
    get columns() {
      if (!isTerminal) return null;
      try {
        return Deno.consoleSize().columns;
      } catch {
        return null; // not every terminal reports a size
      }
    },
    write(text: string) {
      let bytes = encoder.encode(text);
      while (bytes.length > 0) {
        try {
          const n = file.writeSync(bytes);
          bytes = bytes.subarray(n);
        } catch (err) {
          if (err instanceof Deno.errors.BrokenPipe) throw new BrokenPipe("output closed");
          throw err;
        }
      }
    },
  };
}

/** Prompts through @inquirer/prompts (loaded on first use). */
export function inquirerPrompter(): Prompter {
  return {
    interactive: Deno.stdin.isTerminal() && Deno.stdout.isTerminal(),
    async confirm(message, defaultValue = false) {
      const { confirm } = await import("@inquirer/prompts");
      return await confirm({ message, default: defaultValue });
    },
    async select(message, choices) {
      const { select } = await import("@inquirer/prompts");
      return await select({ message, choices: [...choices] });
    },
    async password(message) {
      const { password } = await import("@inquirer/prompts");
      return await password({ message, mask: "*" });
    },
  };
}
