import assert from "node:assert/strict";
import { join } from "node:path";
import { PermissionAdmin } from "../../../core/service/permission_admin.ts";
import { openTestDb } from "../../support/db.ts";
import { tempDir } from "../../support/temp.ts";

async function admin() {
  const dir = await tempDir();
  const { db, ids, clock } = await openTestDb(join(dir.path, "home"));
  return {
    admin: new PermissionAdmin(db, ids),
    db,
    clock,
    count: () =>
      (db.connection.prepare("SELECT count(*) AS n FROM permission_rules").get() as { n: number })
        .n,
    async [Symbol.asyncDispose]() {
      db.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

Deno.test("PermissionAdmin: project rules apply in their project only; global rules everywhere", async () => {
  await using h = await admin();
  const global = h.admin.add({ effect: "deny", kind: "write", pattern: ".env", projectRoot: null });
  const a = h.admin.add({
    effect: "allow",
    kind: "exec",
    pattern: "npm test",
    projectRoot: "/p/a",
  });
  const b = h.admin.add({ effect: "allow", kind: "exec", pattern: "make", projectRoot: "/p/b" });
  assert.deepEqual(h.admin.list({ inForce: "/p/a" }).map((r) => r.id), [global.id, a.id]);
  assert.deepEqual(h.admin.list({ inForce: "/p/b" }).map((r) => r.id), [global.id, b.id]);
  assert.deepEqual(h.admin.list({ all: true }).map((r) => r.id), [global.id, a.id, b.id]);
  assert.deepEqual(h.admin.gateRules("/p/c").list().map((r) => r.pattern), [".env"]);
  assert.equal(a.createdAt, h.clock.now());
});

Deno.test("PermissionAdmin.add() keeps one copy of a rule and trims the pattern", async () => {
  await using h = await admin();
  const first = h.admin.add({
    effect: "allow",
    kind: "exec",
    pattern: " npm test ",
    projectRoot: "/p",
  });
  const again = h.admin.add({
    effect: "allow",
    kind: "exec",
    pattern: "npm test",
    projectRoot: "/p",
  });
  assert.equal(first.pattern, "npm test");
  assert.equal(again.id, first.id);
  h.admin.add({ effect: "allow", kind: "exec", pattern: "npm test", projectRoot: null });
  h.admin.add({ effect: "deny", kind: "exec", pattern: "npm test", projectRoot: "/p" });
  assert.equal(h.count(), 3);
});

Deno.test("PermissionAdmin.add() refuses bad input and stores nothing", async (t) => {
  await using h = await admin();
  const cases: [string, string, string, RegExp][] = [
    ["permit", "exec", "npm test", /'allow' or 'deny', not 'permit'/],
    ["allow", "read", "x", /'write' \(file paths\) or 'exec' \(commands\), not 'read'/],
    ["allow", "exec", "npm test; rm -rf /", /more than one command/],
    ["allow", "exec", "*", /first word\) must be written out/],
    ["deny", "write", "../x", /'\.\.' would leave the project/],
  ];
  for (const [effect, kind, pattern, message] of cases) {
    await t.step(`${effect} ${kind} ${pattern}`, () => {
      assert.throws(
        () => h.admin.add({ effect, kind, pattern, projectRoot: null }),
        (err: Error & { code?: string }) => err.code === "USAGE" && message.test(err.message),
      );
    });
  }
  assert.equal(h.count(), 0);
});

Deno.test("PermissionAdmin.remove() takes a unique id prefix", async () => {
  await using h = await admin();
  const one = h.admin.add({ effect: "allow", kind: "exec", pattern: "a", projectRoot: null });
  const two = h.admin.add({ effect: "allow", kind: "exec", pattern: "b", projectRoot: null });
  let shared = 0;
  while (one.id[shared] === two.id[shared]) shared++;
  assert.throws(() => h.admin.remove(one.id.slice(0, shared)), { code: "AMBIGUOUS_ID" });
  assert.throws(() => h.admin.remove("zzzz"), { code: "NOT_FOUND" });
  assert.throws(() => h.admin.remove("a b"), { code: "USAGE" });
  assert.equal(h.admin.remove(one.id.slice(0, shared + 1).toUpperCase()).id, one.id);
  assert.deepEqual(h.admin.list({ all: true }).map((r) => r.id), [two.id]);
});

Deno.test("PermissionAdmin.gateRules() saves 'always for this project' rules for its project", async () => {
  await using h = await admin();
  const saved = h.admin.gateRules("/p/a").saveForProject("exec", ["npm test", "npm run lint"]);
  assert.deepEqual(saved.map((r) => [r.effect, r.kind, r.pattern, r.projectRoot]), [
    ["allow", "exec", "npm test", "/p/a"],
    ["allow", "exec", "npm run lint", "/p/a"],
  ]);
  assert.equal(h.admin.list({ inForce: "/p/b" }).length, 0);
});
