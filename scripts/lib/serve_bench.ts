// A real `bonsai serve` for benchmarks: a token in the home, the process, and its address.
import { Credentials } from "../../core/api/credentials.ts";
import { systemClock } from "../../core/clock.ts";
import { homeAt } from "../../core/home.ts";
import { cryptoRandom } from "../../core/ids.ts";
import { createRedactor } from "../../core/secrets.ts";
import { openDatabase } from "../../core/storage/db.ts";
import { bonsaiRunArgs } from "./bench_util.ts";

/** A running server: its URL, a bearer token, and the process (the caller stops it). */
export interface BenchServer {
  readonly url: string;
  readonly token: string;
  readonly child: Deno.ChildProcess;
}

/** Creates a token in `home`, starts `bonsai serve --port 0` on it, and waits for its address. */
export async function startBenchServer(
  home: string,
  options: { env?: Record<string, string>; args?: string[]; cwd?: string } = {},
): Promise<BenchServer> {
  const db = await openDatabase({
    home: homeAt(home),
    clock: systemClock,
    redactor: createRedactor(),
  });
  const { token } = new Credentials(db, cryptoRandom).createToken("bench");
  db.close();
  const child = new Deno.Command(Deno.execPath(), {
    args: [...bonsaiRunArgs(), "serve", "--port", "0", "--json", ...(options.args ?? [])],
    cwd: options.cwd,
    env: { BONSAI_HOME: home, NO_COLOR: "1", ...options.env },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) throw new Error("bonsai serve exited before listening");
    text += value;
  }
  reader.releaseLock();
  const { url } = JSON.parse(text.slice(0, text.indexOf("\n"))) as { url: string };
  return { url, token, child };
}
