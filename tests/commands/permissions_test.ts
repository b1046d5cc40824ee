import assert from "node:assert/strict";
import { join } from "node:path";
import { queryHome } from "../support/db.ts";
import { FakeClock } from "../support/fake_clock.ts";
import { tempDir } from "../support/temp.ts";
import { cli, testWorld } from "../support/world.ts";

async function setup() {
  const dir = await tempDir();
  const home = join(dir.path, "home");
  const work = join(dir.path, "work");
  const other = join(dir.path, "other");
  await Deno.mkdir(join(work, ".git"), { recursive: true });
  await Deno.mkdir(join(work, "src"));
  await Deno.mkdir(other);
  const clock = new FakeClock();
  return {
    dir,
    home,
    work: await Deno.realPath(work),
    other: await Deno.realPath(other),
    /** A world whose cwd is `cwd` (default: a subdirectory of the project). */
    world: (cwd?: string) => {
      clock.advance(1); // each run's ids start at a new millisecond, as in real runs
      return testWorld({ home, cwd: cwd ?? join(work, "src"), clock });
    },
    rules: () =>
      queryHome<{ effect: string; kind: string; pattern: string; project_root: string | null }>(
        home,
        "SELECT effect, kind, pattern, project_root FROM permission_rules ORDER BY id",
      ),
  };
}

Deno.test("bonsai permissions add/list/remove with --json", async () => {
  const p = await setup();
  await using _ = p.dir;
  let w = p.world();
  assert.equal(
    await cli(w.world, "permissions", "add", "allow", "exec", "npm test", "--project", "--json"),
    0,
  );
  const added = JSON.parse(w.stdout.text);
  assert.deepEqual({ ...added, id: "-", created_at: "-" }, {
    id: "-",
    effect: "allow",
    kind: "exec",
    pattern: "npm test",
    scope: "project",
    project: p.work,
    created_at: "-",
  });
  assert.match(added.id, /^[0-9a-z]{26}$/);
  w = p.world();
  assert.equal(await cli(w.world, "permissions", "add", "deny", "write", ".env"), 0);
  assert.match(w.stderr.text, /^Saved rule [0-9a-z]{10,}: deny write '\.env' for every project\n$/);
  w = p.world();
  assert.equal(
    await cli(w.world, "permissions", "add", "allow", "write", "**", "--project", p.other),
    0,
  );
  assert.deepEqual(p.rules(), [
    { effect: "allow", kind: "exec", pattern: "npm test", project_root: p.work },
    { effect: "deny", kind: "write", pattern: ".env", project_root: null },
    { effect: "allow", kind: "write", pattern: "**", project_root: p.other },
  ]);

  // In force here: this project's and the global ones; --all: every one.
  w = p.world();
  assert.equal(await cli(w.world, "permissions", "list", "--json"), 0);
  assert.deepEqual(JSON.parse(w.stdout.text).map((r: { pattern: string }) => r.pattern), [
    "npm test",
    ".env",
  ]);
  w = p.world();
  assert.equal(await cli(w.world, "permissions", "--project", p.other, "--json"), 0);
  assert.deepEqual(JSON.parse(w.stdout.text).map((r: { pattern: string }) => r.pattern), [
    ".env",
    "**",
  ]);
  w = p.world();
  assert.equal(await cli(w.world, "permissions", "list", "--all"), 0);
  assert.match(w.stdout.text, /ID\s+RULE\s+KIND\s+PATTERN\s+SCOPE/);
  assert.match(w.stdout.text, /allow\s+exec\s+npm test\s+\/.*work/);
  assert.match(w.stdout.text, /deny\s+write\s+\.env\s+every project/);

  w = p.world();
  assert.equal(await cli(w.world, "permissions", "remove", added.id, "--json"), 0);
  assert.equal(JSON.parse(w.stdout.text).pattern, "npm test");
  assert.equal(p.rules().length, 2);
});

Deno.test("bonsai permissions refuses bad input with exit 2 and stores nothing", async (t) => {
  const p = await setup();
  await using _ = p.dir;
  const cases: [string[], RegExp][] = [
    [
      ["add", "allow", "exec", "npm test; rm -rf /"],
      /Bad permission pattern 'npm test; rm -rf \/': it holds more than one command; add one rule for each/,
    ],
    [
      ["add", "allow", "exec", "npm test $(curl x)"],
      /it must be one plain command \(command substitution\)/,
    ],
    [["add", "allow", "exec", "*"], /the command \(first word\) must be written out/],
    [["add", "allow", "write", "../up/**"], /'\.\.' would leave the project/],
    [["add", "allow", "write", "src/[a"], /a '\[' is not closed/],
    [["add", "maybe", "exec", "ls"], /A rule is 'allow' or 'deny', not 'maybe'/],
    [["add", "allow", "read", "ls"], /'write' \(file paths\) or 'exec' \(commands\), not 'read'/],
    [["add", "allow", "exec", "npm", "test"], /too many arguments/],
    [
      ["add", "allow", "exec", "ls", "--project", "/no/such/dir"],
      /--project: no directory at '\/no\/such\/dir'/,
    ],
    [["list", "--all", "--project", "."], /use either --project or --all/],
    [["remove", "zzzz"], /No permission rule id starts with 'zzzz'/],
  ];
  for (const [args, message] of cases) {
    await t.step(args.join(" "), async () => {
      const w = p.world();
      const code = await cli(w.world, "permissions", ...args);
      assert.equal(code, args[0] === "remove" ? 3 : 2, w.stderr.text);
      assert.match(w.stderr.text, message);
      assert.equal(w.stderr.text.trim().split("\n").length, 1, w.stderr.text);
    });
  }
  assert.deepEqual(queryHome(p.home, "SELECT * FROM permission_rules"), []);
});
