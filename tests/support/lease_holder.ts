// A process that takes a project's write lease and commits a file under it when told to:
// the lease race test stops it (SIGSTOP) between the two, as a paused bonsai would be.
// Usage: deno run -A lease_holder.ts HOME PROJECT FILE TTL_MS
import { join } from "node:path";
import { leasedWorkspace } from "../../core/peers/workspace.ts";
import type { WriteLease } from "../../core/peers/write_lease.ts";
import { leaseOf, openHome, ownSession, waitForFile } from "../../scripts/lib/peer_process.ts";

const [home, project, file, ttl] = Deno.args as [string, string, string, string];
const db = await openHome(home);
const runtime = ownSession(db, project);
const lease = leaseOf(db, runtime, { ttlMs: Number(ttl) });
// Take the lease the way a write does, and hold it until told to commit.
const token = await lease.acquire();
const before = await Deno.readTextFile(file);
await Deno.writeTextFile(join(home, "held"), String(token));
await waitForFile(join(home, "go"), 5);
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
