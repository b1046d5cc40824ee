import { z } from "zod";
import { homeFrom } from "../core/home.ts";
import { LIVE_WINDOW_MS } from "../core/session/liveness.ts";
import { listBackups } from "../core/storage/backups.ts";
import { inspectDatabase } from "../core/storage/inspect.ts";
import { restoreBackup } from "../core/storage/restore.ts";
import { formatBytes, formatDateTime, formatInt } from "../tui/render/format.ts";
import { renderTable } from "../tui/render/table.ts";
import { confirmOrRefuse, parseOptions, uiFor } from "./context.ts";
import { EXIT } from "./exit_codes.ts";
import type { World } from "./world.ts";

const StatusOptions = z.object({ json: z.boolean().optional(), check: z.boolean().optional() });

/** `bonsai db status [--check] [--json]`: inspects without changing anything. */
export function dbStatus(world: World, raw: unknown): number {
  const opts = parseOptions(StatusOptions, raw);
  const ui = uiFor(world);
  const status = inspectDatabase(homeFrom(world.env), { check: opts.check });
  const latest = status.backups[0] ?? null;
  if (opts.json) {
    ui.json({
      path: status.path,
      exists: status.exists,
      schema_version: status.schemaVersion,
      supported_version: status.supportedVersion,
      size_bytes: status.sizeBytes,
      wal_bytes: status.walBytes,
      journal_mode: status.journalMode,
      projects: status.projects,
      sessions: status.sessions,
      messages: status.messages,
      ledger_rows: status.ledgerRows,
      integrity: status.integrity,
      backups: status.backups.length,
      latest_backup: latest?.name ?? null,
    });
    return status.integrity !== null && status.integrity !== "ok" ? EXIT.DATABASE : EXIT.OK;
  }
  const { style } = ui;
  const row = (k: string, v: string) => `${style.dim(k.padEnd(16))} ${v}`;
  const version = status.schemaVersion === null
    ? "-"
    : status.schemaVersion > status.supportedVersion
    ? style.red(`${status.schemaVersion} (newer than this bonsai: ${status.supportedVersion})`)
    : status.schemaVersion < status.supportedVersion
    ? `${status.schemaVersion} (upgrades to ${status.supportedVersion} on next use)`
    : String(status.schemaVersion);
  const n = (v: number | null) => (v === null ? "-" : formatInt(v));
  const lines = [
    row("path", status.path + (status.exists ? "" : style.dim(" (not created yet)"))),
    row("schema version", version),
    row(
      "size",
      `${formatBytes(status.sizeBytes)}${
        status.walBytes ? ` + ${formatBytes(status.walBytes)} WAL` : ""
      }`,
    ),
    row("journal mode", status.journalMode ?? "-"),
    row("projects", n(status.projects)),
    row("sessions", n(status.sessions)),
    row("messages", n(status.messages)),
    row("ledger rows", n(status.ledgerRows)),
    row("backups", latest ? `${status.backups.length} (latest ${latest.name})` : "0"),
  ];
  if (status.integrity !== null) {
    lines.push(
      row("integrity", status.integrity === "ok" ? style.green("ok") : style.red(status.integrity)),
    );
  }
  ui.out(lines.join("\n"));
  return status.integrity !== null && status.integrity !== "ok" ? EXIT.DATABASE : EXIT.OK;
}

const BackupsOptions = z.object({ json: z.boolean().optional() });

/** `bonsai db backups [--json]`. */
export function dbBackups(world: World, raw: unknown): number {
  const opts = parseOptions(BackupsOptions, raw);
  const ui = uiFor(world);
  const home = homeFrom(world.env);
  const backups = listBackups(home);
  if (opts.json) {
    ui.json(backups.map((b) => ({
      name: b.name,
      path: b.path,
      size_bytes: b.size,
      taken_at: new Date(b.takenAt).toISOString(),
      schema_version: b.version,
      reason: b.reason,
    })));
    return EXIT.OK;
  }
  if (backups.length === 0) {
    ui.err(`No backups in '${home.backupsDir}'`);
    return EXIT.OK;
  }
  ui.out(renderTable(
    [
      { header: "NAME", paint: (t) => ui.style.cyan(t) },
      { header: "TAKEN" },
      { header: "SCHEMA", align: "right" },
      { header: "REASON" },
      { header: "SIZE", align: "right" },
    ],
    backups.map((
      b,
    ) => [
      b.name,
      formatDateTime(b.takenAt, ui.timeZone),
      `v${b.version}`,
      b.reason,
      formatBytes(b.size),
    ]),
    { width: ui.width, style: ui.style, ascii: ui.ascii },
  ));
  return EXIT.OK;
}

const RestoreOptions = z.object({ yes: z.boolean().optional(), force: z.boolean().optional() });

/** `bonsai db restore <name> [--yes] [--force]`: keeps a backup of what it replaces. */
export async function dbRestore(world: World, name: string, raw: unknown): Promise<number> {
  const opts = parseOptions(RestoreOptions, raw);
  const ui = uiFor(world);
  const home = homeFrom(world.env);
  const question =
    `Replace '${home.dbPath}' with backup '${name}'? (the current database is backed up first)`;
  if (!(await confirmOrRefuse(world, question, opts.yes ?? false))) {
    ui.err("Nothing restored");
    return EXIT.CANCELLED;
  }
  const result = await restoreBackup({
    home,
    clock: world.clock,
    name,
    force: opts.force,
    ownPid: world.pid,
    liveWindowMs: LIVE_WINDOW_MS,
  });
  if (result.safetyBackup) ui.err(`Backed up the replaced database to '${result.safetyBackup}'`);
  if (result.movedAside) ui.err(`Moved the unreadable database aside to '${result.movedAside}'`);
  ui.err(`Restored '${result.restored.name}' (schema version ${result.version})`);
  return EXIT.OK;
}
