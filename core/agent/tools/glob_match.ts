// Glob patterns as regular expressions: `*` (within a segment), `**` (any depth), `?`,
// `[...]` classes and `{a,b}` alternatives. Paths use `/`.

/** A regex matching whole relative paths against a glob. */
export function globToRegExp(glob: string): RegExp {
  let re = "";
  let i = 0;
  let braces = 0;
  while (i < glob.length) {
    const c = glob[i]!;
    if (c === "*") {
      if (glob[i + 1] === "*") {
        // `**/` matches zero or more directories; a trailing `**` matches everything.
        if (glob[i + 2] === "/") {
          re += "(?:.*/)?";
          i += 3;
        } else {
          re += ".*";
          i += 2;
        }
      } else {
        re += "[^/]*";
        i++;
      }
    } else if (c === "?") {
      re += "[^/]";
      i++;
    } else if (c === "[") {
      const end = glob.indexOf("]", i + 2);
      if (end < 0) {
        re += "\\[";
        i++;
      } else {
        let body = glob.slice(i + 1, end).replace(/\\/g, "\\\\");
        if (body.startsWith("!")) body = `^${body.slice(1)}`;
        re += `[${body}]`;
        i = end + 1;
      }
    } else if (c === "{") {
      braces++;
      re += "(?:";
      i++;
    } else if (c === "}" && braces > 0) {
      braces--;
      re += ")";
      i++;
    } else if (c === "," && braces > 0) {
      re += "|";
      i++;
    } else {
      re += c.replace(/[.+^$()|\\]/g, "\\$&");
      i++;
    }
  }
  while (braces-- > 0) re += ")";
  return new RegExp(`^${re}$`);
}

/** One .gitignore rule. */
interface IgnoreRule {
  readonly regex: RegExp;
  readonly negate: boolean;
  readonly dirOnly: boolean;
}

/** Parses .gitignore text whose directory is `base` (relative to the root, "" for the root). */
export function parseGitignore(text: string, base: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.replace(/(?<!\\)\s+$/, "");
    if (line === "" || line.startsWith("#")) continue;
    const negate = line.startsWith("!");
    if (negate) line = line.slice(1);
    const dirOnly = line.endsWith("/");
    if (dirOnly) line = line.slice(0, -1);
    // A pattern with a slash (other than trailing) is anchored to its directory.
    const anchored = line.includes("/");
    if (line.startsWith("/")) line = line.slice(1);
    const prefix = base ? `${base}/` : "";
    const glob = anchored ? `${prefix}${line}` : `${prefix}**/${line}`;
    rules.push({ regex: globToRegExp(glob), negate, dirOnly });
  }
  return rules;
}

/** Whether `rel` is ignored by the rules (the last matching rule wins). */
export function isIgnored(rules: readonly IgnoreRule[], rel: string, isDir: boolean): boolean {
  let ignored = false;
  for (const rule of rules) {
    if (rule.dirOnly && !isDir) continue;
    if (rule.regex.test(rel)) ignored = !rule.negate;
  }
  return ignored;
}
