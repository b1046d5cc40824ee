import { z } from "zod";
import { diffStat, unifiedDiff } from "../diff.ts";
import { claimNote } from "./claims_note.ts";
import { currentFile, staleReason } from "./file_guard.ts";
import { confine } from "./paths.ts";
import { defineTool, sha256, toolError } from "./tool.ts";

/** `write`: creates or replaces a whole file; an existing file must have been read first. */
export const writeTool = defineTool({
  name: "write",
  description:
    "Create a file, or replace an existing file's whole content. Prefer edit for changes to existing files; an existing file must be read first.",
  schema: z.object({
    path: z.string().min(1).describe("File path, relative to the project root"),
    content: z.string().describe("The complete new content"),
  }).strict(),
  permission: "write",
  describe: (a) => `${a.path} (${a.content.split("\n").length} lines)`,
  subject: (a) => a.path,
  async run(args, ctx) {
    const path = confine(ctx.root, args.path);
    const before = await currentFile(path);
    if (before) {
      const stale = staleReason(ctx, path, before.hash);
      if (stale) return toolError(stale);
    }
    const refused = await ctx.workspace.replaceFile(
      path,
      args.content,
      before?.text ?? null,
      ctx.signal,
    );
    if (refused) return toolError(refused);
    const afterHash = await sha256(args.content);
    ctx.files.recordWrite(path.rel, afterHash);
    const diff = unifiedDiff(before?.text ?? null, args.content, path.rel);
    const { added, removed } = diffStat(diff);
    const verb = before ? "Updated" : "Created";
    const claimed = claimNote(ctx, path.rel);
    return {
      output: `${verb} ${path.rel} (+${added} -${removed})${claimed?.note ?? ""}`,
      isError: false,
      diff,
      file: {
        path: path.rel,
        beforeHash: before?.hash ?? null,
        before: before?.text ?? null,
        afterHash,
      },
      summary: `${verb.toLowerCase()} +${added} -${removed}${
        claimed ? ` · claimed by ${claimed.who}` : ""
      }`,
    };
  },
});
