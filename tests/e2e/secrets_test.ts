import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { basename, join } from "node:path";
import { homeAt } from "../../core/home.ts";
import { takeBackup } from "../../core/storage/backups.ts";
import { MIGRATIONS } from "../../migrations/mod.ts";
import { LoopbackServer } from "../support/loopback_server.ts";
import { openai } from "../support/sse_scripts.ts";
import { baseEnv, runBonsai } from "../support/bonsai_process.ts";
import { tempDir } from "../support/temp.ts";

// Canaries in no known key format, so only the env rules can catch them.
/** Behind a saved `env:` key reference; its variable's name looks like nothing secret. */
const REFERENCED = "canaryref7Qw2Zr9Xp4Lm";
/** In a variable with SECRET in the middle of its name. */
const NAMED = "canaryname5Tb8Yc1Vn6Hd";

async function project() {
  const dir = await tempDir();
  const home = join(dir.path, "home");
  const work = join(dir.path, "work");
  await Deno.mkdir(work);
  return { dir, home, work: await Deno.realPath(work) };
}

/** The raw bytes of the database, its WAL and every file in backups/, as one string. */
function stored(home: string): { files: string[]; bytes: string } {
  const files = [join(home, "bonsai.db"), join(home, "bonsai.db-wal")];
  try {
    for (const e of Deno.readDirSync(join(home, "backups"))) {
      if (e.isFile) files.push(join(home, "backups", e.name));
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  const bytes = files.map((f) => {
    try {
      return new TextDecoder("latin1").decode(Deno.readFileSync(f));
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return "";
      throw err;
    }
  }).join("\n");
  return { files, bytes };
}

/** The model runs `echo` of the given values, then says them in its reply. */
function echoScript(server: LoopbackServer, values: string[]): void {
  server.openai(
    {
      events: openai.reply({
        calls: [{
          id: "call_echo",
          name: "exec",
          json: JSON.stringify({ command: `echo ${values.join(" ")}` }),
        }],
      }),
    },
    { events: openai.reply({ text: `They are ${values.join(" and ")}.` }) },
  );
}

Deno.test("secrets behind env: references and secret-looking names reach neither the database nor its backups", async () => {
  const p = await project();
  await using _ = p.dir;
  await using server = await LoopbackServer.start();
  const env = baseEnv(p.home, {
    OPENAI_BASE_URL: server.openaiUrl,
    BONSAI_MODEL: "gpt-4o",
    LLM_ACCESS_VALUE: REFERENCED,
    MY_SECRET_VALUE: NAMED,
  });
  const set = await runBonsai(["settings", "set", "openai.api_key", "env:LLM_ACCESS_VALUE"], {
    cwd: p.work,
    env,
  });
  assert.equal(set.code, 0, set.stderr);
  // A backup of the database before the run, to restore over it later (which backs up the
  // database after the run: that backup must be clean too).
  const conn = new DatabaseSync(join(p.home, "bonsai.db"));
  const before = await takeBackup(conn, {
    home: homeAt(p.home),
    clock: { now: () => Date.now() },
    version: MIGRATIONS.length,
  });
  conn.close();

  echoScript(server, [REFERENCED, NAMED]);
  const run = await runBonsai(["-p", "print both", "--allow", "exec", "--json"], {
    cwd: p.work,
    env,
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(JSON.parse(run.stdout).result, `They are ${REFERENCED} and ${NAMED}.`);
  // The reference really was the key, and the tool really printed both values.
  assert.equal(server.requests[0]!.headers.authorization, `Bearer ${REFERENCED}`);
  const sent = JSON.stringify(server.requests[1]!.body);
  assert.ok(sent.includes(REFERENCED) && sent.includes(NAMED), sent);

  const afterRun = stored(p.home);
  for (const canary of [REFERENCED, NAMED]) {
    assert.ok(!afterRun.bytes.includes(canary), `'${canary}' is stored after the run`);
  }
  const db = new DatabaseSync(join(p.home, "bonsai.db"), { readOnly: true });
  const result = db.prepare("SELECT result FROM tool_calls").get()!.result as string;
  const reply = db.prepare("SELECT text FROM messages WHERE role = 'assistant' AND kind = 'text'")
    .all().map((r) => r.text as string);
  db.close();
  assert.match(result, /^\[REDACTED:secret\] \[REDACTED:secret\]\n/);
  assert.deepEqual(reply, ["They are [REDACTED:secret] and [REDACTED:secret]."]);

  const restore = await runBonsai(["db", "restore", basename(before), "--yes"], {
    cwd: p.work,
    env,
  });
  assert.equal(restore.code, 0, restore.stderr);
  assert.match(restore.stderr, /Backed up the replaced database/);
  const afterRestore = stored(p.home);
  assert.ok(
    afterRestore.files.some((f) => f.endsWith("-pre-restore.db")),
    afterRestore.files.join(),
  );
  for (const canary of [REFERENCED, NAMED]) {
    assert.ok(!afterRestore.bytes.includes(canary), `'${canary}' is in a file or backup`);
  }
});

Deno.test("db scrub removes a value stored before it was known to be secret: rows, search, files", async () => {
  const p = await project();
  await using _ = p.dir;
  await using server = await LoopbackServer.start();
  const leak = "canaryleak3Hs6Kd0Wq";
  // LEAKED_VALUE looks like nothing secret, so the run stores the value as it is.
  const env = baseEnv(p.home, {
    OPENAI_BASE_URL: server.openaiUrl,
    BONSAI_MODEL: "gpt-4o",
    LEAKED_VALUE: leak,
  });
  echoScript(server, [leak]);
  const run = await runBonsai(["-p", "print it", "--allow", "exec"], { cwd: p.work, env });
  assert.equal(run.code, 0, run.stderr);
  const search = () => runBonsai(["search", leak.toLowerCase(), "--json"], { cwd: p.work, env });
  const found = await search();
  assert.equal(found.code, 0, found.stderr);
  assert.ok(JSON.parse(found.stdout).length > 0, "the run stored the value");

  const scrub = await runBonsai(["db", "scrub", "--value-from-env", "LEAKED_VALUE", "--json"], {
    cwd: p.work,
    env,
  });
  assert.equal(scrub.code, 0, scrub.stderr);
  const report = JSON.parse(scrub.stdout);
  assert.equal(report.clean, true);
  assert.ok(report.rows >= 4, scrub.stdout);
  assert.ok(report.tables.messages >= 2 && report.tables.tool_calls === 1, scrub.stdout);
  const gone = await search();
  assert.equal(gone.code, 0, gone.stderr);
  assert.deepEqual(JSON.parse(gone.stdout), []);
  const files = stored(p.home);
  assert.ok(!files.bytes.includes(leak), "the value's bytes are gone");
  assert.ok(!files.bytes.includes(leak.toLowerCase()), "so are its search tokens");
});
