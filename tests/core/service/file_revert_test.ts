import assert from "node:assert/strict";
import { sha256 } from "../../../core/agent/tools/tool.ts";
import { checkFiles, type RevertFiles, revertFiles } from "../../../core/service/file_revert.ts";
import type { FileCheckpoint, ToolCallRecord } from "../../../core/storage/tool_calls.ts";

/** Files in memory. */
class MemoryFiles implements RevertFiles {
  constructor(readonly files: Map<string, string>) {}
  read(_root: string, rel: string) {
    const text = this.files.get(rel);
    return Promise.resolve(text === undefined ? null : new TextEncoder().encode(text));
  }
  write(_root: string, rel: string, text: string) {
    this.files.set(rel, text);
    return Promise.resolve();
  }
  remove(_root: string, rel: string) {
    this.files.delete(rel);
    return Promise.resolve();
  }
}

let n = 0;
async function change(
  path: string,
  before: string | null,
  after: string,
  options: { stored?: string | null; status?: ToolCallRecord["status"] } = {},
): Promise<ToolCallRecord> {
  const file: FileCheckpoint = {
    path,
    beforeHash: before === null ? null : await sha256(before),
    before: options.stored !== undefined ? options.stored : before,
    afterHash: await sha256(after),
  };
  return record(`c${++n}`, "edit", { path }, options.status ?? "ok", file);
}

function record(
  callId: string,
  toolName: string,
  args: Record<string, unknown>,
  status: ToolCallRecord["status"],
  file: FileCheckpoint | null = null,
): ToolCallRecord {
  return {
    callId,
    messageSeq: null,
    toolName,
    args: JSON.stringify(args),
    status,
    result: null,
    diff: null,
    exitCode: null,
    startedAt: null,
    endedAt: null,
    durationMs: null,
    file,
  };
}

Deno.test("checkFiles() judges each file the rewound calls changed", async (t) => {
  const cases: {
    name: string;
    calls: () => Promise<ToolCallRecord[]>;
    disk: Record<string, string>;
    want: { restore?: [string, string][]; changed?: string[]; unchanged?: string[]; not?: RegExp };
  }[] = [
    {
      name: "a created file still as left is deleted",
      calls: async () => [await change("n.txt", null, "new\n")],
      disk: { "n.txt": "new\n" },
      want: { restore: [["n.txt", "delete"]] },
    },
    {
      name: "an edited file gets the content before its first change back",
      calls: async () => [
        await change("a.txt", "one\n", "two\n"),
        await change("a.txt", "two\n", "three\n"),
      ],
      disk: { "a.txt": "three\n" },
      want: { restore: [["a.txt", "restore"]] },
    },
    {
      name: "a file edited since is reported",
      calls: async () => [await change("a.txt", "one\n", "two\n")],
      disk: { "a.txt": "by hand\n" },
      want: { restore: [["a.txt", "restore"]], changed: ["a.txt"] },
    },
    {
      name: "a created file deleted since is already as before",
      calls: async () => [await change("n.txt", null, "new\n")],
      disk: {},
      want: { unchanged: ["n.txt"] },
    },
    {
      name: "a file already as before needs nothing",
      calls: async () => [await change("a.txt", "one\n", "two\n")],
      disk: { "a.txt": "one\n" },
      want: { unchanged: ["a.txt"] },
    },
    {
      name: "content too large to keep cannot be reverted",
      calls: async () => [await change("big.txt", "big\n", "small\n", { stored: null })],
      disk: { "big.txt": "small\n" },
      want: { not: /too large/ },
    },
    {
      name: "redacted content cannot be reverted",
      calls: async () => [
        await change("s.env", "KEY=secret\n", "KEY=x\n", { stored: "KEY=[REDACTED]\n" }),
      ],
      disk: { "s.env": "KEY=x\n" },
      want: { not: /not exact/ },
    },
    {
      name: "a call recorded before checkpoints makes its file unrevertable",
      calls: async () => [
        await change("a.txt", "one\n", "two\n"),
        record("old", "write", { path: "./a.txt", content: "x" }, "ok"),
      ],
      disk: { "a.txt": "x" },
      want: { not: /recorded before bonsai kept file contents/ },
    },
    {
      name: "a refused write changed nothing and is ignored",
      calls: () =>
        Promise.resolve([record("denied", "write", { path: "a.txt", content: "x" }, "denied")]),
      disk: { "a.txt": "one\n" },
      want: {},
    },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => {
      const files = new MemoryFiles(new Map(Object.entries(c.disk)));
      const check = await checkFiles("/root", await c.calls(), files);
      assert.deepEqual(check.restores.map((r) => [r.path, r.action]), c.want.restore ?? []);
      assert.deepEqual(check.changedSince, c.want.changed ?? []);
      assert.deepEqual(check.unchanged, c.want.unchanged ?? []);
      if (c.want.not) {
        assert.equal(check.unrevertable.length, 1);
        assert.match(check.unrevertable[0]!.reason, c.want.not);
      } else assert.deepEqual(check.unrevertable, []);
    });
  }
});

Deno.test("revertFiles() writes the checked contents and leaves a file that changed again unless force", async () => {
  const files = new MemoryFiles(new Map([["a.txt", "two\n"], ["n.txt", "new\n"]]));
  const calls = [await change("a.txt", "one\n", "two\n"), await change("n.txt", null, "new\n")];
  const check = await checkFiles("/root", calls, files);
  files.files.set("n.txt", "again\n");
  const outcome = await revertFiles("/root", check, { force: false, files });
  assert.deepEqual(outcome.reverted, [{ path: "a.txt", action: "restored" }]);
  assert.deepEqual(outcome.failed.map((f) => f.path), ["n.txt"]);
  assert.equal(files.files.get("a.txt"), "one\n");
  const forced = await revertFiles("/root", check, { force: true, files });
  assert.deepEqual(forced.reverted.map((r) => r.action), ["restored", "deleted"]);
  assert.equal(files.files.has("n.txt"), false);
});
