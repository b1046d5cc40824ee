import { dirname, join, resolve } from "node:path";

/**
 * The canonical project root for a directory: the enclosing git work tree if there is one,
 * else the directory itself, with symlinks resolved.
 */
export function findProjectRoot(dir: string): string {
  const start = canonical(resolve(dir));
  for (let current = start;;) {
    if (exists(join(current, ".git"))) return current;
    const parent = dirname(current);
    if (parent === current) return start;
    current = parent;
  }
}

/** `path` made absolute with symlinks resolved where it exists; left lexical otherwise. */
export function canonical(path: string): string {
  const abs = resolve(path);
  try {
    return Deno.realPathSync(abs);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return abs;
    throw err;
  }
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.PermissionDenied) {
      return false;
    }
    throw err;
  }
}
