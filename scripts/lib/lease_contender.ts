// One of the processes contending for a project's write lease in `deno task bench peers`:
// a session of PROJECT takes the lease, commits one fenced transaction under it and gives
// it back, COUNT times, once HOME/go exists. Prints one JSON line: the time of each
// acquire + commit + release, in ms.
//   deno run -A lease_contender.ts HOME PROJECT COUNT
import { leaseOf, openHome, ownSession, waitForFile } from "./peer_process.ts";

const [home, project, count] = Deno.args as [string, string, string];
const db = await openHome(home);
const runtime = ownSession(db, project);
const lease = leaseOf(db, runtime);
await waitForFile(`${home}/go`);
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
