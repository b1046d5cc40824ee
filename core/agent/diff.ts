// Line diffs for tool results and the database: Myers' O(ND) algorithm, rendered as a
// unified diff with three lines of context, hunk for hunk as GNU `diff -u` prints it.

/** One line of the edit script; `line` keeps its "\n" (the last line may have none). */
type Op = { readonly kind: " " | "-" | "+"; readonly line: string };

const CONTEXT = 3;
/**
 * Past this many inserted plus deleted lines, the differing middle is shown as one
 * replacement: Myers keeps about 4·D² bytes of trace, so this bounds time and memory.
 */
const MAX_EDIT_DISTANCE = 2000;
const NO_NEWLINE = "\\ No newline at end of file\n";

/**
 * A unified diff from `before` (null: the file did not exist) to `after`; "" when equal.
 * `path` labels the headers (`--- a/path`, `+++ b/path`). A last line without "\n"
 * differs from the same line with one, and is marked as diff and git mark it.
 */
export function unifiedDiff(before: string | null, after: string, path: string): string {
  if (before === after) return "";
  const ops = diffLines(splitLines(before ?? ""), splitLines(after));
  const header = `--- ${before === null ? "/dev/null" : `a/${path}`}\n+++ b/${path}\n`;
  return header + renderHunks(ops);
}

/** Counts of added and removed lines in a unified diff (header lines are not counted). */
export function diffStat(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  let oldLeft = 0;
  let newLeft = 0;
  for (const line of diff.split("\n")) {
    if (oldLeft > 0 || newLeft > 0) {
      // Inside a hunk its header's counts say which lines belong to it, so a removed line
      // reading "-- x" is not mistaken for a `---` file header.
      if (line.startsWith("+")) {
        added++;
        newLeft--;
      } else if (line.startsWith("-")) {
        removed++;
        oldLeft--;
      } else if (line.startsWith(" ") || line === "") {
        oldLeft--;
        newLeft--;
      }
      continue;
    }
    const hunk = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(line);
    if (hunk) {
      oldLeft = Number(hunk[1] ?? 1);
      newLeft = Number(hunk[2] ?? 1);
    }
  }
  return { added, removed };
}

/** Lines with their "\n"; a last line without one is kept as it is. */
function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** The edit script: common prefix and suffix as context, Myers for the middle. */
function diffLines(a: readonly string[], b: readonly string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const ops: Op[] = [];
  for (let i = 0; i < start; i++) ops.push({ kind: " ", line: a[i]! });
  for (const op of myers(a.slice(start, endA), b.slice(start, endB))) ops.push(op);
  for (let i = endA; i < a.length; i++) ops.push({ kind: " ", line: a[i]! });
  return ops;
}

/** A shortest edit script from `a` to `b` (or all of `a` removed, all of `b` added). */
function myers(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0) return replaceAll(a, b);
  const ids = new Map<string, number>();
  const intern = (line: string) => {
    let id = ids.get(line);
    if (id === undefined) ids.set(line, id = ids.size);
    return id;
  };
  const xs = Int32Array.from(a, intern);
  const ys = Int32Array.from(b, intern);
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 2);
  // trace[d] holds v[-d..d] after round d: what the walk back needs, and no more.
  const trace: Int32Array[] = [];
  let distance = -1;
  for (let d = 0; d <= Math.min(max, MAX_EDIT_DISTANCE) && distance < 0; d++) {
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)
        ? v[offset + k + 1]!
        : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && xs[x] === ys[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        distance = d;
        break;
      }
    }
    if (distance < 0) trace.push(v.slice(offset - d, offset + d + 1));
  }
  if (distance < 0) return replaceAll(a, b);
  // Walk back from (n, m): each round is one insertion or deletion after a diagonal run.
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = distance; d > 0; d--) {
    const prev = trace[d - 1]!;
    const at = (k: number) => prev[k + d - 1]!;
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevX = at(down ? k + 1 : k - 1);
    const runStart = down ? prevX : prevX + 1;
    while (x > runStart) {
      ops.push({ kind: " ", line: a[--x]! });
      y--;
    }
    if (down) ops.push({ kind: "+", line: b[--y]! });
    else ops.push({ kind: "-", line: a[--x]! });
  }
  while (x > 0) ops.push({ kind: " ", line: a[--x]! });
  return ops.reverse();
}

function replaceAll(a: readonly string[], b: readonly string[]): Op[] {
  return [
    ...a.map((line) => ({ kind: "-" as const, line })),
    ...b.map((line) => ({ kind: "+" as const, line })),
  ];
}

/** Hunks with CONTEXT lines around changes; changes at most 2·CONTEXT apart share one. */
function renderHunks(ops: readonly Op[]): string {
  let out = "";
  let oldLine = 1; // line numbers at ops[i]
  let newLine = 1;
  let i = 0;
  while (i < ops.length) {
    let change = i;
    while (change < ops.length && ops[change]!.kind === " ") change++;
    if (change === ops.length) break;
    const start = Math.max(i, change - CONTEXT);
    for (; i < start; i++) {
      oldLine++;
      newLine++;
    }
    let end = change; // one past the last change in this hunk
    for (;;) {
      while (end < ops.length && ops[end]!.kind !== " ") end++;
      let next = end;
      while (next < ops.length && ops[next]!.kind === " ") next++;
      if (next === ops.length || next - end > 2 * CONTEXT) break;
      end = next;
    }
    const stop = Math.min(ops.length, end + CONTEXT);
    let body = "";
    let oldCount = 0;
    let newCount = 0;
    for (const op of ops.slice(start, stop)) {
      if (op.kind !== "+") oldCount++;
      if (op.kind !== "-") newCount++;
      body += op.kind + op.line + (op.line.endsWith("\n") ? "" : `\n${NO_NEWLINE}`);
    }
    out += `@@ -${range(oldLine, oldCount)} +${range(newLine, newCount)} @@\n${body}`;
    oldLine += oldCount;
    newLine += newCount;
    i = stop;
  }
  return out;
}

/** A hunk range as diff prints it: `start,count`, `start` alone for one line, and the line before for none. */
function range(start: number, count: number): string {
  if (count === 1) return `${start}`;
  return `${count === 0 ? start - 1 : start},${count}`;
}
