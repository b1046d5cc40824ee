import { BonsaiError } from "../../core/errors.ts";
import { formatAge, formatCompact, formatDateTime } from "../render/format.ts";
import { renderTable } from "../render/table.ts";
import type { ReplContext, SlashCommand } from "./command.ts";

/** Session ids of this project, for Tab completion. */
function projectIds(ctx: ReplContext, partial: string): string[] {
  return ctx.admin.list({ projectPath: ctx.host.session.projectPath, limit: 200 })
    .map((s) => s.id.slice(0, 10))
    .filter((id) => id.startsWith(partial.toLowerCase()));
}

export const sessionsCommand: SlashCommand = {
  name: "sessions",
  summary: "list this project's sessions",
  run(ctx) {
    const sessions = ctx.admin.list({ projectPath: ctx.host.session.projectPath, limit: 30 });
    const short = ctx.admin.shortIds(sessions.map((x) => x.id));
    ctx.print(renderTable(
      [
        { header: "ID", paint: (t) => ctx.style.cyan(t) },
        { header: "TITLE", shrink: true, min: 12 },
        { header: "STATUS" },
        { header: "UPDATED" },
        { header: "MSGS", align: "right", drop: 1 },
        { header: "TOKENS", align: "right", drop: 2 },
      ],
      sessions.map((x) => [
        `${short.get(x.id)}${x.id === ctx.host.session.id ? "*" : ""}`,
        `${x.pinned ? (ctx.ascii ? "* " : "★ ") : ""}${x.title}`,
        x.status,
        formatAge(x.contentUpdatedAt, ctx.now, ctx.timeZone),
        String(x.messageCount),
        formatCompact(x.totalTokens),
      ]),
      { width: ctx.width, style: ctx.style, ascii: ctx.ascii },
    ));
    return Promise.resolve();
  },
};

export const resumeCommand: SlashCommand = {
  name: "resume",
  args: "[id]",
  summary: "switch to another session of this project (a picker without id)",
  async run(ctx, args) {
    let prefix = args.trim();
    if (!prefix) {
      const current = ctx.host.session;
      const choices = ctx.admin.list({
        projectPath: current.projectPath,
        source: "bonsai",
        limit: 30,
      })
        .filter((x) => x.id !== current.id)
        .map((x) => ({
          value: x.id,
          name: `${x.title} — ${
            formatAge(x.contentUpdatedAt, ctx.now, ctx.timeZone)
          }, ${x.messageCount} messages`,
        }));
      if (choices.length === 0) {
        ctx.print("No other session in this project to resume.\n");
        return;
      }
      const picked = await ctx.pick("Resume which session?", choices);
      if (!picked) return;
      prefix = picked;
    }
    const target = await ctx.host.resume(prefix);
    ctx.print(
      `Resumed ${ctx.style.bold(target.title)} ${
        ctx.style.dim(target.id)
      } (${target.messageCount} messages).\n`,
    );
  },
  complete: projectIds,
};

export const forgetCommand: SlashCommand = {
  name: "forget",
  args: "<id>",
  summary: "delete a session and everything recorded with it (asks first)",
  async run(ctx, args) {
    if (!args.trim()) throw new BonsaiError("USAGE", "Usage: /forget <id>");
    const scope = { current: ctx.host.session.id, project: ctx.host.session.projectPath };
    const target = ctx.admin.forgettable(args.trim(), scope);
    if (
      !(await ctx.confirm(`Delete '${target.title}' (${target.messageCount} messages) for good?`))
    ) {
      ctx.print("Nothing deleted.\n");
      return;
    }
    ctx.admin.forget(target, scope);
    ctx.print(`Forgot ${target.id}.\n`);
  },
  complete: projectIds,
};

export const searchCommand: SlashCommand = {
  name: "search",
  args: "<query>",
  summary: 'search every session\'s messages (words, "phrases", prefix*)',
  run(ctx, args) {
    if (!args.trim()) throw new BonsaiError("USAGE", "Usage: /search <query>");
    const hits = ctx.admin.search(args, { limit: 15 });
    if (hits.length === 0) {
      ctx.print("No matches.\n");
      return Promise.resolve();
    }
    const out = hits.map((h) => {
      let snippet = "";
      let at = 0;
      for (const [a, b] of h.highlights) {
        snippet += h.snippet.slice(at, a) + ctx.style.bold(ctx.style.yellow(h.snippet.slice(a, b)));
        at = b;
      }
      snippet += h.snippet.slice(at);
      const head = `${ctx.style.bold(h.sessionTitle)} ${
        ctx.style.dim(
          `· ${h.role} · ${formatDateTime(h.createdAt, ctx.timeZone)} · ${
            h.sessionId.slice(0, 10)
          }`,
        )
      }`;
      return `${head}\n  ${snippet.replace(/\s+/g, " ")}`;
    });
    ctx.print(`${out.join("\n")}\n`);
    return Promise.resolve();
  },
};

export const titleCommand: SlashCommand = {
  name: "title",
  args: "<text>",
  summary: "rename this session",
  run(ctx, args) {
    if (!args.trim()) throw new BonsaiError("USAGE", "Usage: /title <text>");
    ctx.host.rename(args);
    ctx.print(`Session titled '${ctx.host.session.title}'.\n`);
    return Promise.resolve();
  },
};

export const pinCommand: SlashCommand = {
  name: "pin",
  summary: "pin this session to the top of listings",
  run(ctx) {
    ctx.host.setPinned(true);
    ctx.print("Pinned.\n");
    return Promise.resolve();
  },
};

export const unpinCommand: SlashCommand = {
  name: "unpin",
  summary: "unpin this session",
  run(ctx) {
    ctx.host.setPinned(false);
    ctx.print("Unpinned.\n");
    return Promise.resolve();
  },
};

export const clearCommand: SlashCommand = {
  name: "clear",
  summary: "end this session and start a fresh one (clears the screen)",
  async run(ctx) {
    const fresh = await ctx.host.rotate("clear");
    if (ctx.isTerminal) ctx.print("\x1b[2J\x1b[H");
    ctx.print(`New session ${ctx.style.dim(fresh.id)}.\n`);
  },
};

export const newCommand: SlashCommand = {
  name: "new",
  summary: "end this session and start a fresh one",
  async run(ctx) {
    const fresh = await ctx.host.rotate("new");
    ctx.print(`New session ${ctx.style.dim(fresh.id)}.\n`);
  },
};
