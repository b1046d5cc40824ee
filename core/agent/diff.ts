// Line diffs for tool results and the database: Myers' O(ND) algorithm, rendered as a
// unified diff with three lines of context.

type Op = { kind: " " | "-" | "+"; line: string };

/** A unified diff from `before` to `after` ("" when equal). `path` labels the headers. */
export function unifiedDiff(before: string, after: string, path: string): string {
  if (before === after) return "";
  const a = splitLines(before);
  const b = splitLines(after);
  const ops = myers(a, b);
  const hunks = toHunks(ops, 3);
  const header = `--- ${before === "" ? "/dev/null" : `a/${path}`}\n+++ b/${path}\n`;
  return header + hunks.join("");
}

/** Counts of added and removed lines in a unified diff. */
export function diffStat(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of diff.split("\n")) {
    if (line.startsWith("+") && !line.startsWith("+++")) added++;
    else if (line.startsWith("-") && !line.startsWith("---")) removed++;
  }
  return { added, removed };
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function myers(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const v = new Int32Array(2 * max + 2);
  const trace: Int32Array[] = [];
  const offset = max + 1;
  outer: for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)
        ? v[offset + k + 1]!
        : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) break outer;
    }
  }
  // Walk the trace backwards to recover the edit script.
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const vd = trace[d]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && vd[offset + k - 1]! < vd[offset + k + 1]!)
      ? k + 1
      : k - 1;
    const prevX = vd[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ kind: " ", line: a[--x]! });
      y--;
    }
    if (d > 0) {
      if (x === prevX) ops.push({ kind: "+", line: b[--y]! });
      else ops.push({ kind: "-", line: a[--x]! });
    }
  }
  return ops.reverse();
}

function toHunks(ops: Op[], context: number): string[] {
  const hunks: string[] = [];
  let i = 0;
  let aLine = 1;
  let bLine = 1;
  const positions = ops.map((op) => {
    const p = { a: aLine, b: bLine };
    if (op.kind !== "+") aLine++;
    if (op.kind !== "-") bLine++;
    return p;
  });
  while (i < ops.length) {
    while (i < ops.length && ops[i]!.kind === " ") i++;
    if (i >= ops.length) break;
    const start = Math.max(0, i - context);
    let end = i;
    // Extend while changes are within 2*context lines of each other.
    for (;;) {
      while (end < ops.length && ops[end]!.kind !== " ") end++;
      let next = end;
      while (next < ops.length && ops[next]!.kind === " ") next++;
      if (next < ops.length && next - end <= 2 * context) end = next;
      else break;
    }
    const stop = Math.min(ops.length, end + context);
    const slice = ops.slice(start, stop);
    const aCount = slice.filter((o) => o.kind !== "+").length;
    const bCount = slice.filter((o) => o.kind !== "-").length;
    const aStart = aCount === 0 ? positions[start]!.a - 1 : positions[start]!.a;
    const bStart = bCount === 0 ? positions[start]!.b - 1 : positions[start]!.b;
    hunks.push(
      `@@ -${aStart},${aCount} +${bStart},${bCount} @@\n` +
        slice.map((o) => `${o.kind}${o.line}\n`).join(""),
    );
    i = stop;
  }
  return hunks;
}
