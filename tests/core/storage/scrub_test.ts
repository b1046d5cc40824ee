import assert from "node:assert/strict";
import { join } from "node:path";
import { homeAt } from "../../../core/home.ts";
import { isBonsaiError } from "../../../core/errors.ts";
import type { Ids } from "../../../core/ids.ts";
import { secretForms } from "../../../core/secrets.ts";
import { takeBackup } from "../../../core/storage/backups.ts";
import { ContextItemStore } from "../../../core/storage/context_items.ts";
import type { Db } from "../../../core/storage/db.ts";
import { LedgerStore } from "../../../core/storage/ledger.ts";
import { MessageStore } from "../../../core/storage/messages.ts";
import {
  backupsHolding,
  databaseHolds,
  scrubDatabase,
  scrubDatabaseFile,
} from "../../../core/storage/scrub.ts";
import { searchMessages } from "../../../core/storage/search.ts";
import { SessionStore } from "../../../core/storage/sessions.ts";
import { SettingsStore } from "../../../core/storage/settings.ts";
import { SnapshotGroupStore } from "../../../core/storage/snapshot_groups.ts";
import { ToolCallStore } from "../../../core/storage/tool_calls.ts";
import { MIGRATIONS } from "../../../migrations/mod.ts";
import { openTestDb } from "../../support/db.ts";
import { tempDir } from "../../support/temp.ts";
import { ledgerRow } from "../../support/usage_ledger.ts";

/** A value with a quote, so JSON columns hold it escaped; `zq7leak` is one search token. */
const LEAK = 'Zq7leak"K3y!9f2c';
const TOKEN = "zq7leak";
const NOBODY = () => false;

/** Everything a run could have stored, written by a redactor that did not know the value. */
function storeLeak(db: Db, ids: Ids) {
  const sessions = new SessionStore(db, ids);
  const s = sessions.create({ projectPath: "/p", title: `deploy with ${LEAK}` });
  const args = JSON.stringify({ command: `echo '${LEAK}'` });
  new MessageStore(db).append(s.id, [
    { role: "user", text: `use the key ${LEAK} please` },
    { role: "user", text: `请把数据库的密钥 ${LEAK} 删除` },
    { role: "assistant", kind: "tool_call", text: "exec", toolName: "exec", toolArgs: args },
    { role: "tool", kind: "tool_result", text: "", toolResult: `${LEAK}\n[exit code 0]` },
    { role: "assistant", text: "unrelated words stay searchable" },
  ]);
  new ToolCallStore(db).put(s.id, [{
    callId: "c1",
    messageSeq: 3,
    toolName: "exec",
    args,
    status: "ok",
    result: `${LEAK}\n`,
    diff: null,
    exitCode: 0,
    startedAt: db.clock.now(),
    endedAt: db.clock.now(),
    durationMs: 5,
  }]);
  // Tool arguments are JSON text inside a JSON body: the value is escaped twice there.
  new ContextItemStore(db).put(s.id, [{
    seq: 1,
    role: "assistant",
    body: JSON.stringify([{ type: "tool_call", arguments: args }]),
    messageSeq: 3,
    tokensEst: 10,
    createdAt: db.clock.now(),
  }]);
  new SnapshotGroupStore(db).put(s.id, [{
    grp: "plan",
    signature: "x",
    body: JSON.stringify({ plan: `rotate ${LEAK}` }),
    updatedAt: db.clock.now(),
  }]);
  new SettingsStore(db).set("verify.command", JSON.stringify(`deploy --token '${LEAK}'`));
  // A value in a usage key: the ledger's triggers move the rollups, which must not double.
  new LedgerStore(db).append([
    ledgerRow({ sessionId: s.id, projectId: s.projectId, createdAt: db.clock.now() }, {
      provider: "openai",
      model: `custom-${LEAK}`,
      inputTokens: 100,
      error: `401 for key ${LEAK}`,
    }),
  ]);
  return s;
}

function rawFiles(dir: string): string {
  let out = "";
  for (const entry of Deno.readDirSync(dir)) {
    if (entry.isFile) {
      out += new TextDecoder("latin1").decode(Deno.readFileSync(join(dir, entry.name)));
    }
  }
  return out;
}

