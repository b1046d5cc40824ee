import type { Clock } from "../core/clock.ts";
import type { Env } from "../core/home.ts";
import type { Ids, RandomBytes } from "../core/ids.ts";
import type { ProcessProbe } from "../core/session/liveness.ts";
import type { Prompter, TextSink } from "../tui/terminal.ts";

export type { Prompter, TextSink };

/** Everything a command may touch of the outside world, built by main.ts (or a test). */
export interface World {
  readonly env: Env;
  readonly cwd: string;
  readonly clock: Clock;
  readonly ids: Ids;
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  readonly prompter: Prompter;
  readonly pid: number;
  readonly hostname: string;
  readonly fetch: typeof fetch;
  readonly version: string;
  /** In [0, 1), for backoff jitter. */
  readonly random: () => number;
  /** Secret random bytes (tokens, salts, login cookies). */
  readonly randomBytes: RandomBytes;
  /** Whether a process of this host is still running (null: cannot tell). */
  readonly probe: ProcessProbe;
}
