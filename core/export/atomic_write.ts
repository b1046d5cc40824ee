import { isAbsolute, join } from "node:path";
import { BonsaiError, messageOf } from "../errors.ts";

/** Temporary names tried before giving up (leftovers of killed writers take a number each). */
const ATTEMPTS = 100;

/**
 * Writes `text` to `dir/name` so readers see the old file or the new one, never a part:
 * the folder is created if needed, the text goes to a temporary file beside the target (named
 * with `tag`, e.g. the process id), is flushed to disk, then renamed over the target. On any
 * failure the temporary file is removed and an IO error names the path. Returns the path.
 */
export async function writeFileAtomic(
  dir: string,
  name: string,
  text: string,
  tag: string,
): Promise<string> {
  if (!isAbsolute(dir)) throw new TypeError(`writeFileAtomic() needs an absolute folder: ${dir}`);
  const path = join(dir, name);
  try {
    await Deno.mkdir(dir, { recursive: true });
  } catch (err) {
    throw ioError(`Cannot create the folder '${dir}'`, err);
  }
  const { file, temp } = await openTemp(dir, tag);
  try {
    try {
      const bytes = new TextEncoder().encode(text);
      let written = 0;
      while (written < bytes.length) written += await file.write(bytes.subarray(written));
      await file.syncData();
    } finally {
      file.close();
    }
    await Deno.rename(temp, path);
  } catch (err) {
    await Deno.remove(temp).catch(() => {
      // Already gone, or the folder went away: nothing is left to clean.
    });
    throw ioError(`Cannot write '${path}'`, err);
  }
  return path;
}

async function openTemp(dir: string, tag: string): Promise<{ file: Deno.FsFile; temp: string }> {
  for (let i = 0; i < ATTEMPTS; i++) {
    // createNew makes the name ours alone, even against writers in this same process.
    const temp = join(dir, `.export-${tag}-${i}.tmp`);
    try {
      // 0666 before the umask: an ordinary file of the workspace, like one an editor writes.
      const file = await Deno.open(temp, { createNew: true, write: true, mode: 0o666 });
      return { file, temp };
    } catch (err) {
      if (err instanceof Deno.errors.AlreadyExists) continue;
      throw ioError(`Cannot write in '${dir}'`, err);
    }
  }
  throw new BonsaiError("IO", `Cannot write in '${dir}': no free temporary file name`);
}

function ioError(what: string, err: unknown): BonsaiError {
  const reason = err instanceof Deno.errors.PermissionDenied
    ? "permission denied"
    : err instanceof Deno.errors.NotADirectory || err instanceof Deno.errors.AlreadyExists
    ? "a file is in the way of a folder"
    : err instanceof Deno.errors.IsADirectory
    ? "a folder has that name"
    : messageOf(err).replace(/\s+/g, " ");
  return new BonsaiError("IO", `${what}: ${reason}`, { cause: err });
}
