import assert from "node:assert/strict";
import { join } from "node:path";
import { cli, testWorld } from "../support/world.ts";
import { seedHistory } from "../support/seed.ts";
import { tempDir } from "../support/temp.ts";
import { FakeClock } from "../support/fake_clock.ts";

Deno.test("bonsai search --json returns the documented fields, best first", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const clock = new FakeClock();
  const ids = await seedHistory(home, { projectA: "/proj/a", projectB: "/proj/b", clock });
  const t = testWorld({ home, clock });
  assert.equal(await cli(t.world, "search", "login", "test", "--json"), 0);
  const hits = JSON.parse(t.stdout.text) as Record<string, unknown>[];
  assert.equal(hits.length, 2);
  assert.deepEqual(
    Object.keys(hits[0]!).sort(),
    [
      "created_at",
      "highlights",
      "project_path",
      "role",
      "score",
      "seq",
      "session_id",
      "session_title",
      "snippet",
    ],
  );
  assert.equal(hits[0]!.session_id, ids.login);
  assert.equal(hits[0]!.project_path, "/proj/a");
  assert.ok((hits[0]!.score as number) >= (hits[1]!.score as number));
});

Deno.test("bonsai search prints snippets for people and filters by project and time", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const clock = new FakeClock();
  await seedHistory(home, { projectA: "/proj/a", projectB: "/proj/b", clock });
  const human = testWorld({ home, clock });
  assert.equal(await cli(human.world, "search", "项目"), 0);
  assert.match(human.stdout.text, /其他项目 · user · 2026-11-30 09:02/);
  assert.match(human.stdout.text, /\*项目\*/, "matches are marked without colour");
  const colored = testWorld({ home, clock, env: { NO_COLOR: "", FORCE_COLOR: "1" } });
  await cli(colored.world, "search", "项目");
  assert.ok(colored.stdout.text.includes("\x1b[1m\x1b[33m项目"), colored.stdout.text);
  const scoped = testWorld({ home, clock });
  await cli(scoped.world, "search", "项目", "--project", "/proj/a", "--json");
  assert.deepEqual(JSON.parse(scoped.stdout.text), []);
  const recent = testWorld({ home, clock });
  clock.advance(3_600_000);
  await cli(recent.world, "search", "login", "--since", "1h", "--json");
  assert.deepEqual(JSON.parse(recent.stdout.text), []);
  const bad = testWorld({ home, clock });
  assert.equal(await cli(bad.world, "search", "login", "--since", "yesterday"), 2);
  assert.match(bad.stderr.text, /Cannot read time 'yesterday'/);
  const badLimit = testWorld({ home, clock });
  assert.equal(await cli(badLimit.world, "search", "login", "--limit", "0"), 2);
  assert.match(badLimit.stderr.text, /--limit: .*greater than or equal to 1/);
  const notNumber = testWorld({ home, clock });
  assert.equal(await cli(notNumber.world, "search", "login", "--limit", "many"), 2);
  assert.match(notNumber.stderr.text, /--limit: expected a number, got 'many'\n$/);
  const nothing = testWorld({ home, clock });
  assert.equal(await cli(nothing.world, "search", "--", "-*-"), 0);
  assert.match(nothing.stderr.text, /no letters or digits/);
});
