import { z } from "zod";
import { badSettingError, settingDef, shownValue } from "../core/service/settings_catalog.ts";
import { renderTable } from "../tui/render/table.ts";
import { openDb, parseOptions, uiFor } from "./context.ts";
import { EXIT } from "./exit_codes.ts";
import { sessionAdmin } from "./service.ts";
import type { World } from "./world.ts";

const ListOptions = z.object({ json: z.boolean().optional() });

/**
 * `bonsai settings [--json]`: saved presets and defaults (flags override them per run). A
 * stored value that cannot be used is shown as stored and named on stderr with its fix.
 */
export async function listSettings(world: World, raw: unknown): Promise<number> {
  const opts = parseOptions(ListOptions, raw);
  const ui = uiFor(world);
  using db = await openDb(world);
  const all = sessionAdmin(world, db).describeSettings();
  if (opts.json) {
    ui.json(Object.fromEntries(all.map((s) => [s.def.key, s.problem ? s.raw : s.value])));
  } else {
    ui.out(renderTable(
      [
        { header: "SETTING", paint: (t) => ui.style.cyan(t) },
        {
          header: "VALUE",
          paint: (t) => (t === "off" || t === "-" ? ui.style.dim(t) : ui.style.bold(t)),
        },
        { header: "MEANING", shrink: true, min: 20 },
      ],
      all.map((s) => [
        s.def.key,
        shownValue(s),
        s.def.description,
      ]),
      { width: ui.width, style: ui.style, ascii: ui.ascii },
    ));
  }
  for (const s of all.filter((x) => x.problem !== null)) {
    ui.err(`bonsai: ${badSettingError(s).message}`);
  }
  return EXIT.OK;
}

/** `bonsai settings set <key> <value>`. */
export async function setSetting(world: World, key: string, value: string): Promise<number> {
  using db = await openDb(world);
  const parsed = sessionAdmin(world, db).saveSetting(key, value);
  uiFor(world).err(`Saved ${key} = ${settingDef(key).format(parsed)}`);
  return EXIT.OK;
}

/** `bonsai settings unset <key>`. */
export async function unsetSetting(world: World, key: string): Promise<number> {
  settingDef(key);
  using db = await openDb(world);
  sessionAdmin(world, db).unsetSetting(key);
  uiFor(world).err(`Removed ${key}`);
  return EXIT.OK;
}
