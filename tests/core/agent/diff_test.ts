import assert from "node:assert/strict";
import { diffStat, unifiedDiff } from "../../../core/agent/diff.ts";
import { Prng } from "../../../scripts/lib/prng.ts";

/** `n` lines "line 1\n" … "line n\n". */
function lines(n: number): string {
  return Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join("");
}

/** `text` with lines replaced (null: removed) and lines inserted before others, 1-based. */
function edit(
  text: string,
  changes: Record<number, string | null>,
  inserts: Record<number, string[]> = {},
): string {
  const out: string[] = [];
  text.split("\n").slice(0, -1).forEach((line, i) => {
    for (const x of inserts[i + 1] ?? []) out.push(x);
    const change = changes[i + 1];
    if (change === undefined) out.push(line);
    else if (change !== null) out.push(change);
  });
  return out.map((l) => `${l}\n`).join("");
}

const ten = lines(10);
const thirty = lines(30);

// Expected hunks are what GNU diffutils 3.8 `diff -u` prints for the same two files
// (`diff -u /dev/null new` for a new file).
const CASES: [name: string, before: string | null, after: string, hunks: string[]][] = [
  ["new file", null, "hello\nworld\n", [
    "@@ -0,0 +1,2 @@",
    "+hello",
    "+world",
  ]],
  ["empty file gets content", "", "x\n", [
    "@@ -0,0 +1 @@",
    "+x",
  ]],
  ["all content deleted", "a\nb\n", "", [
    "@@ -1,2 +0,0 @@",
    "-a",
    "-b",
  ]],
  ["one-line file changed", "a\n", "b\n", [
    "@@ -1 +1 @@",
    "-a",
    "+b",
  ]],
  ["change in the middle", ten, edit(ten, { 5: "five" }), [
    "@@ -2,7 +2,7 @@",
    " line 2",
    " line 3",
    " line 4",
    "-line 5",
    "+five",
    " line 6",
    " line 7",
    " line 8",
  ]],
  ["change at the start", ten, edit(ten, { 1: "one" }), [
    "@@ -1,4 +1,4 @@",
    "-line 1",
    "+one",
    " line 2",
    " line 3",
    " line 4",
  ]],
  ["change at the end", ten, edit(ten, { 10: "ten" }), [
    "@@ -7,4 +7,4 @@",
    " line 7",
    " line 8",
    " line 9",
    "-line 10",
    "+ten",
  ]],
  ["insertion at the start", ten, "zero\n" + ten, [
    "@@ -1,3 +1,4 @@",
    "+zero",
    " line 1",
    " line 2",
    " line 3",
  ]],
  ["insertion at the end", ten, ten + "eleven\n", [
    "@@ -8,3 +8,4 @@",
    " line 8",
    " line 9",
    " line 10",
    "+eleven",
  ]],
  ["deletion in the middle", ten, edit(ten, { 5: null, 6: null }), [
    "@@ -2,8 +2,6 @@",
    " line 2",
    " line 3",
    " line 4",
    "-line 5",
    "-line 6",
    " line 7",
    " line 8",
    " line 9",
  ]],
  ["changes 5 lines apart share a hunk", thirty, edit(thirty, { 5: "x", 11: "y" }), [
    "@@ -2,13 +2,13 @@",
    " line 2",
    " line 3",
    " line 4",
    "-line 5",
    "+x",
    " line 6",
    " line 7",
    " line 8",
    " line 9",
    " line 10",
    "-line 11",
    "+y",
    " line 12",
    " line 13",
    " line 14",
  ]],
  ["changes 6 lines apart share a hunk", thirty, edit(thirty, { 5: "x", 12: "y" }), [
    "@@ -2,14 +2,14 @@",
    " line 2",
    " line 3",
    " line 4",
    "-line 5",
    "+x",
    " line 6",
    " line 7",
    " line 8",
    " line 9",
    " line 10",
    " line 11",
    "-line 12",
    "+y",
    " line 13",
    " line 14",
    " line 15",
  ]],
  ["changes 7 lines apart get two hunks", thirty, edit(thirty, { 5: "x", 13: "y" }), [
    "@@ -2,7 +2,7 @@",
    " line 2",
    " line 3",
    " line 4",
    "-line 5",
    "+x",
    " line 6",
    " line 7",
    " line 8",
    "@@ -10,7 +10,7 @@",
    " line 10",
    " line 11",
    " line 12",
    "-line 13",
    "+y",
    " line 14",
    " line 15",
    " line 16",
  ]],
  [
    "three hunks with shifted line numbers",
    thirty,
    edit(thirty, { 20: null, 28: "z" }, { 5: ["new a", "new b"] }),
    [
      "@@ -2,6 +2,8 @@",
      " line 2",
      " line 3",
      " line 4",
      "+new a",
      "+new b",
      " line 5",
      " line 6",
      " line 7",
      "@@ -17,7 +19,6 @@",
      " line 17",
      " line 18",
      " line 19",
      "-line 20",
      " line 21",
      " line 22",
      " line 23",
      "@@ -25,6 +26,6 @@",
      " line 25",
      " line 26",
      " line 27",
      "-line 28",
      "+z",
      " line 29",
      " line 30",
    ],
  ],
  ["a newline added at the end", "a\nb", "a\nb\n", [
    "@@ -1,2 +1,2 @@",
    " a",
    "-b",
    "\\ No newline at end of file",
    "+b",
  ]],
  ["the newline at the end removed", "a\nb\n", "a\nb", [
    "@@ -1,2 +1,2 @@",
    " a",
    "-b",
    "+b",
    "\\ No newline at end of file",
  ]],
  ["last line changed, no newline on either side", "a\nb", "a\nc", [
    "@@ -1,2 +1,2 @@",
    " a",
    "-b",
    "\\ No newline at end of file",
    "+c",
    "\\ No newline at end of file",
  ]],
  ["unchanged last line without newline as context", "a\nb", "x\nb", [
    "@@ -1,2 +1,2 @@",
    "-a",
    "+x",
    " b",
    "\\ No newline at end of file",
  ]],
  ["a single line without newline removed", "a", "", [
    "@@ -1 +0,0 @@",
    "-a",
    "\\ No newline at end of file",
  ]],
  ["a single line without newline added", null, "a", [
    "@@ -0,0 +1 @@",
    "+a",
    "\\ No newline at end of file",
  ]],
  ["CRLF to LF", "a\r\nb\r\n", "a\nb\n", [
    "@@ -1,2 +1,2 @@",
    "-a\r",
    "-b\r",
    "+a",
    "+b",
  ]],
  ["a CRLF line changed", "a\r\nb\r\n", "a\r\nc\r\n", [
    "@@ -1,2 +1,2 @@",
    " a\r",
    "-b\r",
    "+c\r",
  ]],
  ["a line of repeated lines removed", "a\na\na\n", "a\na\n", [
    "@@ -1,3 +1,2 @@",
    " a",
    " a",
    "-a",
  ]],
  ["everything replaced", "a\nb\nc\n", "x\ny\n", [
    "@@ -1,3 +1,2 @@",
    "-a",
    "-b",
    "-c",
    "+x",
    "+y",
  ]],
];

