import { z } from "zod";
import { findProjectRoot } from "../core/project_root.ts";
import { oneOf } from "../core/schema.ts";
import { ProjectStore } from "../core/storage/projects.ts";
import { checkTimeZone, parseTimeBound, parseUntilBound } from "../core/time.ts";
import { buildDashboard, TABS } from "../core/usage/dashboard.ts";
import { dashboardJson } from "../core/usage/dashboard_json.ts";
import { renderUsageTab, type UsageLook } from "../tui/render/usage_report.ts";
import { openDb, parseOptions, uiFor } from "./context.ts";
import { EXIT } from "./exit_codes.ts";
import type { World } from "./world.ts";

const UsageOptions = z.object({
  since: z.string().min(1).optional(),
  until: z.string().min(1).optional(),
  project: z.string().min(1).optional(),
  tz: z.string().min(1).optional(),
  json: z.boolean().optional(),
  breakdown: z.boolean().optional(),
});
const TabArg = oneOf(TABS, (input) => `unknown tab '${String(input)}' (use ${TABS.join(", ")})`)
  .optional();

/** `bonsai usage [tab]`: the cross-project dashboard, tables for people or --json. */
export async function usage(
  world: World,
  tabName: string | undefined,
  raw: unknown,
): Promise<number> {
  const opts = parseOptions(UsageOptions, raw);
  const tab = parseOptions(TabArg, tabName);
  const ui = uiFor(world);
  const timeZone = opts.tz ? checkTimeZone(opts.tz) : ui.timeZone;
  const now = world.clock.now();
  const since = opts.since ? parseTimeBound(opts.since, now, timeZone) : undefined;
  const until = opts.until ? parseUntilBound(opts.until, now, timeZone) : undefined;
  using db = await openDb(world);
  let projectId: number | undefined;
  if (opts.project) projectId = new ProjectStore(db).find(findProjectRoot(opts.project))?.id ?? -1;
  const dashboard = buildDashboard(db, { since, until, projectId }, {
    timeZone,
    now,
    breakdown: opts.breakdown,
  });
  if (opts.json) {
    ui.json(dashboardJson(dashboard, tab));
    return EXIT.OK;
  }
  const look: UsageLook = { style: ui.style, width: ui.width, ascii: ui.ascii, timeZone, now };
  ui.out(renderUsageTab(tab ?? "activity", dashboard, look));
  return EXIT.OK;
}
