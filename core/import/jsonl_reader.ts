/** Lines of a file from a byte offset, and where reading stopped. */
export interface LineBatch {
  readonly lines: string[];
  /** Byte offset just after the last complete line (a partial last line is left for later). */
  readonly offset: number;
}

const NEWLINE = 0x0a;

/**
 * Reads the complete lines of `path` after byte `from`, in batches of about `batchLines`
 * (memory stays flat on huge files). A line still being written (no newline yet) is not
 * returned, so a grown file can be read again from the last batch's `offset`.
 */
export async function* readLineBatches(
  path: string,
  from: number,
  batchLines = 2000,
): AsyncGenerator<LineBatch> {
  const file = await Deno.open(path, { read: true });
  try {
    await file.seek(from, Deno.SeekMode.Start);
    const decoder = new TextDecoder();
    let lines: string[] = [];
    let carry: Uint8Array = new Uint8Array(0);
    let consumed = from;
    const buffer = new Uint8Array(1 << 20);
    for (;;) {
      const n = await file.read(buffer);
      if (n === null) break;
      const chunk = carry.length ? concat(carry, buffer.subarray(0, n)) : buffer.subarray(0, n);
      let start = 0;
      for (let i = chunk.indexOf(NEWLINE); i >= 0; i = chunk.indexOf(NEWLINE, start)) {
        lines.push(decoder.decode(chunk.subarray(start, i)).replace(/\r$/, ""));
        consumed += i + 1 - start;
        start = i + 1;
        if (lines.length >= batchLines) {
          yield { lines, offset: consumed };
          lines = [];
        }
      }
      carry = chunk.slice(start);
    }
    if (lines.length > 0 || consumed === from) yield { lines, offset: consumed };
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
