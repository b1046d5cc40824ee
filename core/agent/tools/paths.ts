import { isAbsolute, join, normalize, relative, resolve, sep } from "node:path";
import { BonsaiError } from "../../errors.ts";

/** A path the agent may touch: absolute, and relative to the session root. */
export interface ConfinedPath {
  readonly abs: string;
  /** Relative to the root, "." for the root itself. */
  readonly rel: string;
}

/**
 * Resolves a model-supplied path inside `root` (X3). Refuses `..` escapes, absolute paths
 * elsewhere, and symlinks (anywhere along the path) that lead outside the root.
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
  // Resolve symlinks on the longest existing prefix; what does not exist yet cannot be a link.
  let existing = lexical;
  const rest: string[] = [];
  for (;;) {
    try {
      const real = Deno.realPathSync(existing);
      const full = rest.length ? join(real, ...rest.reverse()) : real;
      if (!inside(root, full)) {
        throw new BonsaiError(
          "USAGE",
          `Path '${input}' leads outside the project root through a symbolic link`,
        );
      }
      return { abs: full, rel: relative(root, full) || "." };
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
      const parent = resolve(existing, "..");
      if (parent === existing) throw err;
      rest.push(existing.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
      existing = parent;
    }
  }
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}
