import { renderRules } from "../render/rules_table.ts";
import type { ReplContext, SlashCommand } from "./command.ts";

const USAGE =
  "Usage: /permissions · /permissions add [--project] <allow|deny> <write|exec> <pattern> · /permissions remove <id>";

/**
 * `/permissions`: the saved rules in force in this project; `add` saves one (for every
 * project, or with --project for this one; the rest of the line is the pattern, no quotes
 * needed), `remove` deletes one. They apply from the next tool call.
 */
export const permissionsCommand: SlashCommand = {
  name: "permissions",
  aliases: ["rules"],
  args: "[add [--project] allow|deny write|exec <pattern> | remove <id>]",
  summary: "saved allow/deny rules for writes and commands (this project's and every project's)",
  run(ctx, args) {
    const text = args.trim();
    const [verb = "", ...rest] = text.split(/\s+/);
    const root = ctx.host.session.projectPath;
    const admin = ctx.admin.permissions;
    if (verb === "" || verb === "list") {
      const rules = admin.list({ inForce: root });
      if (rules.length === 0) {
        ctx.print(
          `No permission rules here. Add one with /permissions add --project allow exec npm test\n`,
        );
      } else {
        ctx.print(
          renderRules(rules, {
            width: ctx.width,
            style: ctx.style,
            ascii: ctx.ascii,
            showProject: false,
            shortIds: admin.shortIds(),
          }),
        );
      }
    } else if (verb === "add") {
      add(ctx, text.slice(3).trim(), root);
    } else if (["remove", "rm"].includes(verb) && rest.length === 1) {
      const rule = admin.remove(rest[0]!);
      ctx.print(
        `Removed rule ${rule.id}: ${rule.effect} ${rule.kind} '${rule.pattern}'.\n`,
      );
    } else {
      ctx.print(`${USAGE}\n`);
    }
    return Promise.resolve();
  },
  complete(_ctx, partial) {
    const words = partial.split(/\s+/);
    if (words.length <= 1) return ["add ", "remove ", "list"].filter((c) => c.startsWith(partial));
    return [];
  },
};

function add(ctx: ReplContext, line: string, root: string): void {
  let rest = line;
  let project = false;
  const flag = /^--(project|global)(?:\s+|$)/.exec(rest);
  if (flag) {
    project = flag[1] === "project";
    rest = rest.slice(flag[0].length);
  }
  const m = /^(\S+)\s+(\S+)\s+([^]+)$/.exec(rest);
  if (!m) {
    ctx.print(`${USAGE}\n`);
    return;
  }
  const admin = ctx.admin.permissions;
  const rule = admin.add({
    effect: m[1]!,
    kind: m[2]!,
    pattern: m[3]!,
    projectRoot: project ? root : null,
  });
  ctx.print(
    `Saved rule ${
      admin.shortIds().get(rule.id)
    }: ${rule.effect} ${rule.kind} '${rule.pattern}' for ${
      project ? "this project" : "every project"
    } (applies from the next tool call).\n`,
  );
}
