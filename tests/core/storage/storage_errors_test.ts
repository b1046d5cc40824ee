import assert from "node:assert/strict";
import { join } from "node:path";
import { BonsaiError } from "../../../core/errors.ts";
import { sqliteCode } from "../../../core/storage/sqlite_errors.ts";
import {
  describeStorageError,
  formatSize,
  storageFailureOf,
} from "../../../core/storage/storage_errors.ts";
import { baseEnv } from "../../support/bonsai_process.ts";
import { tempDir } from "../../support/temp.ts";
import { TmpfsHome, tmpfsTest } from "../../support/tmpfs.ts";

/** An error as Deno's node:sqlite throws it: a result code from statements, text only from exec. */
function sqliteError(message: string, errcode?: number): Error {
  const err = new Error(message);
  Object.assign(err, { code: "ERR_SQLITE_ERROR" }, errcode === undefined ? {} : { errcode });
  return err;
}

/** An error as Deno's file operations throw it. */
function osError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

Deno.test("sqliteCode() reads the result code, or SQLite's text where Deno gives none", () => {
  const cases: [Error, number | null][] = [
    [sqliteError("database or disk is full", 13), 13],
    [sqliteError("disk I/O error", 4874), 10], // SQLITE_IOERR_SHMSIZE
    [sqliteError("database or disk is full"), 13],
    [sqliteError("disk I/O error"), 10],
    [sqliteError("attempt to write a readonly database"), 8],
    [sqliteError("unable to open database file: /x/bonsai.db"), 14],
    [sqliteError("database is locked"), 5],
    [sqliteError("file is not a database"), 26],
    [sqliteError("UNIQUE constraint failed: ledger.external_id"), null],
    [new Error("database or disk is full"), null], // not from SQLite
  ];
  for (const [err, code] of cases) assert.equal(sqliteCode(err), code, err.message);
});

Deno.test("storageFailureOf() tells a full disk, a read-only one, a refusal and other errors apart", async (t) => {
  await using dir = await tempDir();
  const home = dir.path;
  const cases: [string, unknown, string | null][] = [
    ["SQLITE_FULL from a statement", sqliteError("database or disk is full", 13), "full"],
    ["SQLITE_FULL from exec (text only)", sqliteError("database or disk is full"), "full"],
    [
      "ENOSPC in the home",
      osError("ENOSPC", `No space left (os error 28): open '${home}/x'`),
      "full",
    ],
    ["EDQUOT in the home", osError("EDQUOT", `Quota exceeded: write '${home}/x'`), "full"],
    [
      "EROFS in the home",
      osError("EROFS", `Read-only (os error 30): chmod '${home}'`),
      "read_only",
    ],
    ["EACCES in the home", osError("EACCES", `Denied (os error 13): open '${home}/a'`), "denied"],
    [
      "EPERM in the home",
      osError("EPERM", `Not permitted (os error 1): chmod '${home}'`),
      "denied",
    ],
    ["EACCES elsewhere", osError("EACCES", "Denied (os error 13): open '/etc/x'"), null],
    ["SQLITE_PERM", sqliteError("access permission denied", 3), "denied"],
    // The home has room and takes writes: an I/O error is just that.
    ["I/O error with room to spare", sqliteError("disk I/O error", 778), "io"],
    // The home takes writes: a read-only database is not the disk's doing.
    [
      "read-only database, writable home",
      sqliteError("attempt to write a readonly database"),
      null,
    ],
    ["cannot open, writable home", sqliteError("unable to open database file"), null],
    ["a constraint", sqliteError("UNIQUE constraint failed: x.y"), null],
    ["a programmer's error", new TypeError("x is undefined"), null],
  ];
  for (const [name, err, expected] of cases) {
    await t.step(name, () => assert.equal(storageFailureOf(err, home), expected));
  }
  assert.deepEqual([...Deno.readDirSync(home)], [], "probes leave nothing behind");
});

