import { BonsaiError } from "../../core/errors.ts";
import { settingDef, SETTINGS, shownValue } from "../../core/service/settings_catalog.ts";
import { PRICE_SETTING_PREFIX } from "../../core/usage/user_price.ts";
import { parseTimeBound } from "../../core/time.ts";
import { type Tab, TABS } from "../../core/usage/dashboard.ts";
import { renderContext } from "../render/ctx_report.ts";
import { renderPerf } from "../render/perf_report.ts";
import { renderTable } from "../render/table.ts";
import { renderUsageTab } from "../render/usage_report.ts";
import type { SlashCommand } from "./command.ts";

export const helpCommand: SlashCommand = {
  name: "help",
  summary: "list the commands",
  run(ctx) {
    const rows = ctx.commands.map((c) => [
      `/${c.name}${c.args ? ` ${c.args}` : ""}`,
      c.summary + (c.aliases?.length ? ` (also /${c.aliases.join(", /")})` : ""),
    ]);
    ctx.print(
      renderTable(
        [{
          header: "COMMAND",
          paint: (t) => ctx.style.cyan(t),
        }, { header: "WHAT IT DOES", shrink: true, min: 20 }],
        rows,
        {
          width: ctx.width,
          style: ctx.style,
          ascii: ctx.ascii,
        },
      ),
    );
    ctx.print(
      ctx.style.dim(
        "Ctrl-C cancels a reply or tool (twice on an empty prompt quits); Ctrl-D quits; Tab completes.\n",
      ),
    );
    return Promise.resolve();
  },
};

export const quitCommand: SlashCommand = {
  name: "quit",
  aliases: ["exit"],
  summary: "save everything and leave",
  run: () => Promise.resolve("quit" as const),
};

export const perfCommand: SlashCommand = {
  name: "perf",
  aliases: ["cost"],
  summary: "this session's usage: turns, tokens, cost, cache saving, by lane and model",
  run(ctx) {
    ctx.print(
      renderPerf(ctx.host.perf(), { style: ctx.style, width: ctx.width, ascii: ctx.ascii }),
    );
    return Promise.resolve();
  },
};

export const ctxCommand: SlashCommand = {
  name: "ctx",
  summary: "where the context window goes: system, tools, messages, tool results, summaries",
  run(ctx) {
    ctx.print(
      renderContext(ctx.host.contextReport(), {
        style: ctx.style,
        width: ctx.width,
        ascii: ctx.ascii,
      }),
    );
    return Promise.resolve();
  },
};

export const settingsCommand: SlashCommand = {
  name: "settings",
  args: "[key [value|off]]",
  summary: "view or change saved budget presets and defaults (used from the next prompt)",
  run(ctx, args) {
    const [key, ...rest] = args.trim().split(/\s+/).filter(Boolean);
    const all = ctx.admin.describeSettings();
    const shown = (s: (typeof all)[number]) =>
      s.problem !== null ? ctx.style.red(shownValue(s)) : shownValue(s);
    if (!key) {
      ctx.print(renderTable(
        [{ header: "SETTING", paint: (t) => ctx.style.cyan(t) }, { header: "VALUE" }, {
          header: "MEANING",
          shrink: true,
          min: 16,
        }],
        all.map((s) => [s.def.key, shown(s), s.def.description]),
        { width: ctx.width, style: ctx.style, ascii: ctx.ascii },
      ));
      ctx.print(
        ctx.style.dim(
          "Change one with /settings <key> <value>; remove it with /settings <key> off.\n",
        ),
      );
      return Promise.resolve();
    }
    const def = settingDef(key);
    if (rest.length === 0) {
      const stored = all.find((s) => s.def.key === key);
      ctx.print(`${key} = ${!stored || stored.raw === null ? "(not set)" : shown(stored)}\n`);
    } else if (rest.length === 1 && ["off", "unset", "none"].includes(rest[0]!)) {
      ctx.admin.unsetSetting(key);
      ctx.print(`Removed ${key}.\n`);
    } else {
      const value = ctx.admin.saveSetting(key, rest.join(" "));
      ctx.print(`Saved ${key} = ${def.format(value)} (applies from the next prompt).\n`);
    }
    return Promise.resolve();
  },
  complete(ctx, partial) {
    // Fixed keys, saved prices, and the prefix to type a new one (`price.<model>`).
    const keys = new Set([
      ...SETTINGS.map((s) => s.key),
      ...ctx.admin.describeSettings().map((s) => s.def.key).filter((k) => !k.includes("<")),
      PRICE_SETTING_PREFIX,
    ]);
    return [...keys].filter((k) => k.startsWith(partial));
  },
};

export const usageCommand: SlashCommand = {
  name: "usage",
  args: "[tab] [since]",
  summary: `usage across all projects; tabs ${TABS.join(", ")}; since e.g. 7d or 2026-11-01`,
  run(ctx, args) {
    let tab: Tab = "activity";
    let since: number | undefined;
    for (const word of args.split(/\s+/).filter(Boolean)) {
      const named = TABS.find((t) => t === word.toLowerCase());
      if (named) tab = named;
      else if (/^\d/.test(word)) since = parseTimeBound(word, ctx.now, ctx.timeZone);
      else {
        throw new BonsaiError(
          "USAGE",
          `Unknown tab '${word}': use ${TABS.join(", ")}, optionally with a start like 7d`,
        );
      }
    }
    const dashboard = ctx.admin.usage({ since }, { timeZone: ctx.timeZone, now: ctx.now });
    ctx.print(renderUsageTab(tab, dashboard, {
      style: ctx.style,
      width: ctx.width,
      ascii: ctx.ascii,
      timeZone: ctx.timeZone,
      now: ctx.now,
    }));
    return Promise.resolve();
  },
  complete: (_ctx, partial) => TABS.filter((t) => t.startsWith(partial.toLowerCase())),
};
