import assert from "node:assert/strict";
import { join } from "node:path";
import { cli, ScriptedPrompter, testWorld } from "../support/world.ts";
import { seedHistory } from "../support/seed.ts";
import { tempDir } from "../support/temp.ts";
import { FakeClock } from "../support/fake_clock.ts";

async function setup() {
  const dir = await tempDir();
  const home = join(dir.path, "home");
  const projectA = join(dir.path, "a");
  const projectB = join(dir.path, "b");
  await Deno.mkdir(projectA);
  await Deno.mkdir(projectB);
  const clock = new FakeClock();
  const ids = await seedHistory(home, {
    projectA: await Deno.realPath(projectA),
    projectB: await Deno.realPath(projectB),
    clock,
  });
  return { dir, home, projectA, projectB, ids, clock };
}

Deno.test("bonsai sessions --json lists this project's sessions with the documented fields", async () => {
  const s = await setup();
  await using _ = s.dir;
  const { world, stdout } = testWorld({ home: s.home, cwd: s.projectA, clock: s.clock });
  assert.equal(await cli(world, "sessions", "--json"), 0);
  const rows = JSON.parse(stdout.text) as Record<string, unknown>[];
  assert.deepEqual(rows.map((r) => r.title), ["Add a cache", "Fix the login test"]);
  for (
    const key of [
      "id",
      "title",
      "status",
      "pinned",
      "project_path",
      "created_at",
      "updated_at",
      "message_count",
      "total_tokens",
    ]
  ) {
    assert.ok(key in rows[0]!, `missing ${key}`);
  }
  assert.match(rows[0]!.created_at as string, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  assert.equal(rows[1]!.message_count, 2);
  assert.equal(rows[0]!.pinned, false);
});

Deno.test("bonsai sessions --all and --project choose the projects", async () => {
  const s = await setup();
  await using _ = s.dir;
  const all = testWorld({ home: s.home, cwd: s.projectA, clock: s.clock });
  assert.equal(await cli(all.world, "sessions", "--all", "--json"), 0);
  assert.equal(JSON.parse(all.stdout.text).length, 3);
  const b = testWorld({ home: s.home, cwd: s.projectA, clock: s.clock });
  assert.equal(await cli(b.world, "sessions", "--project", s.projectB, "--json"), 0);
  assert.deepEqual(JSON.parse(b.stdout.text).map((r: { title: string }) => r.title), ["其他项目"]);
  const both = testWorld({ home: s.home, cwd: s.projectA, clock: s.clock });
  assert.equal(await cli(both.world, "sessions", "--all", "--project", s.projectB), 2);
  assert.match(both.stderr.text, /either --project or --all/);
});

Deno.test("bonsai sessions prints a table that fits COLUMNS", async () => {
  const s = await setup();
  await using _ = s.dir;
  const { world, stdout } = testWorld({
    home: s.home,
    cwd: s.projectA,
    clock: s.clock,
    env: { COLUMNS: "60" },
  });
  s.clock.advance(5 * 60_000);
  assert.equal(await cli(world, "sessions"), 0);
  const lines = stdout.text.trimEnd().split("\n");
  assert.match(lines[0]!, /^ID\s+TITLE\s+STATUS/);
  assert.equal(lines.length, 3);
  assert.ok(lines.every((l) => l.length <= 60), stdout.text);
  assert.match(
    lines[1]!,
    /interrupted/,
    "sessions left active by a gone process are recovered at boot",
  );
  assert.match(lines[1]!, /6 min ago/);
  assert.ok(!lines[0]!.includes("CREATED"), "the least useful column goes first when narrow");
  assert.ok(!stdout.text.includes("\x1b["), "NO_COLOR means no escapes");
});

Deno.test("bonsai sessions rename/pin/unpin/show work with id prefixes", async () => {
  const s = await setup();
  await using _ = s.dir;
  const run = async (...args: string[]) => {
    const t = testWorld({ home: s.home, cwd: s.projectA, clock: s.clock });
    const code = await cli(t.world, ...args);
    return { code, out: t.stdout.text, err: t.stderr.text };
  };
  const prefix = s.ids.login.slice(0, 12);
  assert.equal((await run("sessions", "rename", prefix, "Login", "timeouts")).code, 0);
  assert.equal((await run("sessions", "pin", prefix)).code, 0);
  const listed = JSON.parse((await run("sessions", "--json")).out);
  assert.equal(listed[0].title, "Login timeouts");
  assert.equal(listed[0].pinned, true);
  const shown = await run("sessions", "show", prefix);
  assert.equal(shown.code, 0);
  assert.match(shown.out, /Login timeouts/);
  assert.match(shown.out, /user\s+The login test times out/);
  const json = JSON.parse((await run("sessions", "show", prefix, "--json")).out);
  assert.equal(json.id, s.ids.login);
  assert.equal(json.messages.length, 2);
  assert.equal(json.messages[1].role, "assistant");
  assert.ok(Array.isArray(json.episodes));
  assert.equal((await run("sessions", "unpin", prefix)).code, 0);
  assert.equal(JSON.parse((await run("sessions", "--json")).out)[0].pinned, false);
  const ambiguous = await run("sessions", "show", s.ids.login.slice(0, 2));
  assert.equal(ambiguous.code, 3);
  assert.match(ambiguous.err, /ambiguous/);
  assert.equal((await run("sessions", "show", "zzzzzz")).code, 3);
  assert.equal((await run("sessions", "rename", prefix, " ")).code, 2);
});

Deno.test("bonsai sessions forget asks, refuses without a terminal, and deletes with --yes", async () => {
  const s = await setup();
  await using _ = s.dir;
  const noTty = testWorld({ home: s.home, cwd: s.projectA, clock: s.clock });
  assert.equal(await cli(noTty.world, "sessions", "forget", s.ids.cache), 2);
  assert.match(noTty.stderr.text, /--yes/);
  const declined = new ScriptedPrompter(true, [false]);
  const no = testWorld({ home: s.home, cwd: s.projectA, clock: s.clock, prompter: declined });
  assert.equal(await cli(no.world, "sessions", "forget", s.ids.cache), 130);
  assert.equal(declined.asked.length, 1);
  const yes = testWorld({ home: s.home, cwd: s.projectA, clock: s.clock });
  assert.equal(await cli(yes.world, "sessions", "forget", s.ids.cache, "--yes"), 0);
  const list = testWorld({ home: s.home, cwd: s.projectA, clock: s.clock });
  await cli(list.world, "sessions", "--json");
  assert.deepEqual(JSON.parse(list.stdout.text).map((r: { id: string }) => r.id), [s.ids.login]);
});
