// Drives a real terminal: the program runs inside tmux, the test types keys and reads the screen.

const decoder = new TextDecoder();

/** One tmux server (private socket) with one window running a command. */
export class Tmux {
  readonly #socket: string;

  private constructor(socket: string) {
    this.#socket = socket;
  }

  /** Starts `argv` in a fresh tmux server, in `cwd`, with exactly `env` (plus TERM). */
  static async start(
    argv: string[],
    options: { cwd: string; env: Record<string, string>; width?: number; height?: number },
  ): Promise<Tmux> {
    const socket = `bonsai-test-${crypto.randomUUID().slice(0, 8)}`;
    const t = new Tmux(socket);
    const quoted = argv.map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ");
    const envArgs = Object.entries({ ...options.env, TERM: "xterm-256color" }).map(([k, v]) =>
      `${k}=${v}`
    );
    // `env -i` gives the program exactly the test's environment; the trailing sleep keeps the
    // pane readable after the program exits.
    const command = `env -i ${
      envArgs.map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ")
    } ${quoted}; echo "[exit $?]"; sleep 30`;
    await t.#tmux([
      "new-session",
      "-d",
      "-s",
      "main",
      "-x",
      String(options.width ?? 120),
      "-y",
      String(options.height ?? 50),
      "-c",
      options.cwd,
      command,
    ]);
    return t;
  }

  /** Types text (literally) and optionally presses Enter. */
  async type(text: string, enter = true): Promise<void> {
    await this.#tmux(["send-keys", "-t", "main", "-l", text]);
    if (enter) await this.keys("Enter");
  }

  /** Presses keys by tmux name (Enter, C-c, C-d, Tab, Down, ...). */
  async keys(...names: string[]): Promise<void> {
    await this.#tmux(["send-keys", "-t", "main", ...names]);
  }

  /** The screen and scrollback as text. */
  async screen(): Promise<string> {
    return await this.#tmux(["capture-pane", "-t", "main", "-p", "-S", "-2000"]);
  }

  /** Waits until the screen matches, or fails with what it shows. */
  async waitFor(pattern: RegExp, timeoutMs = 15_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = await this.screen();
      if (pattern.test(screen)) return screen;
      if (Date.now() > deadline) {
        throw new Error(`timed out waiting for ${pattern}; the screen shows:\n${screen}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async kill(): Promise<void> {
    await this.#tmux(["kill-server"]).catch(() => "");
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.kill();
  }

  async #tmux(args: string[]): Promise<string> {
    const out = await new Deno.Command("tmux", {
      args: ["-L", this.#socket, ...args],
      stdout: "piped",
      stderr: "piped",
    })
      .output();
    if (!out.success) throw new Error(`tmux ${args[0]} failed: ${decoder.decode(out.stderr)}`);
    return decoder.decode(out.stdout);
  }
}

/** Whether tmux is installed (the REPL e2e tests need it). */
export function hasTmux(): boolean {
  try {
    return new Deno.Command("tmux", { args: ["-V"], stdout: "null", stderr: "null" }).outputSync()
      .success;
  } catch {
    return false;
  }
}