Deno.test("unifiedDiff() prints the hunks GNU diff -u prints", async (t) => {
  for (const [name, before, after, hunks] of CASES) {
    await t.step(name, () => {
      const header = `--- ${before === null ? "/dev/null" : "a/f.txt"}\n+++ b/f.txt\n`;
      assert.equal(
        unifiedDiff(before, after, "f.txt"),
        header + hunks.map((l) => `${l}\n`).join(""),
      );
    });
  }
});

Deno.test("unifiedDiff() is empty for equal inputs, a header alone for a new empty file", () => {
  assert.equal(unifiedDiff("", "", "f"), "");
  assert.equal(unifiedDiff("a\nb", "a\nb", "f"), "");
  assert.equal(unifiedDiff(null, "", "f"), "--- /dev/null\n+++ b/f\n");
});

Deno.test("diffStat() counts added and removed lines, never headers", async (t) => {
  const cases: [string, string, { added: number; removed: number }][] = [
    ["no diff", "", { added: 0, removed: 0 }],
    ["one change", unifiedDiff("a\n", "b\n", "f"), { added: 1, removed: 1 }],
    ["a new file", unifiedDiff(null, "a\nb\nc\n", "f"), { added: 3, removed: 0 }],
    ["several hunks", unifiedDiff(thirty, edit(thirty, { 20: null }, { 5: ["a", "b"] }), "f"), {
      added: 2,
      removed: 1,
    }],
    ["lines that look like headers", unifiedDiff("--x\nkeep\n", "keep\n++y\n", "f"), {
      added: 1,
      removed: 1,
    }],
    ["a newline added at the end", unifiedDiff("a\nb", "a\nb\n", "f"), { added: 1, removed: 1 }],
    [
      "git-style headers and a hunk without counts",
      "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n---\n++++\n",
      {
        added: 1,
        removed: 1,
      },
    ],
  ];
  for (const [name, diff, want] of cases) {
    await t.step(name, () => assert.deepEqual(diffStat(diff), want));
  }
});

