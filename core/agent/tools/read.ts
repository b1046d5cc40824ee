import { z } from "zod";
import { confine } from "./paths.ts";
import { defineTool, sha256, toolError } from "./tool.ts";

const MAX_LINES = 2000;
const MAX_LINE_CHARS = 2000;
const MAX_FILE_BYTES = 10 * 1024 * 1024;

/** `read`: lines of a file, numbered; records read evidence with content hashes. */
export const readTool = defineTool({
  name: "read",
  description:
    `Read a text file in the project. Returns numbered lines (like cat -n). Use offset/limit for large files (default: the first ${MAX_LINES} lines). You must read a file before editing it.`,
  schema: z.object({
    path: z.string().min(1).describe(
      "File path, relative to the project root (or absolute inside it)",
    ),
    offset: z.number().int().min(1).optional().describe("First line to read, 1-based"),
    limit: z.number().int().min(1).max(MAX_LINES).optional().describe(
      `How many lines (max ${MAX_LINES})`,
    ),
  }).strict(),
  permission: "none",
  describe: (a) =>
    `${a.path}${a.offset || a.limit ? `:${a.offset ?? 1}+${a.limit ?? MAX_LINES}` : ""}`,
  async run(args, ctx) {
    const { abs, rel } = confine(ctx.root, args.path);
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(abs);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return toolError(`File not found: ${rel}`);
      throw err;
    }
    if (info.isDirectory) return toolError(`${rel} is a directory; use glob to list files`);
    if (info.size > MAX_FILE_BYTES) {
      return toolError(
        `${rel} is ${info.size} bytes; larger than ${MAX_FILE_BYTES} bytes cannot be read`,
      );
    }
    const bytes = await Deno.readFile(abs);
    if (bytes.subarray(0, 8192).includes(0)) return toolError(`${rel} looks like a binary file`);
    const text = new TextDecoder().decode(bytes);
    const lines = text.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    const start = args.offset ?? 1;
    const end = Math.min(lines.length, start - 1 + (args.limit ?? MAX_LINES));
    if (lines.length > 0 && start > lines.length) {
      return toolError(`${rel} has ${lines.length} lines; offset ${start} is past the end`);
    }
    const shown = lines.slice(start - 1, end);
    const body = shown.map((line, i) => {
      const cut = line.length > MAX_LINE_CHARS
        ? `${line.slice(0, MAX_LINE_CHARS)}… [line cut]`
        : line;
      return `${String(start + i).padStart(6)}\t${cut}`;
    }).join("\n");
    ctx.files.recordRead({
      rel,
      startLine: start,
      endLine: end,
      contentHash: await sha256(shown.join("\n")),
      fileHash: await sha256(bytes),
    });
    const more = end < lines.length
      ? `\n[${lines.length - end} more lines; read with offset ${end + 1}]`
      : "";
    const empty = lines.length === 0 ? "(empty file)" : "";
    return { output: empty || body + more, isError: false, summary: `${shown.length} lines` };
  },
});
