import { join } from "node:path";

/** A temporary directory removed when disposed (`await using dir = await tempDir()`). */
export async function tempDir(
  prefix = "bonsai-test-",
): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir({ prefix });
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true }).catch((err) => {
        if (!(err instanceof Deno.errors.NotFound)) throw err;
      });
    },
  };
}

/** SHA-256 of a file's bytes, hex. */
export async function fileHash(path: string): Promise<string> {
  const bytes = await Deno.readFile(path);
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Every file under `dir` with its hash, for "nothing changed on disk" assertions. */
export async function treeHash(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string) => {
    for await (const e of Deno.readDir(d)) {
      const p = join(d, e.name);
      if (e.isDirectory) await walk(p);
      else if (e.isFile) out[p] = await fileHash(p);
    }
  };
  await walk(dir);
  return out;
}
