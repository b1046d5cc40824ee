import { BonsaiError } from "../../core/errors.ts";
import { refuseRewind } from "../../core/service/rewind.ts";
import { formatAge } from "../render/format.ts";
import { clip, rewindLines, rewindQuestion, rewindWarnings } from "../render/rewind_report.ts";
import type { ReplContext, SlashCommand } from "./command.ts";

const USAGE = "Usage: /rewind [seq] [--files] [--force]";

/**
 * `/rewind [seq] [--files] [--force]`: goes back to before one of this session's prompts
 * (a picker of them without a seq, which also asks whether to revert files). The rest of
 * the conversation moves to a new linked session, which `/resume` reopens to undo it.
 */
export const rewindCommand: SlashCommand = {
  name: "rewind",
  args: "[seq] [--files] [--force]",
  summary: "go back to before one of this session's prompts (a picker without seq)",
  async run(ctx, args) {
    const words = args.trim().split(/\s+/).filter(Boolean);
    let files = words.includes("--files");
    const force = words.includes("--force");
    const rest = words.filter((w) => w !== "--files" && w !== "--force");
    if (rest.length > 1 || (rest[0] !== undefined && !/^\d+$/.test(rest[0]))) {
      throw new BonsaiError("USAGE", USAGE);
    }
    let to = rest[0] === undefined ? null : Number(rest[0]);
    const picked = to === null;
    if (to === null) {
      to = await pickPrompt(ctx);
      if (to === null) return;
    }
    let preview = await ctx.host.previewRewind({ to, files, force });
    if (picked && !files && preview.changedFiles.length > 0) {
      const n = preview.changedFiles.length;
      const answer = await ctx.pick(`Files changed since that prompt (${n}). Revert them too?`, [
        { value: "conversation", name: "Conversation only (leave the files as they are)" },
        { value: "files", name: `Conversation and files (revert ${n} file${n === 1 ? "" : "s"})` },
      ]);
      if (answer === null) return;
      if (answer === "files") {
        files = true;
        preview = await ctx.host.previewRewind({ to, files, force });
      }
    }
    const options = { to, files, force };
    refuseRewind(preview, options);
    for (const w of rewindWarnings(preview, files)) ctx.print(`${ctx.style.yellow(w)}\n`);
    if (!(await ctx.confirm(rewindQuestion(preview, files)))) {
      ctx.print("Nothing changed.\n");
      return;
    }
    const result = await ctx.host.rewind(options, preview);
    // Warnings were shown before the question; the report keeps only what happened.
    ctx.print(`${rewindLines(result, ctx.style, { warnings: false }).join("\n")}\n`);
  },
};

/** The user's pick among the session's prompts, latest first; null when there is none or it was cancelled. */
async function pickPrompt(ctx: ReplContext): Promise<number | null> {
  const points = ctx.host.rewindPoints();
  if (points.length === 0) {
    ctx.print("Nothing to rewind: this session has no prompts yet.\n");
    return null;
  }
  const choices = [...points].reverse().slice(0, 50).map((p) => ({
    value: String(p.seq),
    name: `#${p.seq} ${clip(p.text)} — ${formatAge(p.createdAt, ctx.now, ctx.timeZone)}`,
  }));
  const picked = await ctx.pick("Rewind to before which prompt?", choices);
  return picked === null ? null : Number(picked);
}
