import { z } from "zod";
import { describeSettings, saveSetting, settingDef } from "../core/service/settings_catalog.ts";
import { SettingsStore } from "../core/storage/settings.ts";
import { renderTable } from "../tui/render/table.ts";
import { openDb, parseOptions, uiFor } from "./context.ts";
import { EXIT } from "./exit_codes.ts";
import type { World } from "./world.ts";

const ListOptions = z.object({ json: z.boolean().optional() });

/** `bonsai settings [--json]`: saved presets and defaults (flags override them per run). */
export async function listSettings(world: World, raw: unknown): Promise<number> {
  const opts = parseOptions(ListOptions, raw);
  const ui = uiFor(world);
  using db = await openDb(world);
  const all = describeSettings(new SettingsStore(db));
  if (opts.json) {
    ui.json(Object.fromEntries(all.map(({ def, value }) => [def.key, value])));
    return EXIT.OK;
  }
  ui.out(renderTable(
    [
      { header: "SETTING", paint: (t) => ui.style.cyan(t) },
      {
        header: "VALUE",
        paint: (t) => (t === "off" || t === "-" ? ui.style.dim(t) : ui.style.bold(t)),
      },
      { header: "MEANING", shrink: true, min: 20 },
    ],
    all.map(({ def, value }) => [
      def.key,
      value === null ? (def.key.startsWith("budget.") ? "off" : "-") : def.format(value),
      def.description,
    ]),
    { width: ui.width, style: ui.style, ascii: ui.ascii },
  ));
  return EXIT.OK;
}

/** `bonsai settings set <key> <value>`. */
export async function setSetting(world: World, key: string, value: string): Promise<number> {
  using db = await openDb(world);
  const parsed = saveSetting(new SettingsStore(db), key, value);
  uiFor(world).err(`Saved ${key} = ${settingDef(key).format(parsed)}`);
  return EXIT.OK;
}

/** `bonsai settings unset <key>`. */
export async function unsetSetting(world: World, key: string): Promise<number> {
  settingDef(key);
  using db = await openDb(world);
  new SettingsStore(db).set(key, null);
  uiFor(world).err(`Removed ${key}`);
  return EXIT.OK;
}
