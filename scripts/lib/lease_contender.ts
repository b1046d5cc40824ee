// One of the processes contending for a project's write lease in `deno task bench peers`:
// a session of PROJECT takes the lease, commits one fenced transaction under it and gives
// it back, COUNT times, once HOME/go exists. Prints one JSON line: the time of each
// acquire + commit + release, in ms.
//   deno run -A lease_contender.ts HOME PROJECT COUNT
import { systemClock } from "../../core/clock.ts";
import { homeAt } from "../../core/home.ts";
import { cryptoRandom, ulidSource } from "../../core/ids.ts";
import { WriteLease } from "../../core/peers/write_lease.ts";
import { createRedactor } from "../../core/secrets.ts";
import { startSession } from "../../core/session/lifecycle.ts";
import { openDatabase } from "../../core/storage/db.ts";

const [home, project, count] = Deno.args as [string, string, string];
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
});
for (;;) {
  try {
    Deno.statSync(`${home}/go`);
    break;
  } catch {
    await new Promise((r) => setTimeout(r, 2));
  }
}
const samples: number[] = [];
for (let i = 0; i < Number(count); i++) {
  const t = performance.now();
  const token = await lease.acquire();
  // A commit under the lease as a write or edit makes it: one transaction that confirms
  // the token (a write) and then writes the session's pending changes.
  lease.commit(token, () => runtime.flush());
  lease.release(token);
  samples.push(performance.now() - t);
}
console.log(JSON.stringify(samples));
db.close();
