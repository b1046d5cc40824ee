import { Buffer } from "node:buffer";

const CHUNK_BYTES = 4 << 20;

/**
 * Whether the file's raw bytes contain any of the strings (UTF-8), read in chunks so a file
 * of any size takes little memory; false when there is no such file. Never call it on a
 * database this process has open: closing a descriptor on it drops the process's locks.
 */
export function fileContains(path: string, needles: readonly string[]): boolean {
  const patterns = needles.filter((n) => n.length > 0).map((n) => Buffer.from(n, "utf8"));
  if (patterns.length === 0) return false;
  const overlap = Math.max(...patterns.map((p) => p.length)) - 1;
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(path, { read: true });
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
  try {
    const chunk = new Uint8Array(CHUNK_BYTES);
    // The tail of the previous chunk, so a match across a chunk boundary is found.
    let carry = Buffer.alloc(0);
    for (;;) {
      const n = file.readSync(chunk);
      if (n === null) return false;
      const window = Buffer.concat([carry, chunk.subarray(0, n)]);
      if (patterns.some((p) => window.indexOf(p) !== -1)) return true;
      carry = Buffer.from(window.subarray(Math.max(0, window.length - overlap)));
    }
  } finally {
    file.close();
  }
}
