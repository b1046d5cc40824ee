import { basename } from "node:path";
import { z } from "zod";
import { BonsaiError } from "../core/errors.ts";
import { type Env, homeFrom } from "../core/home.ts";
import { importLater } from "../core/modules.ts";
import { MIN_SECRET_LENGTH } from "../core/secrets.ts";
import { liveElsewhere, ownerAlive } from "../core/session/liveness.ts";
import { listBackups } from "../core/storage/backups.ts";
import { inspectDatabase } from "../core/storage/inspect.ts";
import { restoreBackup } from "../core/storage/restore.ts";
import {
  type BackupScrub,
  databaseHolds,
  scrubBackups,
  scrubDatabase,
  type ScrubReport,
} from "../core/storage/scrub.ts";
import { parseTimeBound } from "../core/time.ts";
import type { RepriceReport } from "../core/usage/reprice.ts";
import { formatBytes, formatDateTime, formatInt, formatUsd } from "../tui/render/format.ts";
import { renderTable } from "../tui/render/table.ts";
import { confirmOrRefuse, openDb, parseOptions, type Ui, uiFor } from "./context.ts";
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
    liveElsewhere: (row) =>
      liveElsewhere(row, world.clock.now(), { pid: world.pid, host: world.hostname }, world.probe),
    // A forced restore still waits for a peer's write in progress (the project's write lease).
    leaseHeld: (holder) => {
      const now = world.clock.now();
      return holder.expiresAt > now && ownerAlive(holder, now, world.probe);
    },
  });
  if (result.safetyBackup) ui.err(`Backed up the replaced database to '${result.safetyBackup}'`);
  if (result.movedAside) ui.err(`Moved the unreadable database aside to '${result.movedAside}'`);
  ui.err(`Restored '${result.restored.name}' (schema version ${result.version})`);
  return EXIT.OK;
}

const ScrubOptions = z.object({
  valueFromEnv: z.string(),
  backups: z.boolean().optional(),
  force: z.boolean().optional(),
  json: z.boolean().optional(),
});

/**
 * `bonsai db scrub --value-from-env NAME [--backups] [--force] [--json]`: removes a stored
 * secret from the database (and with --backups from its backups). The value comes from the
 * environment so it never appears on a command line.
 */
export async function dbScrub(world: World, raw: unknown): Promise<number> {
  const opts = parseOptions(ScrubOptions, raw);
  const ui = uiFor(world);
  const home = homeFrom(world.env);
  const value = valueFromEnv(world.env, opts.valueFromEnv);
  let report: ScrubReport;
  {
    using db = await openDb(world);
    const now = world.clock.now();
    const me = { pid: world.pid, host: world.hostname };
    report = scrubDatabase(db, {
      value,
      force: opts.force,
      liveElsewhere: (row) => liveElsewhere(row, now, me, world.probe),
    });
  }
  // Read the files only once the connection is closed (a descriptor closed on an open
  // database drops this process's locks); closing also removed the WAL.
  const clean = !databaseHolds(home.dbPath, value);
  const backups = scrubBackups(home, value, { scrub: opts.backups ?? false });
  const failed = !clean || (opts.backups === true && backups.some((b) => !b.clean));
  if (opts.json) {
    ui.json({
      path: home.dbPath,
      rows: report.rows,
      tables: tablesJson(report),
      wal_truncated: report.walTruncated,
      live_sessions: report.liveSessions,
      clean,
      backups: backups.map((b) => ({
        name: basename(b.path),
        path: b.path,
        scrubbed: b.report !== null,
        rows: b.report?.rows ?? null,
        tables: b.report ? tablesJson(b.report) : null,
        clean: b.clean,
        error: b.error,
      })),
    });
  } else {
    printScrub(ui, { path: home.dbPath, report, clean, backups, scrubBackups: !!opts.backups });
  }
  return failed ? EXIT.FAILURE : EXIT.OK;
}

/** The value to scrub, from the named variable; USAGE errors never echo a value. */
function valueFromEnv(env: Env, name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw new BonsaiError(
      "USAGE",
      "--value-from-env takes the name of an environment variable that holds the secret, not the secret itself",
    );
  }
  const value = env[name];
  if (value === undefined || value === "") {
    throw new BonsaiError("USAGE", `Environment variable '${name}' is not set (or empty)`);
  }
  if (value.length < MIN_SECRET_LENGTH) {
    throw new BonsaiError(
      "USAGE",
      `The value of '${name}' has ${value.length} characters; only values of ${MIN_SECRET_LENGTH} or more can be scrubbed (shorter ones are too likely to be ordinary text)`,
    );
  }
  return value;
}

function tablesJson(report: ScrubReport): Record<string, number> {
  return Object.fromEntries(report.tables.map((t) => [t.table, t.rows]));
}

