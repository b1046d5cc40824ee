import assert from "node:assert/strict";
import { join } from "node:path";
import { ClaimStore } from "../../core/storage/claims.ts";
import { LeaseStore } from "../../core/storage/leases.ts";
import { SessionStore } from "../../core/storage/sessions.ts";
import { openTestDb } from "../support/db.ts";
import { tempDir } from "../support/temp.ts";
import { cli, testWorld } from "../support/world.ts";

/** A project with two live peers (one claiming, one waiting for the lease), a stale one and one elsewhere. */
async function peersHome(dir: string) {
  const project = join(dir, "app");
  const other = join(dir, "other");
  await Deno.mkdir(project);
  await Deno.mkdir(other);
  const home = join(dir, "home");
  const { db, ids, clock } = await openTestDb(home);
  const sessions = new SessionStore(db, ids);
  const live = (path: string, title: string, pid: number) => {
    const s = sessions.create({ projectPath: path, title, ownerPid: pid, ownerHost: "box" });
    const epoch = sessions.claim(s.id, s.epoch, { pid, host: "box" }, clock.now())!;
    sessions.heartbeat(s.id, epoch, clock.now(), 0, null);
    return { s, epoch };
  };
  const parser = live(await Deno.realPath(project), "Parser work", 101);
  sessions.heartbeat(parser.s.id, parser.epoch, clock.now(), 0, "running exec: deno test");
  db.prepare("UPDATE sessions SET model = 'claude-sonnet-4-5' WHERE id = ?").run(parser.s.id);
  new ClaimStore(db).take(parser.s.projectId, parser.s.id, {
    pathGlob: "src/parser/**",
    note: "splitting the lexer out",
    now: clock.now(),
    expiresAt: clock.now() + 60 * 60_000,
  });
  const docs = live(await Deno.realPath(project), "Docs", 102);
  new LeaseStore(db).setWaiting(docs.s.id, docs.s.projectId, clock.now());
  const stale = live(await Deno.realPath(project), "Gone quiet", 103);
  db.prepare("UPDATE sessions SET heartbeat_at = ? WHERE id = ?").run(
    clock.now() - 60_000,
    stale.s.id,
  );
  live(await Deno.realPath(other), "Elsewhere", 104);
  db.close();
  return { home, project, other, clock, parser: parser.s, docs: docs.s };
}

Deno.test("bonsai peers --json: every live peer of the project with its documented fields", async () => {
  await using dir = await tempDir();
  const h = await peersHome(dir.path);
  const t = testWorld({ home: h.home, cwd: h.project, clock: h.clock });
  assert.equal(await cli(t.world, "peers", "--json"), 0, t.stderr.text);
  const peers = JSON.parse(t.stdout.text);
  const at = new Date(h.clock.now()).toISOString();
  assert.deepEqual(
    peers.sort((x: { title: string }, y: { title: string }) => x.title.localeCompare(y.title)),
    [
      {
        session_id: h.docs.id,
        title: "Docs",
        pid: 102,
        host: "box",
        model: null,
        activity: null,
        waiting_for_lease: true,
        heartbeat_at: at,
        claims: [],
      },
      {
        session_id: h.parser.id,
        title: "Parser work",
        pid: 101,
        host: "box",
        model: "claude-sonnet-4-5",
        activity: "running exec: deno test",
        waiting_for_lease: false,
        heartbeat_at: at,
        claims: [{
          path: "src/parser/**",
          note: "splitting the lexer out",
          expires_at: new Date(h.clock.now() + 60 * 60_000).toISOString(),
        }],
      },
    ],
  );
  // --project looks at another project; a table for people.
  const elsewhere = testWorld({ home: h.home, cwd: h.project, clock: h.clock });
  assert.equal(await cli(elsewhere.world, "peers", "--project", h.other, "--json"), 0);
  assert.deepEqual(JSON.parse(elsewhere.stdout.text).map((p: { title: string }) => p.title), [
    "Elsewhere",
  ]);
  const human = testWorld({ home: h.home, cwd: h.project, clock: h.clock });
  assert.equal(await cli(human.world, "peers"), 0);
  assert.match(human.stdout.text, /Parser work[\s\S]*running exec: deno test/);
  assert.match(human.stdout.text, /Docs[\s\S]*waiting for the write lease/);
  assert.doesNotMatch(human.stdout.text, /Gone quiet|Elsewhere/);
});

Deno.test("bonsai peers: no peers is said plainly; a bad --project is one line and exit 2", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const t = testWorld({ home, cwd: dir.path });
  assert.equal(await cli(t.world, "peers"), 0);
  assert.match(t.stdout.text, /No other live bonsai session in this project/);
  const json = testWorld({ home, cwd: dir.path });
  assert.equal(await cli(json.world, "peers", "--json"), 0);
  assert.deepEqual(JSON.parse(json.stdout.text), []);
  const bad = testWorld({ home, cwd: dir.path });
  assert.equal(await cli(bad.world, "peers", "--project", join(dir.path, "nope")), 2);
  assert.match(bad.stderr.text, /--project: .* is not a directory/);
  assert.equal(bad.stderr.text.trim().split("\n").length, 1);
});