Deno.test("scrubDatabase() replaces the value in every table and the search index, and nothing else", async () => {
  await using dir = await tempDir();
  const { db, ids } = await openTestDb(dir.path);
  const s = storeLeak(db, ids);
  assert.equal(searchMessages(db, TOKEN).length, 2);
  const before = db.connection.prepare(
    "SELECT message_count, turns, total_tokens FROM sessions WHERE id = ?",
  ).get(s.id);

  const report = scrubDatabase(db, { value: LEAK, liveElsewhere: NOBODY });

  assert.deepEqual(Object.fromEntries(report.tables.map((t) => [t.table, t.rows])), {
    context_items: 1,
    ledger: 1,
    messages: 4,
    sessions: 1,
    settings: 1,
    snapshot_groups: 1,
    tool_calls: 1,
  });
  assert.equal(report.rows, 10);
  assert.equal(report.walTruncated, true);
  assert.equal(report.liveSessions, 0);
  const conn = db.connection;
  const args = conn.prepare("SELECT tool_args FROM messages WHERE kind = 'tool_call'").get()!;
  assert.deepEqual(JSON.parse(String(args.tool_args)), { command: "echo '[REDACTED:secret]'" });
  const body = conn.prepare("SELECT body FROM context_items").get()!;
  assert.deepEqual(JSON.parse(JSON.parse(String(body.body))[0].arguments), {
    command: "echo '[REDACTED:secret]'",
  });
  assert.equal(
    new SettingsStore(db).get("verify.command"),
    JSON.stringify("deploy --token '[REDACTED:secret]'"),
  );
  // The search index forgot the value's words and kept everything else.
  assert.deepEqual(searchMessages(db, TOKEN), []);
  assert.equal(searchMessages(db, "unrelated").length, 1);
  assert.equal(searchMessages(db, "数据库").length, 1, "the CJK index was rebuilt for the row");
  assert.equal(searchMessages(db, "REDACTED").length, 2);
  conn.exec("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, messages_fts, 'row')");
  assert.equal(
    conn.prepare("SELECT count(*) AS n FROM temp.vocab WHERE term = ?").get(TOKEN)!.n,
    0,
  );
  // Nor in a segment where a delete only marked it: the index's own pages are clean.
  const inSegments = conn.prepare(
    "SELECT count(*) AS n FROM messages_fts_data WHERE instr(block, ?) > 0",
  );
  assert.equal(inSegments.get(new TextEncoder().encode(TOKEN))!.n, 0);
  // Rollups moved to the redacted key once, without doubling or losing counts.
  assert.deepEqual(
    conn.prepare("SELECT message_count, turns, total_tokens FROM sessions WHERE id = ?").get(s.id),
    before,
  );
  for (const table of ["usage_hour", "usage_rollup", "usage_day_model"]) {
    const rows = conn.prepare(`SELECT model, rows, input_tokens FROM ${table}`).all();
    assert.deepEqual(rows.map((r) => ({ ...r })), [
      { model: "custom-[REDACTED:secret]", rows: 1, input_tokens: 100 },
    ], table);
  }
  assert.deepEqual(conn.prepare("PRAGMA integrity_check").all().map((r) => r.integrity_check), [
    "ok",
  ]);
  db.close();
  assert.equal(databaseHolds(join(dir.path, "bonsai.db"), LEAK), false);
  const raw = rawFiles(dir.path);
  for (const form of [...secretForms(LEAK), "K3y!9f2c", TOKEN]) {
    assert.ok(!raw.includes(form), `'${form}' is still in the files`);
  }
});

Deno.test("scrubDatabase() refuses while another process has a live session, unless forced", async () => {
  await using dir = await tempDir();
  const { db, ids } = await openTestDb(dir.path);
  const s = storeLeak(db, ids);
  const live = (row: { id: string }) => row.id === s.id;
  assert.throws(
    () => scrubDatabase(db, { value: LEAK, liveElsewhere: live }),
    (err) => isBonsaiError(err, "SESSION_LIVE") && /1 session\(s\) are live/.test(err.message),
  );
  assert.equal(searchMessages(db, TOKEN).length, 2, "a refused scrub changes nothing");
  const forced = scrubDatabase(db, { value: LEAK, liveElsewhere: live, force: true });
  assert.equal(forced.liveSessions, 1);
  assert.equal(forced.rows, 10);
  db.close();
});

Deno.test("scrubDatabase() rolls back when the value is part of a constrained field", async () => {
  await using dir = await tempDir();
  const { db, ids } = await openTestDb(dir.path);
  const s = new SessionStore(db, ids).create({ projectPath: "/p", title: "all completed" });
  new SessionStore(db, ids).end(s.id, "completed", "quit");
  assert.throws(
    () => scrubDatabase(db, { value: "completed", liveElsewhere: NOBODY }),
    (err) => isBonsaiError(err, "USAGE") && /table 'sessions'/.test(err.message),
  );
  assert.equal(new SessionStore(db).get(s.id).title, "all completed");
  db.close();
});

Deno.test("backupsHolding() finds the value in backups; scrubDatabaseFile() removes it from one", async () => {
  await using dir = await tempDir();
  const home = homeAt(dir.path);
  const { db, ids, clock } = await openTestDb(dir.path);
  storeLeak(db, ids);
  const backup = await takeBackup(db.connection, { home, clock, version: MIGRATIONS.length });
  clock.advance(1000);
  const clean = await takeBackup(db.connection, { home, clock, version: MIGRATIONS.length });
  scrubDatabase(db, { value: LEAK, liveElsewhere: NOBODY });
  db.close();
  // The second backup was taken after the first: scrub it too, then only the first is left.
  scrubDatabaseFile(clean, LEAK);
  const junk = join(home.backupsDir, "notes.txt");
  Deno.writeTextFileSync(junk, `kept ${LEAK} here`);
  assert.deepEqual(backupsHolding(home, LEAK), [backup, junk].sort());

  const report = scrubDatabaseFile(backup, LEAK);
  assert.equal(report.rows, 10);
  assert.equal(databaseHolds(backup, LEAK), false);
  assert.deepEqual(backupsHolding(home, LEAK), [junk]);
  assert.throws(() => scrubDatabaseFile(junk, LEAK), (err) => isBonsaiError(err, "DB_NOT_SQLITE"));
  assert.throws(() => backupsHolding(home, "short"), RangeError);
});
