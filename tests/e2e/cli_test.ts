import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "../support/temp.ts";
import { seedHistory } from "../support/seed.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** Runs the real program in a subprocess. */
export async function bonsai(
  args: string[],
  options: { home: string; cwd?: string; env?: Record<string, string> },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    cwd: options.cwd ?? "/",
    env: { BONSAI_HOME: options.home, NO_COLOR: "1", TZ: "UTC", ...options.env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

Deno.test("bonsai --version, --help and no arguments", async () => {
  await using dir = await tempDir();
  const version = await bonsai(["--version"], { home: dir.path });
  assert.equal(version.code, 0);
  assert.match(version.stdout, /^bonsai \d+\.\d+\.\d+\n$/);
  const help = await bonsai(["--help"], { home: dir.path });
  assert.equal(help.code, 0);
  for (const command of ["sessions", "search", "db"]) {
    assert.match(help.stdout, new RegExp(`\\n  ${command}`));
  }
  // No command opens the REPL; with input already at its end it says hello and leaves,
  // keeping no empty session behind.
  const bare = await bonsai([], { home: dir.path });
  assert.equal(bare.code, 0, bare.stderr);
  assert.match(bare.stdout, /Type a request, or \/help/);
  const left = await bonsai(["sessions", "--all", "--json"], { home: dir.path });
  assert.deepEqual(JSON.parse(left.stdout), []);
});

Deno.test("bonsai reports errors on stderr with documented exit codes", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const unknown = await bonsai(["sessions", "show", "zzzz"], { home });
  assert.equal(unknown.code, 3);
  assert.equal(unknown.stdout, "");
  assert.equal(unknown.stderr, "bonsai: No session id starts with 'zzzz'\n");
  const json = await bonsai(["sessions", "show", "zzzz", "--json"], { home });
  assert.equal(json.code, 3);
  assert.deepEqual(JSON.parse(json.stderr), {
    error: { code: "NOT_FOUND", message: "No session id starts with 'zzzz'" },
  });
  const usage = await bonsai(["search"], { home });
  assert.equal(usage.code, 2);
  const typo = await bonsai(["sesions"], { home });
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /did you mean 'sessions'/);
  await Deno.writeTextFile(join(dir.path, "notes.txt"), "not a database");
  const notDb = await bonsai(["sessions"], {
    home: dir.path,
    env: { BONSAI_HOME: join(dir.path, "notes-home") },
  });
  assert.equal(notDb.code, 0);
  await Deno.mkdir(join(dir.path, "bad"));
  await Deno.writeTextFile(join(dir.path, "bad", "bonsai.db"), "plain text ".repeat(100));
  const refused = await bonsai(["sessions"], { home: join(dir.path, "bad") });
  assert.equal(refused.code, 4);
  assert.match(refused.stderr, /is not a SQLite database/);
  assert.ok(!refused.stderr.includes("    at "), "no stack trace without --debug");
  const debug = await bonsai(["sessions", "--debug"], { home: join(dir.path, "bad") });
  assert.match(debug.stderr, /\n {4}at /);
});

Deno.test("bonsai search and sessions output is piped-friendly", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  await seedHistory(home, { projectA: "/proj/a", projectB: "/proj/b" });
  const search = await bonsai(["search", "cache", "--json"], { home });
  assert.equal(search.code, 0, search.stderr);
  assert.equal(JSON.parse(search.stdout)[0].session_title, "Add a cache");
  const list = await bonsai(["sessions", "--all"], { home, env: { COLUMNS: "200" } });
  assert.equal(list.code, 0);
  assert.ok(!list.stdout.includes("\x1b["));
  assert.match(list.stdout, /PROJECT/);
  assert.match(list.stdout, /其他项目/);
});