Deno.test("describeStorageError() writes one line naming the home, and passes other errors on", async (t) => {
  await using dir = await tempDir();
  const home = dir.path;
  await t.step("a full disk: the folder, what is free, what is kept", () => {
    const raw = sqliteError("database or disk is full", 13);
    const err = describeStorageError(raw, home) as BonsaiError;
    assert.equal(err.code, "DISK_FULL");
    assert.equal(err.cause, raw);
    assert.doesNotMatch(err.message, /\n/);
    assert.match(err.message, new RegExp(`^Cannot write to '${home}' \\(BONSAI_HOME\\): `));
    assert.match(err.message, /what was already saved is kept\. Free some space and try again$/);
    assert.equal(err.data?.path, home);
    assert.equal(typeof err.data?.free_bytes, "number");
    // This disk is not full: the message says so rather than claim it is.
    if ((err.data!.free_bytes as number) >= 1 << 20) {
      assert.match(err.message, /SQLite found a disk full, though .* is free there/);
    }
  });
  await t.step("read-only, denied and I/O errors have their own codes and words", () => {
    const cases: [unknown, string, RegExp][] = [
      [osError("EROFS", `Read-only: open '${home}/a'`), "STORAGE_READ_ONLY", /read-only/],
      [osError("EACCES", `Denied: open '${home}/a'`), "STORAGE_DENIED", /permission denied/],
      [sqliteError("disk I/O error", 778), "STORAGE_IO", /disk I\/O error \(SQLite code 778\);/],
      [sqliteError("disk I/O error"), "STORAGE_IO", /: disk I\/O error;/],
      [osError("EIO", `Input/output error: read '${home}/a'`), "STORAGE_IO", /error \(Input/],
    ];
    for (const [raw, code, words] of cases) {
      const err = describeStorageError(raw, home) as BonsaiError;
      assert.equal(err.code, code);
      assert.match(err.message, words);
      assert.match(err.message, /what was already saved is kept/);
    }
  });
  await t.step("a failed migration or backup caused by a full disk is a full disk", () => {
    const wrapped = new BonsaiError("MIGRATION_FAILED", "Migration '0002' failed", {
      cause: sqliteError("database or disk is full"),
    });
    assert.equal((describeStorageError(wrapped, home) as BonsaiError).code, "DISK_FULL");
    const other = new BonsaiError("MIGRATION_FAILED", "Migration '0002' failed", {
      cause: sqliteError("no such table: x"),
    });
    assert.equal(describeStorageError(other, home), other);
  });
  await t.step("everything else comes back as it was", () => {
    for (
      const err of [
        new BonsaiError("LEASE_LOST", "lost"),
        sqliteError("UNIQUE constraint failed: x.y"),
        new RangeError("bad"),
        "a string",
      ]
    ) assert.equal(describeStorageError(err, home), err);
  });
});

Deno.test("formatSize() rounds to a readable unit", () => {
  const cases: [number, string][] = [
    [0, "0 B"],
    [1023, "1023 B"],
    [1536, "1.5 KiB"],
    [229376, "224 KiB"],
    [5 << 20, "5.0 MiB"],
    [3 * 2 ** 40, "3.0 TiB"],
  ];
  for (const [bytes, text] of cases) assert.equal(formatSize(bytes), text);
});

interface CaseLine {
  case: string;
  home: string;
  error: {
    code: string;
    message: string;
    data?: { path: string; free_bytes?: number };
    raw: { errcode: number | null; code: string; message: string } | null;
  };
  after?: { rows: number; integrity: string };
  leftovers?: string[];
  committedRowsKept?: boolean;
  indexesDropped?: boolean;
  committed?: number;
  expected?: number;
  sameAsClean?: boolean;
  rebuilt?: boolean;
}

await tmpfsTest(
  "the storage layer turns real disk failures on a tmpfs into clear errors and keeps what was committed",
  async (t) => {
    await using tmpfs = await TmpfsHome.mount({ sizeBytes: 80 << 20 });
    const script = new URL("./disk_failures_script.ts", import.meta.url).pathname;
    const args = ["run", "-A", script, tmpfs.root];
    // A folder the namespace's root may not enter: owned by a user it does not map. Only a
    // real root can hand a folder to another user.
    if (Deno.uid() === 0) {
      await Deno.mkdir(tmpfs.outside("denied"), { mode: 0o700 });
      await Deno.chown(tmpfs.outside("denied"), 65534, 65534);
      args.push(join(tmpfs.root, "denied"));
    } else console.log("not root: the permission-denied case is skipped");
    const out = await tmpfs.deno(args, { cwd: tmpfs.root, env: baseEnv(tmpfs.home) });
    assert.equal(out.code, 0, out.stderr);
    const lines = out.stdout.trim().split("\n").map((l) => JSON.parse(l) as CaseLine);
    const byCase = new Map(lines.map((l) => [l.case, l]));
    const expect = async (name: string, code: string, rawCode: string | RegExp) => {
      const line = byCase.get(name);
      assert.ok(line, `case '${name}' ran`);
      await t.step(name, () => {
        assert.equal(line.error.code, code, line.error.message);
        assert.equal(line.error.data?.path, line.home);
        assert.match(`${line.error.raw?.errcode ?? line.error.raw?.code}`, new RegExp(rawCode));
        if (code === "DISK_FULL") {
          assert.match(
            line.error.message,
            /\(BONSAI_HOME\): the disk is full \(\d+(\.\d)? (B|KiB) free\); what was already saved is kept/,
          );
        }
        if (line.after) {
          assert.equal(line.after.integrity, "ok");
          assert.ok(line.after.rows >= 1, "the rows committed before the failure are there");
        }
      });
      return line;
    };
    // The SQLite codes node:sqlite gives for each (null: from exec, text only).
    await expect("open on a full disk", "DISK_FULL", "13");
    await expect("commit that fills the WAL", "DISK_FULL", /^(13|ERR_SQLITE_ERROR)$/);
    await expect("checkpoint into a full disk", "DISK_FULL", "13");
    const shm = await expect(
      "WAL index (-shm) that cannot grow",
      "DISK_FULL",
      /^(4874|ERR_SQLITE_ERROR)$/, // SQLITE_IOERR_SHMSIZE, or "disk I/O error" from COMMIT
    );
    assert.equal(shm.committedRowsKept, true);
    const backup = await expect("backup before an upgrade", "DISK_FULL", "ERR_SQLITE_ERROR");
    assert.deepEqual(backup.leftovers, [], "no partial backup is left behind");
    const bulk = await expect(
      "bulk import that fills the disk",
      "DISK_FULL",
      /^(13|ERR_SQLITE_ERROR)$/,
    );
    assert.ok(bulk.committed! > 0 && bulk.committed! < bulk.expected!, JSON.stringify(bulk));
    assert.equal(bulk.indexesDropped, true, "it failed half-way through a bulk load");
    assert.equal(bulk.sameAsClean, true, "run again, it ends as one clean import");
    assert.equal(bulk.rebuilt, true, "with both indexes");
    await expect("read-only file system", "STORAGE_READ_ONLY", "14");
    if (Deno.uid() === 0) await expect("permission denied", "STORAGE_DENIED", "EACCES");
  },
);
