import assert from "node:assert/strict";
import { join } from "node:path";
import { modeOf } from "../../../core/storage/files.ts";
import { tempDir } from "../../support/temp.ts";

const MAIN = new URL("../../../main.ts", import.meta.url).pathname;

async function runUnderUmask000(home: string, ...args: string[]): Promise<Deno.CommandOutput> {
  const quoted = [Deno.execPath(), "run", "-A", MAIN, ...args].map((a) => `'${a}'`).join(" ");
  return await new Deno.Command("sh", {
    args: ["-c", `umask 000 && ${quoted}`],
    env: { BONSAI_HOME: home, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
}

Deno.test("home is 0700 and database files 0600 under umask 000", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const out = await runUnderUmask000(home, "sessions", "--all");
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.equal(modeOf(home), 0o700);
  assert.equal(modeOf(join(home, "bonsai.db")), 0o600);
  for (const suffix of ["-wal", "-shm"]) {
    const mode = modeOf(join(home, `bonsai.db${suffix}`));
    assert.ok(mode === null || mode === 0o600, `${suffix} is ${mode?.toString(8)}`);
  }
});

Deno.test("looser permissions found on open are tightened, backups included", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  assert.equal((await runUnderUmask000(home, "sessions", "--all")).code, 0);
  await Deno.mkdir(join(home, "backups"));
  await Deno.writeTextFile(join(home, "backups", "20260101T000000Z-v1.db"), "");
  await Deno.chmod(home, 0o777);
  await Deno.chmod(join(home, "backups"), 0o755);
  await Deno.chmod(join(home, "backups", "20260101T000000Z-v1.db"), 0o644);
  await Deno.chmod(join(home, "bonsai.db"), 0o666);
  const out = await runUnderUmask000(home, "sessions", "--all");
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.equal(modeOf(home), 0o700);
  assert.equal(modeOf(join(home, "bonsai.db")), 0o600);
  assert.equal(modeOf(join(home, "backups")), 0o700);
  assert.equal(modeOf(join(home, "backups", "20260101T000000Z-v1.db")), 0o600);
});

Deno.test("backups taken before a migration are 0600 in a 0700 folder under umask 000", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const script = new URL("../../support/upgrade_script.ts", import.meta.url).pathname;
  const run = async (mode: string) => {
    const out = await new Deno.Command("sh", {
      args: ["-c", `umask 000 && '${Deno.execPath()}' run -A '${script}' '${home}' ${mode}`],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  };
  await run("create");
  await run("upgrade");
  const backups = [...Deno.readDirSync(join(home, "backups"))];
  assert.equal(backups.length, 1);
  assert.equal(modeOf(join(home, "backups")), 0o700);
  assert.equal(modeOf(join(home, "backups", backups[0]!.name)), 0o600);
  assert.equal(modeOf(join(home, "bonsai.db")), 0o600);
});
