import { z } from "zod";
import { diffStat, unifiedDiff } from "../diff.ts";
import { claimNote } from "./claims_note.ts";
import { currentFile, staleReason } from "./file_guard.ts";
import { confine } from "./paths.ts";
import { defineTool, sha256, toolError } from "./tool.ts";

/** `edit`: exact-string replacement in a file the session has read and that has not changed since. */
export const editTool = defineTool({
  name: "edit",
  description:
    "Replace an exact string in a file. old_string must match the file exactly (whitespace included) and be unique unless replace_all is true. Read the file first; edits are refused if it changed since.",
  schema: z.object({
    path: z.string().min(1).describe("File path, relative to the project root"),
    old_string: z.string().min(1).describe("Exact text to replace"),
    new_string: z.string().describe("Replacement text"),
    replace_all: z.boolean().optional().describe("Replace every occurrence (default false)"),
  }).strict(),
  permission: "write",
  describe: (a) => `${a.path}${a.replace_all ? " (all)" : ""}`,
  subject: (a) => a.path,
  async run(args, ctx) {
    if (args.old_string === args.new_string) {
      return toolError("old_string and new_string are the same");
    }
    const path = confine(ctx.root, args.path);
    const before = await currentFile(path);
    if (!before) return toolError(`File not found: ${path.rel}`);
    const stale = staleReason(ctx, path, before.hash);
    if (stale) return toolError(stale);
    const count = before.text.split(args.old_string).length - 1;
    if (count === 0) return toolError(`old_string was not found in ${path.rel}`);
    if (count > 1 && !args.replace_all) {
      return toolError(
        `old_string occurs ${count} times in ${path.rel}; give more surrounding context to make it unique, or set replace_all`,
      );
    }
    const after = args.replace_all
      ? before.text.split(args.old_string).join(args.new_string)
      : before.text.replace(args.old_string, () => args.new_string);
    const refused = await ctx.workspace.replaceFile(path, after, before.text, ctx.signal);
    if (refused) return toolError(refused);
    const afterHash = await sha256(after);
    ctx.files.recordWrite(path.rel, afterHash);
    const diff = unifiedDiff(before.text, after, path.rel);
    const { added, removed } = diffStat(diff);
    const claimed = claimNote(ctx, path.rel);
    return {
      output: `Edited ${path.rel}: ${count} replacement${
        count > 1 ? "s" : ""
      } (+${added} -${removed})${claimed?.note ?? ""}`,
      isError: false,
      diff,
      file: { path: path.rel, beforeHash: before.hash, before: before.text, afterHash },
      summary: `+${added} -${removed}${claimed ? ` · claimed by ${claimed.who}` : ""}`,
    };
  },
});