function printScrub(
  ui: Ui,
  r: {
    path: string;
    report: ScrubReport;
    clean: boolean;
    backups: readonly BackupScrub[];
    scrubBackups: boolean;
  },
): void {
  const { report } = r;
  const { style } = ui;
  if (report.liveSessions > 0) {
    ui.err(
      `bonsai: ${report.liveSessions} session(s) are live in other processes: they still hold the value and may store it again`,
    );
  }
  if (report.rows === 0) {
    ui.out(`No rows of '${r.path}' held the value`);
  } else {
    ui.out(`Replaced the value in ${formatInt(report.rows)} row(s) of '${r.path}':`);
    ui.out(renderTable(
      [{ header: "TABLE", paint: (t) => style.cyan(t) }, { header: "ROWS", align: "right" }],
      report.tables.map((t) => [t.table, formatInt(t.rows)]),
      { width: ui.width, style, ascii: ui.ascii },
    ));
  }
  if (r.clean) {
    ui.out("Search index rebuilt and database vacuumed: its file and WAL no longer hold the value");
  } else {
    ui.err(
      `bonsai: '${r.path}' still holds the value's bytes${
        report.walTruncated ? "" : " (another process kept its WAL open)"
      }; quit other bonsai processes and run this again`,
    );
  }
  if (r.backups.length === 0) return;
  if (!r.scrubBackups) {
    ui.err(
      `${r.backups.length} backup file(s) also hold the value; run again with --backups to scrub them:`,
    );
    for (const b of r.backups) ui.err(`  ${b.path}`);
    return;
  }
  for (const b of r.backups) {
    const name = basename(b.path);
    if (b.error !== null) ui.err(`bonsai: cannot scrub backup '${name}': ${b.error}`);
    else if (!b.clean) ui.err(`bonsai: backup '${name}' still holds the value's bytes`);
    else ui.out(`Scrubbed backup '${name}': ${formatInt(b.report?.rows ?? 0)} row(s)`);
  }
}

const RepriceOptions = z.object({
  since: z.string().min(1).optional(),
  unpricedOnly: z.boolean().optional(),
  force: z.boolean().optional(),
  json: z.boolean().optional(),
});

/**
 * `bonsai db reprice [--since WHEN] [--unpriced-only] [--force] [--json]`: recomputes stored
 * costs with the current price table and saved prices, and reports what changed per model.
 */
export async function dbReprice(world: World, raw: unknown): Promise<number> {
  const opts = parseOptions(RepriceOptions, raw);
  const ui = uiFor(world);
  const now = world.clock.now();
  const since = opts.since ? parseTimeBound(opts.since, now, ui.timeZone) : undefined;
  // The price table loads only here: `db status` and the rest never price anything.
  const { reprice } = await importLater<typeof import("../core/usage/reprice.ts")>(
    new URL("../core/usage/reprice.ts", import.meta.url),
  );
  let report: RepriceReport;
  {
    using db = await openDb(world);
    const me = { pid: world.pid, host: world.hostname };
    report = reprice(db, {
      since,
      unpricedOnly: opts.unpricedOnly,
      force: opts.force,
      liveElsewhere: (row) => liveElsewhere(row, now, me, world.probe),
    });
  }
  if (opts.json) {
    ui.json({
      rows: report.rows,
      changed: report.changed,
      newly_priced: report.newlyPriced,
      unpriced: report.unpriced,
      cost_before_usd: report.costBefore,
      cost_after_usd: report.costAfter,
      difference_usd: report.costAfter - report.costBefore,
      live_sessions: report.liveSessions,
      models: report.models.map((m) => ({
        provider: m.provider,
        model: m.model,
        rows: m.rows,
        changed: m.changed,
        newly_priced: m.newlyPriced,
        unpriced: m.unpriced,
        cost_before_usd: m.costBefore,
        cost_after_usd: m.costAfter,
        difference_usd: m.costAfter - m.costBefore,
      })),
    });
    return EXIT.OK;
  }
  printReprice(ui, report);
  return EXIT.OK;
}

function signedUsd(usd: number): string {
  if (usd === 0) return "$0.00";
  return `${usd > 0 ? "+" : "-"}${formatUsd(Math.abs(usd))}`;
}

function printReprice(ui: Ui, r: RepriceReport): void {
  if (r.liveSessions > 0) {
    ui.err(
      `bonsai: ${r.liveSessions} session(s) are live in other processes: rows they write now are priced as before`,
    );
  }
  if (r.rows === 0) {
    ui.out("No usage rows to reprice");
    return;
  }
  ui.out(
    `Repriced ${formatInt(r.rows)} row(s): ${formatInt(r.changed)} changed, ${
      formatInt(r.newlyPriced)
    } newly priced, ${formatInt(r.unpriced)} still without a price; total ${
      formatUsd(r.costBefore)
    } -> ${formatUsd(r.costAfter)} (${signedUsd(r.costAfter - r.costBefore)})`,
  );
  const shown = r.models.filter((m) => m.changed > 0 || m.unpriced > 0);
  if (shown.length === 0) return;
  ui.out(renderTable(
    [
      { header: "MODEL", paint: (t) => ui.style.cyan(t), shrink: true, min: 12 },
      { header: "PROVIDER", drop: 1 },
      { header: "ROWS", align: "right" },
      { header: "CHANGED", align: "right" },
      { header: "NEWLY PRICED", align: "right", drop: 2 },
      { header: "UNPRICED", align: "right", drop: 3 },
      { header: "BEFORE", align: "right" },
      { header: "AFTER", align: "right" },
      { header: "DIFFERENCE", align: "right" },
    ],
    shown.map((m) => [
      m.model,
      m.provider,
      formatInt(m.rows),
      formatInt(m.changed),
      formatInt(m.newlyPriced),
      formatInt(m.unpriced),
      formatUsd(m.costBefore),
      formatUsd(m.costAfter),
      signedUsd(m.costAfter - m.costBefore),
    ]),
    { width: ui.width, style: ui.style, ascii: ui.ascii },
  ));
}
