import assert from "node:assert/strict";
import { homeAt } from "../../../core/home.ts";
import { takeBackup } from "../../../core/storage/backups.ts";
import { LeaseStore } from "../../../core/storage/leases.ts";
import { RESTORE_FENCE_MARGIN, restoreBackup } from "../../../core/storage/restore.ts";
import { SessionStore } from "../../../core/storage/sessions.ts";
import { MIGRATIONS } from "../../../migrations/mod.ts";
import { openTestDb } from "../../support/db.ts";
import { FakeClock } from "../../support/fake_clock.ts";
import { tempDir, treeHash } from "../../support/temp.ts";

const OWNER = { pid: 999, host: "elsewhere" };

/** A database with a backup of its early state, then a live session holding its project's lease. */
async function leasedHome(dir: string, clock: FakeClock) {
  const { db, ids } = await openTestDb(dir, { clock });
  const sessions = new SessionStore(db, ids);
  const s = sessions.create({ projectPath: "/p", ownerPid: OWNER.pid });
  const backup = await takeBackup(db.connection, {
    home: homeAt(dir),
    clock,
    version: MIGRATIONS.length,
  });
  const epoch = sessions.claim(s.id, 0, OWNER, clock.now())!;
  const got = new LeaseStore(db).tryAcquire(s.projectId, s.id, clock.now(), 30_000, () => true);
  assert.ok("token" in got);
  return { db, session: s, epoch, token: got.token, name: backup.split("/").pop()! };
}

const restoreOptions = (dir: string, clock: FakeClock, name: string) => ({
  home: homeAt(dir),
  clock,
  name,
  force: true,
  liveElsewhere: () => true,
  leaseHeld: (h: { expiresAt: number; heartbeatAt: number | null; status: string }) =>
    h.status === "active" && h.expiresAt > clock.now(),
});

Deno.test("db restore: a forced restore waits for a held write lease, and gives up changing nothing", async () => {
  await using dir = await tempDir();
  const clock = new FakeClock();
  const home = await leasedHome(dir.path, clock);
  home.db.close(); // the lease stays held: it is a row, not a connection
  const before = await treeHash(dir.path);
  // Time passes while the restore waits; the holder keeps its lease.
  const ticking = setInterval(() => clock.advance(100), 5);
  try {
    await assert.rejects(
      restoreBackup({ ...restoreOptions(dir.path, clock, home.name), maxLeaseWaitMs: 2_000 }),
      (err: Error & { code?: string }) => {
        assert.equal(err.code, "LEASE_BUSY");
        assert.match(err.message, /holds its project's write lease/);
        return true;
      },
    );
  } finally {
    clearInterval(ticking);
  }
  assert.deepEqual(await treeHash(dir.path), before, "a restore that gave up changes nothing");
});

Deno.test("db restore: after the lease is given back the restore goes ahead and fences out every earlier writer", async () => {
  await using dir = await tempDir();
  const clock = new FakeClock();
  const home = await leasedHome(dir.path, clock);
  const { session, epoch, token } = home;
  const leases = new LeaseStore(home.db);
  // The holder finishes its write a little later; the restore waited for it.
  const released = new Promise<void>((resolve) =>
    setTimeout(() => {
      leases.release(token, clock.now());
      resolve();
    }, 150)
  );
  const started = performance.now();
  await restoreBackup(restoreOptions(dir.path, clock, home.name));
  await released;
  assert.ok(performance.now() - started >= 140, "the restore waited for the lease");

  // The process that wrote before the restore is fenced out of the restored history: its
  // session's epoch moved past the one it holds, its lease token is not current.
  const sessions = new SessionStore(home.db);
  assert.throws(() => sessions.fence(session.id, epoch), /SESSION_TAKEN|taken|another/i);
  assert.throws(
    () => home.db.write(() => leases.confirm(session.projectId, token, clock.now(), 30_000)),
    (err: Error & { code?: string }) => err.code === "LEASE_LOST",
  );
  // New tokens continue above every old one.
  const next = leases.tryAcquire(session.projectId, session.id, clock.now(), 30_000, () => true);
  assert.ok("token" in next && next.token > token + RESTORE_FENCE_MARGIN - 1, JSON.stringify(next));
  const row = home.db.prepare("SELECT epoch FROM sessions WHERE id = ?").get(session.id) as {
    epoch: number;
  };
  assert.ok(row.epoch > epoch, `epoch ${row.epoch} after ${epoch}`);
  assert.equal(sessions.claim(session.id, row.epoch, OWNER, clock.now()), row.epoch + 1);
  home.db.close();
});
