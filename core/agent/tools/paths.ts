import { dirname, isAbsolute, join, normalize, relative, resolve, sep } from "node:path";
import { BonsaiError } from "../../errors.ts";

/** Linux's limit on symbolic links followed while resolving one path. */
const MAX_LINK_HOPS = 40;

/** A path the agent may touch: absolute, and relative to the session root. */
export interface ConfinedPath {
  readonly abs: string;
  /** Relative to the root, "." for the root itself. */
  readonly rel: string;
}

/**
 * Resolves a model-supplied path inside `root` (X3). Refuses `..` escapes, absolute paths
 * elsewhere, and symlinks (anywhere along the path, dangling ones included) that lead
 * outside the root. `abs` has every link resolved, so using it never leaves the root.
 * `root` must be canonical (symlinks resolved).
 */
export function confine(root: string, input: string): ConfinedPath {
  if (typeof input !== "string" || input.trim() === "" || input.includes("\0")) {
    throw new BonsaiError("USAGE", "A path is required");
  }
  const lexical = isAbsolute(input) ? normalize(input) : resolve(root, input);
  if (!inside(root, lexical)) {
    throw new BonsaiError("USAGE", `Path '${input}' is outside the project root '${root}'`);
  }
  const real = resolveLinks(lexical, input);
  if (!inside(root, real)) {
    throw new BonsaiError(
      "USAGE",
      `Path '${input}' leads outside the project root through a symbolic link`,
    );
  }
  return { abs: real, rel: relative(root, real) || "." };
}

/**
 * `path` with its symbolic links resolved: the longest existing prefix through realpath,
 * then the rest as written. A dangling link is followed to where it points, because
 * writing through it would create its target.
 */
function resolveLinks(path: string, input: string): string {
  let existing = path;
  const rest: string[] = [];
  for (let hops = 0;;) {
    try {
      const real = Deno.realPathSync(existing);
      return rest.length > 0 ? join(real, ...rest.reverse()) : real;
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
    let isLink: boolean;
    try {
      isLink = Deno.lstatSync(existing).isSymlink;
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
      isLink = false;
    }
    if (isLink) {
      if (++hops > MAX_LINK_HOPS) {
        throw new BonsaiError("USAGE", `Path '${input}' has too many levels of symbolic links`);
      }
      // The link's directory exists (lstat saw the link), so it resolves.
      existing = resolve(Deno.realPathSync(dirname(existing)), Deno.readLinkSync(existing));
      continue;
    }
    const parent = dirname(existing);
    if (parent === existing) throw new BonsaiError("USAGE", `Path '${input}' cannot be resolved`);
    rest.push(existing.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
    existing = parent;
  }
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
