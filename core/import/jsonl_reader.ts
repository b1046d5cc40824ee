/** A line's JSON value; undefined for a blank line, or for one that is not JSON (counted). */
export function parseJsonLine(text: string, stats: { malformed: number }): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    stats.malformed++;
    return undefined;
  }
}

/** Lines of a file from a byte offset, and where reading stopped. */
export interface LineBatch {
  readonly lines: string[];
  /** Byte offset just after the last complete line (a partial last line is left for later). */
  readonly offset: number;
}

const NEWLINE = 0x0a;

/** Most bytes read (and decoded) at once. */
const CHUNK = 4 << 20;

/**
 * Reads the complete lines of `path` after byte `from`, a chunk of up to 4 MiB at a time
 * (memory stays flat on huge files). A line still being written (no newline yet) is not
 * returned, so a grown file can be read again from the last batch's `offset`. Synchronous:
 * an import reads tens of thousands of small files, and each awaited file operation costs
 * more than reading the file.
 */
export function* readLineBatches(path: string, from: number): Generator<LineBatch> {
  const file = Deno.openSync(path, { read: true });
  try {
    const size = file.statSync().size;
    file.seekSync(from, Deno.SeekMode.Start);
    const decoder = new TextDecoder();
    // Small files (most transcripts) get a buffer their size; one spare byte sees growth.
    const buffer = new Uint8Array(Math.max(1, Math.min(CHUNK, size - from + 1)));
    let carry: Uint8Array = new Uint8Array(0);
    let consumed = from;
    let yielded = false;
    for (;;) {
      const n = file.readSync(buffer);
      if (n === null || n === 0) break;
      const chunk = carry.length ? concat(carry, buffer.subarray(0, n)) : buffer.subarray(0, n);
      const end = chunk.lastIndexOf(NEWLINE);
      if (end < 0) {
        carry = chunk.slice();
        continue;
      }
      // One decode per chunk; lines split after (a newline byte never occurs inside UTF-8).
      const lines = decoder.decode(chunk.subarray(0, end)).split("\n");
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i]!;
        if (line.endsWith("\r")) lines[i] = line.slice(0, -1);
      }
      consumed += end + 1;
      carry = chunk.slice(end + 1);
      yielded = true;
      yield { lines, offset: consumed };
    }
    if (!yielded) yield { lines: [], offset: consumed };
  } finally {
    file.close();
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Every file under `dir` whose name matches, sorted by path (ccusage's order); missing dirs yield nothing. */
export async function findFiles(dir: string, match: (name: string) => boolean): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    let entries: Deno.DirEntry[];
    try {
      entries = [];
      for await (const e of Deno.readDir(d)) entries.push(e);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.PermissionDenied) {
        return;
      }
      throw err;
    }
    for (const e of entries) {
      const p = `${d}/${e.name}`;
      if (e.isDirectory) await walk(p);
      else if (e.isFile && match(e.name)) out.push(p);
    }
  };
  await walk(dir);
  return out.sort();
}

/** The first line of a file (without its newline), or null for an empty file; reads no further than it must. */
export function readFirstLine(path: string): string | null {
  const file = Deno.openSync(path, { read: true });
  try {
    const decoder = new TextDecoder();
    const buffer = new Uint8Array(64 << 10);
    let head: Uint8Array = new Uint8Array(0);
    for (;;) {
      const n = file.readSync(buffer);
      if (n === null || n === 0) break;
      const end = buffer.subarray(0, n).indexOf(NEWLINE);
      head = concat(head, buffer.subarray(0, end < 0 ? n : end));
      if (end >= 0 || head.length > CHUNK * 4) break;
    }
    if (head.length === 0) return null;
    const line = decoder.decode(head);
    return line.endsWith("\r") ? line.slice(0, -1) : line;
  } finally {
    file.close();
  }
}
