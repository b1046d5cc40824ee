import assert from "node:assert/strict";
import { join } from "node:path";
import { isBonsaiError } from "../../../core/errors.ts";
import { leasedWorkspace } from "../../../core/peers/workspace.ts";
import { WriteLease } from "../../../core/peers/write_lease.ts";
import { startSession } from "../../../core/session/lifecycle.ts";
import { LeaseStore } from "../../../core/storage/leases.ts";
import { openTestDb } from "../../support/db.ts";
import { tempDir } from "../../support/temp.ts";

async function setup() {
  const dir = await tempDir();
  const { db, clock, ids } = await openTestDb(join(dir.path, "home"));
  const session = (pid: number) =>
    startSession(db, ids, { projectPath: "/work/app", owner: { pid, host: "h" } });
  const a = session(1);
  const b = session(2);
  const lease = (who: typeof a, extra: Partial<ConstructorParameters<typeof WriteLease>[0]> = {}) =>
    new WriteLease({
      db,
      clock,
      projectId: who.session.projectId,
      sessionId: who.id,
      ttlMs: 30_000,
      maxWaitMs: 0,
      ...extra,
    });
  return { dir, db, clock, a, b, lease };
}

Deno.test("WriteLease: one holder per project; the lease passes on release, on expiry, and when its holder died", async (t) => {
  const s = await setup();
  await using _dir = s.dir;
  using _db = s.db;
  const holders = () => new LeaseStore(s.db).current(s.a.session.projectId)?.sessionId ?? null;
  await t.step(
    "held by a live peer: a waiter gives up at its bound with who holds it",
    async () => {
      const token = await s.lease(s.a).acquire();
      const seen: string[] = [];
      await assert.rejects(
        () => s.lease(s.b, { onWait: (h) => seen.push(h.sessionId) }).acquire(),
        (err: unknown) =>
          isBonsaiError(err, "LEASE_BUSY") && /stayed with 'New conversation'/.test(err.message),
      );
      assert.deepEqual(seen, [s.a.id], "told once who holds it");
      s.lease(s.a).release(token);
      assert.equal(holders(), null);
    },
  );
  await t.step("released: the next one takes it with a newer token", async () => {
    const first = await s.lease(s.a).acquire();
    s.lease(s.a).release(first);
    const second = await s.lease(s.b).acquire();
    assert.ok(second > first);
    assert.equal(holders(), s.b.id);
    s.lease(s.b).release(second);
  });
  await t.step("expired: taken over", async () => {
    await s.lease(s.a).acquire();
    s.clock.advance(30_001);
    s.a.heartbeat(s.clock.now());
    s.b.heartbeat(s.clock.now());
    await s.lease(s.b).acquire();
    assert.equal(holders(), s.b.id);
  });
  await t.step("its holder's process is gone: taken over at once", async () => {
    const b = await s.lease(s.b).acquire();
    assert.ok(b > 0);
    await s.lease(s.a, { probe: (pid) => pid !== 2 }).acquire();
    assert.equal(holders(), s.a.id);
  });
});

Deno.test("WriteLease: a holder paused while another took the lease commits nothing (fencing token)", async () => {
  const s = await setup();
  await using _dir = s.dir;
  using _db = s.db;
  const stale = await s.lease(s.a).acquire();
  s.clock.advance(30_001); // a was paused past its lease
  s.b.heartbeat(s.clock.now());
  const fresh = await s.lease(s.b).acquire();
  let ran = false;
  s.lease(s.b).commit(fresh, () => (ran = true));
  assert.equal(ran, true);
  assert.throws(
    () => s.lease(s.a).commit(stale, () => (ran = false)),
    (err: unknown) => isBonsaiError(err, "LEASE_LOST"),
  );
  assert.equal(ran, true, "the stale holder's commit ran nothing");
  // Expired but nobody took it: the commit still goes through (no one else could write).
  s.lease(s.b).release(fresh);
  const own = await s.lease(s.a).acquire();
  s.clock.advance(60_000);
  s.lease(s.a).commit(own, () => {});
});

Deno.test("the leased workspace: writes only on the content the change was based on, keeps the file's mode, says why not", async () => {
  const s = await setup();
  await using _dir = s.dir;
  using _db = s.db;
  const file = join(s.dir.path, "run.sh");
  await Deno.writeTextFile(file, "echo one\n");
  await Deno.chmod(file, 0o755);
  const ws = leasedWorkspace(s.lease(s.a));
  const target = { abs: file, rel: "run.sh" };
  const signal = new AbortController().signal;
  assert.equal(await ws.replaceFile(target, "echo two\n", "echo one\n", signal), null);
  assert.equal(await Deno.readTextFile(file), "echo two\n");
  assert.equal((await Deno.stat(file)).mode! & 0o777, 0o755);
  const refused = await ws.replaceFile(target, "echo three\n", "echo one\n", signal);
  assert.match(refused!, /Not written: run\.sh changed since you read it .* read it again/);
  assert.equal(await Deno.readTextFile(file), "echo two\n");
  assert.match((await ws.replaceFile(target, "new\n", null, signal))!, /changed since you read it/);
  const fresh = { abs: join(s.dir.path, "sub", "new.txt"), rel: "sub/new.txt" };
  assert.equal(await ws.replaceFile(fresh, "hello\n", null, signal), null);
  assert.deepEqual(
    [...Deno.readDirSync(s.dir.path)].map((e) => e.name).filter((n) => n.includes(".tmp")),
    [],
  );
  // The lease is given back after every write.
  assert.equal(new LeaseStore(s.db).current(s.a.session.projectId), null);
});
