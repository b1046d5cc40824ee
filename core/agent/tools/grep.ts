import { z } from "zod";
import { globToRegExp } from "./glob_match.ts";
import { confine } from "./paths.ts";
import { capOutput, defineTool, toolError } from "./tool.ts";
import { walkFiles } from "./walk.ts";

const MAX_FILE_BYTES = 2 * 1024 * 1024;
const MAX_MATCHES = 400;
const OUTPUT_CHARS = 30_000;

/** `grep`: regular-expression search through files; honours .gitignore. */
export const grepTool = defineTool({
  name: "grep",
  description:
    "Search file contents with a regular expression (JavaScript syntax). Output modes: 'content' (matching lines with line numbers, the default), 'files' (paths only), 'count'. Optional glob filter (e.g. \"*.ts\"). Skips binary files, .git, node_modules and .gitignore'd files.",
  schema: z.object({
    pattern: z.string().min(1).describe("Regular expression"),
    path: z.string().optional().describe("File or directory to search (default: the project root)"),
    glob: z.string().optional().describe("Only files whose path matches this glob"),
    ignore_case: z.boolean().optional(),
    output: z.enum(["content", "files", "count"]).optional(),
  }).strict(),
  permission: "none",
  describe: (a) =>
    `/${a.pattern}/${a.ignore_case ? "i" : ""}${a.glob ? ` ${a.glob}` : ""}${
      a.path ? ` in ${a.path}` : ""
    }`,
  async run(args, ctx) {
    let regex: RegExp;
    try {
      regex = new RegExp(args.pattern, args.ignore_case ? "i" : "");
    } catch (err) {
      return toolError(`Invalid regular expression: ${err instanceof Error ? err.message : err}`);
    }
    const target = confine(ctx.root, args.path ?? ".");
    const info = await Deno.stat(target.abs).catch(() => null);
    if (!info) return toolError(`Not found: ${target.rel}`);
    // A glob without `/` (in each `{a,b}` alternative) matches the file name at any depth.
    const filter = args.glob ? globToRegExp(args.glob, { matchBase: true }) : null;
    const files = info.isFile
      ? [{ rel: target.rel, abs: target.abs, size: info.size }]
      : walkFiles(ctx.root, target.rel, { env: ctx.env, signal: ctx.signal });
    const mode = args.output ?? "content";
    const lines: string[] = [];
    let matches = 0;
    let fileCount = 0;
    for await (const f of files) {
      if (filter && !filter.test(f.rel)) continue;
      if (f.size > MAX_FILE_BYTES) continue;
      const bytes = await Deno.readFile(f.abs).catch(() => null);
      if (!bytes || bytes.subarray(0, 8192).includes(0)) continue;
      const text = new TextDecoder().decode(bytes).split("\n");
      let inFile = 0;
      for (let i = 0; i < text.length; i++) {
        if (!regex.test(text[i]!)) continue;
        inFile++;
        if (mode === "content" && matches < MAX_MATCHES) {
          lines.push(`${f.rel}:${i + 1}: ${text[i]!.slice(0, 500)}`);
        }
        matches++;
      }
      if (inFile > 0) {
        fileCount++;
        if (mode === "files") lines.push(f.rel);
        if (mode === "count") lines.push(`${f.rel}: ${inFile}`);
      }
    }
    if (matches === 0) return { output: "No matches", isError: false, summary: "0 matches" };
    const more = mode === "content" && matches > MAX_MATCHES
      ? `\n[${matches - MAX_MATCHES} more matches]`
      : "";
    return {
      output: capOutput(lines.join("\n") + more, OUTPUT_CHARS),
      isError: false,
      summary: `${matches} matches in ${fileCount} files`,
    };
  },
});
