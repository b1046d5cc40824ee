import { z } from "zod";
import { globToRegExp } from "./glob_match.ts";
import { confine } from "./paths.ts";
import { defineTool, toolError } from "./tool.ts";
import { walkFiles } from "./walk.ts";

const MAX_RESULTS = 500;
const MAX_SCANNED = 200_000;

/** `glob`: files matching a pattern, most recently modified first; honours .gitignore. */
export const globTool = defineTool({
  name: "glob",
  description:
    `Find files by glob pattern (e.g. "**/*.ts", "src/**/test_*.py", "*.{json,md}"), most recently modified first, at most ${MAX_RESULTS}. Skips .git, node_modules and .gitignore'd files.`,
  schema: z.object({
    pattern: z.string().min(1).describe("Glob pattern, relative to `path`"),
    path: z.string().optional().describe("Directory to search in (default: the project root)"),
  }).strict(),
  permission: "none",
  describe: (a) => `${a.pattern}${a.path ? ` in ${a.path}` : ""}`,
  async run(args, ctx) {
    const dir = confine(ctx.root, args.path ?? ".");
    const info = await Deno.stat(dir.abs).catch(() => null);
    if (!info?.isDirectory) return toolError(`Not a directory: ${dir.rel}`);
    const regex = globToRegExp(args.pattern.replace(/^\.\//, ""));
    const prefix = dir.rel === "." ? "" : `${dir.rel}/`;
    const found = [];
    for await (
      const f of walkFiles(ctx.root, dir.rel, {
        env: ctx.env,
        limit: MAX_SCANNED,
        signal: ctx.signal,
      })
    ) {
      if (regex.test(f.rel.slice(prefix.length))) found.push(f);
    }
    found.sort((a, b) => b.mtimeMs - a.mtimeMs || a.rel.localeCompare(b.rel));
    if (found.length === 0) {
      return { output: "No files matched", isError: false, summary: "0 files" };
    }
    const shown = found.slice(0, MAX_RESULTS).map((f) => f.rel);
    const more = found.length > MAX_RESULTS
      ? `\n[${found.length - MAX_RESULTS} more; narrow the pattern]`
      : "";
    return { output: shown.join("\n") + more, isError: false, summary: `${found.length} files` };
  },
});
