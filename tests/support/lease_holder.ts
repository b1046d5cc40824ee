// A process that takes a project's write lease and commits a file under it when told to:
// the lease race test stops it (SIGSTOP) between the two, as a paused bonsai would be.
// Usage: deno run -A lease_holder.ts HOME PROJECT FILE TTL_MS
import { join } from "node:path";
import { systemClock } from "../../core/clock.ts";
import { homeAt } from "../../core/home.ts";
import { cryptoRandom, ulidSource } from "../../core/ids.ts";
import { leasedWorkspace } from "../../core/peers/workspace.ts";
import { WriteLease } from "../../core/peers/write_lease.ts";
import { createRedactor } from "../../core/secrets.ts";
import { startSession } from "../../core/session/lifecycle.ts";
import { openDatabase } from "../../core/storage/db.ts";

const [home, project, file, ttl] = Deno.args as [string, string, string, string];
const db = await openDatabase({
  home: homeAt(home),
  clock: systemClock,
  redactor: createRedactor(),
});
const runtime = startSession(db, ulidSource(systemClock, cryptoRandom), {
  projectPath: project,
  owner: { pid: Deno.pid, host: Deno.hostname() },
});
const lease = new WriteLease({
  db,
  clock: systemClock,
  projectId: runtime.session.projectId,
  sessionId: runtime.id,
  ttlMs: Number(ttl),
});
// Take the lease the way a write does, and hold it until told to commit.
const token = await lease.acquire();
const before = await Deno.readTextFile(file);
await Deno.writeTextFile(join(home, "held"), String(token));
while (true) {
  try {
    Deno.statSync(join(home, "go"));
    break;
  } catch {
    await new Promise((r) => setTimeout(r, 5));
  }
}
// The commit: under the same token, as leasedWorkspace does it.
const ws = leasedWorkspace({
  acquire: () => Promise.resolve(token),
  commit: (t: number, fn: () => unknown) => lease.commit(t, fn),
  release: (t: number) => lease.release(t),
} as unknown as WriteLease);
const refused = await ws.replaceFile(
  { abs: file, rel: "shared.txt" },
  `${before}from the paused holder\n`,
  before,
  new AbortController().signal,
);
console.log(JSON.stringify({ committed: refused === null, refused }));
db.close();
