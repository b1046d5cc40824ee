import { z } from "zod";
import { BonsaiError, isBonsaiError } from "../core/errors.ts";
import { oneOf } from "../core/schema.ts";
import { claudeRoots, importClaudeCode } from "../core/import/claude_code.ts";
import { codexRoots, importCodex } from "../core/import/codex.ts";
import type { ImportStats } from "../core/import/stats.ts";
import { STORAGE_FAILURE_CODES } from "../core/storage/storage_errors.ts";
import { allSavedPrices } from "../core/usage/pricing_context.ts";
import { openDb, parseOptions, uiFor } from "./context.ts";
import { EXIT } from "./exit_codes.ts";
import type { World } from "./world.ts";

const ImportOptions = z.object({
  path: z.array(z.string().min(1)).optional(),
  json: z.boolean().optional(),
});
const Source = oneOf(
  ["claude-code", "codex"],
  (input) => `unknown source '${String(input)}' (use claude-code or codex)`,
);

/** `bonsai import claude-code|codex [--path DIR]`: brings existing history into the database (Z1). */
export async function importHistory(
  world: World,
  sourceName: string,
  raw: unknown,
): Promise<number> {
  const source = parseOptions(Source, sourceName);
  const opts = parseOptions(ImportOptions, raw);
  const ui = uiFor(world);
  const roots = opts.path?.length
    ? opts.path
    : source === "claude-code"
    ? claudeRoots(world.env)
    : codexRoots(world.env);
  if (roots.length === 0) {
    throw new BonsaiError("USAGE", "No directory to import from: pass --path DIR");
  }
  const existing = [];
  for (const r of roots) {
    try {
      if ((await Deno.stat(r)).isDirectory) existing.push(r);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
  if (existing.length === 0) {
    throw new BonsaiError(
      "NOT_FOUND",
      `No ${source} history found in ${roots.map((r) => `'${r}'`).join(", ")}`,
    );
  }
  using db = await openDb(world);
  // A saved price that cannot be used stops the import before it writes anything, not at
  // the first row it would price.
  allSavedPrices();
  const showProgress = world.stderr.isTerminal && !opts.json;
  const started = world.clock.now();
  let lastDraw = 0;
  let barOpen = false;
  const progress = (done: number, total: number) => {
    if (!showProgress) return;
    const now = Date.now();
    if (done < total && now - lastDraw < 100) return;
    lastDraw = now;
    barOpen = done < total;
    const width = 30;
    const filled = total ? Math.round((done / total) * width) : width;
    world.stderr.write(
      `\r${ui.style.dim("importing")} [${"#".repeat(filled)}${
        " ".repeat(width - filled)
      }] ${done}/${total} files`,
    );
    if (done === total) world.stderr.write("\n");
  };
  const options = { db, ids: world.ids, roots: existing, progress };
  let stats: ImportStats;
  try {
    stats = source === "claude-code" ? await importClaudeCode(options) : await importCodex(options);
  } catch (err) {
    // The bar stops where the import did, on its own line, before the error is printed.
    if (barOpen) world.stderr.write("\n");
    throw resumable(err);
  }
  if (opts.json) {
    ui.json(statsJson(stats, world.clock.now() - started));
  } else {
    ui.out(
      `Imported ${source} history from ${
        existing.join(", ")
      }: ${stats.files} files (${stats.skippedFiles} unchanged), ` +
        `${stats.sessions} new sessions, ${stats.messages} messages, ${stats.ledgerRows} usage rows` +
        (stats.updatedRows ? ` (${stats.updatedRows} updated)` : "") +
        `, ${stats.duplicates} duplicates dropped` +
        (stats.malformed ? `, ${stats.malformed} malformed lines skipped` : "") +
        (stats.unknownRecords ? `, ${stats.unknownRecords} records of unknown types skipped` : "") +
        (stats.unreadable ? `, ${stats.unreadable} unreadable files` : "") +
        (stats.forksWithoutParent
          ? `, ${stats.forksWithoutParent} forks without their parent (copied history skipped by timing)`
          : "") +
        (stats.legacyRollouts ? `, ${stats.legacyRollouts} legacy rollouts (no usage)` : "") +
        (legacySkipped(stats) ? `, ${legacySkipped(stats)}` : ""),
    );
  }
  return EXIT.OK;
}

/** A storage failure, saying that running the import again resumes it. */
function resumable(err: unknown): unknown {
  if (!isBonsaiError(err, ...STORAGE_FAILURE_CODES)) return err;
  return new BonsaiError(err.code, `${err.message} (the import resumes where it stopped)`, {
    data: err.data,
    cause: err,
  });
}

/** "2 legacy rollouts skipped (1 without messages, 1 without a start time)", or "". */
function legacySkipped(s: ImportStats): string {
  const n = s.legacyNoMessages + s.legacyNoTimestamp;
  if (n === 0) return "";
  const why = [
    s.legacyNoMessages ? `${s.legacyNoMessages} without messages` : "",
    s.legacyNoTimestamp ? `${s.legacyNoTimestamp} without a start time` : "",
  ].filter(Boolean).join(", ");
  return `${n} legacy rollouts skipped (${why})`;
}

function statsJson(s: ImportStats, durationMs: number) {
  return {
    files: s.files,
    skipped_files: s.skippedFiles,
    sessions: s.sessions,
    messages: s.messages,
    ledger_rows: s.ledgerRows,
    updated_rows: s.updatedRows,
    duplicates: s.duplicates,
    malformed: s.malformed,
    unknown_records: s.unknownRecords,
    unreadable: s.unreadable,
    forks_without_parent: s.forksWithoutParent,
    legacy_rollouts: s.legacyRollouts,
    skipped_legacy: { no_messages: s.legacyNoMessages, no_timestamp: s.legacyNoTimestamp },
    duration_ms: durationMs,
  };
}
