import { z } from "zod";
import { refuseRewind } from "../core/service/rewind.ts";
import { rewindJson } from "../core/service/rewind_json.ts";
import { rewindLines, rewindQuestion, rewindWarnings } from "../tui/render/rewind_report.ts";
import { confirmOrRefuse, openDb, parseOptions, uiFor } from "./context.ts";
import { EXIT } from "./exit_codes.ts";
import { sessionAdmin } from "./service.ts";
import type { World } from "./world.ts";

const RewindOptions = z.object({
  to: z.coerce.number({ invalid_type_error: "expected the seq of a prompt" }).int().positive(),
  files: z.boolean().optional(),
  force: z.boolean().optional(),
  yes: z.boolean().optional(),
  json: z.boolean().optional(),
});

/**
 * `bonsai sessions rewind <id> --to <seq> [--files] [--force] [--yes] [--json]`: rolls the
 * session back to before its prompt at <seq>; the rest moves to a new linked session.
 */
export async function rewindSession(world: World, id: string, raw: unknown): Promise<number> {
  const opts = parseOptions(RewindOptions, raw);
  const ui = uiFor(world);
  using db = await openDb(world);
  const admin = sessionAdmin(world, db);
  const options = { to: opts.to, files: opts.files ?? false, force: opts.force ?? false };
  const preview = await admin.previewRewind(id, options);
  refuseRewind(preview, options);
  if (!opts.json) { for (const w of rewindWarnings(preview, options.files)) ui.err(w); }
  if (!(await confirmOrRefuse(world, rewindQuestion(preview, options.files), opts.yes ?? false))) {
    ui.err("Nothing changed");
    return EXIT.CANCELLED;
  }
  const result = await admin.rewind(preview, options);
  if (opts.json) {
    ui.json(rewindJson(result));
  } else {
    // The warnings were shown before the question.
    ui.err(rewindLines(result, ui.style, { warnings: false }).join("\n"));
  }
  return result.files && result.files.failed.length > 0 ? EXIT.FAILURE : EXIT.OK;
}