/** Applies a unified diff to `before` strictly: context and removed lines must match. */
function applyPatch(before: string, diff: string): string {
  const old = before.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const out: string[] = [];
  const lines = diff.split("\n");
  assert.match(lines[0]!, /^--- /);
  assert.match(lines[1]!, /^\+\+\+ /);
  let pos = 0;
  let i = 2;
  while (i < lines.length && lines[i] !== "") {
    const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$/.exec(lines[i]!);
    assert.ok(m, `hunk header expected: ${lines[i]}`);
    const oldCount = Number(m[2] ?? 1);
    const newCount = Number(m[4] ?? 1);
    const oldStart = oldCount === 0 ? Number(m[1]) : Number(m[1]) - 1;
    assert.ok(oldStart >= pos, "hunks in order, not overlapping");
    while (pos < oldStart) out.push(old[pos++]!);
    assert.equal(Number(m[3]), newCount === 0 ? out.length : out.length + 1, "new start");
    let seenOld = 0;
    let seenNew = 0;
    for (i++; i < lines.length && /^[ +-]/.test(lines[i]!); i++) {
      const noNewline = lines[i + 1] === "\\ No newline at end of file";
      const text = lines[i]!.slice(1) + (noNewline ? "" : "\n");
      const kind = lines[i]![0];
      if (kind !== "+") {
        assert.equal(old[pos], text, `line ${pos + 1} of before`);
        pos++;
        seenOld++;
      }
      if (kind !== "-") {
        out.push(text);
        seenNew++;
      }
      if (noNewline) i++;
    }
    assert.deepEqual([seenOld, seenNew], [oldCount, newCount], "hunk counts");
  }
  while (pos < old.length) out.push(old[pos++]!);
  return out.join("");
}

/** A small random text: few distinct lines, so that there is much to match. */
function randomText(prng: Prng): string {
  const words = ["a", "b", "c", "d", "a\r", ""];
  const n = prng.int(0, 12);
  const body = Array.from({ length: n }, () => prng.pick(words)).join("\n");
  return n > 0 && prng.next() < 0.7 ? `${body}\n` : body;
}

/** Length of a longest common subsequence of lines, the slow way. */
function lcs(a: string[], b: string[]): number {
  const row = new Array(b.length + 1).fill(0);
  for (const x of a) {
    let diag = 0;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j];
      row[j] = x === b[j - 1] ? diag + 1 : Math.max(row[j], row[j - 1]);
      diag = up;
    }
  }
  return row[b.length];
}

Deno.test("unifiedDiff() hunks applied to before give after, with the fewest changes", () => {
  const prng = new Prng(20260131);
  const split = (t: string) => t.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  for (let run = 0; run < 2000; run++) {
    const before = randomText(prng);
    const after = prng.next() < 0.1 ? before : randomText(prng);
    const diff = unifiedDiff(before, after, "f");
    const context = `seed run ${run}: ${JSON.stringify(before)} -> ${JSON.stringify(after)}`;
    if (before === after) {
      assert.equal(diff, "", context);
      continue;
    }
    assert.equal(applyPatch(before, diff), after, context);
    const { added, removed } = diffStat(diff);
    const a = split(before);
    const b = split(after);
    assert.equal(added + removed, a.length + b.length - 2 * lcs(a, b), context);
  }
});

Deno.test("unifiedDiff() stays fast and small on large rewrites", () => {
  const big = (prefix: string) =>
    Array.from({ length: 20_000 }, (_, i) => `${prefix} ${i}\n`).join("");
  const started = performance.now();
  const rewrite = unifiedDiff(big("old"), big("new"), "f");
  assert.equal(applyPatch(big("old"), rewrite), big("new"));
  assert.deepEqual(diffStat(rewrite), { added: 20_000, removed: 20_000 });
  // Scattered edits in a large file still get the minimal diff.
  const before = big("line");
  const after = before.replace("line 100\n", "changed\n").replace("line 15000\n", "");
  const scattered = unifiedDiff(before, after, "f");
  assert.equal(applyPatch(before, scattered), after);
  assert.deepEqual(diffStat(scattered), { added: 1, removed: 2 });
  assert.ok(performance.now() - started < 5_000, "well under the old quadratic memory");
});
