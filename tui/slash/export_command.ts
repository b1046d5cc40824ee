import { isAbsolute, resolve } from "node:path";
import type { SlashCommand } from "./command.ts";

/** `/export [dir]`: the current session as Markdown, in `<project>/对话/` or in DIR (X5). */
export const exportCommand: SlashCommand = {
  name: "export",
  args: "[dir]",
  summary: "write this session as Markdown to 对话/ in the project (or into DIR)",
  async run(ctx, args) {
    const session = ctx.host.session;
    const dir = args.trim();
    // A relative DIR is taken from the project root, where the agent works.
    const outDir = dir === ""
      ? undefined
      : isAbsolute(dir)
      ? dir
      : resolve(session.projectPath, dir);
    const result = await ctx.admin.export(session.id, { outDir });
    ctx.print(
      `Exported ${result.messages} message${result.messages === 1 ? "" : "s"} to ${
        ctx.style.bold(result.path ?? "")
      }\n`,
    );
  },
};
