import { resolve } from "node:path";
import { z } from "zod";
import { openDb, parseOptions, uiFor } from "./context.ts";
import { EXIT } from "./exit_codes.ts";
import { sessionAdmin } from "./service.ts";
import type { World } from "./world.ts";

const ExportOptions = z.object({
  out: z.string().trim().min(1, "a folder is required").optional(),
  stdout: z.boolean().optional(),
  json: z.boolean().optional(),
  full: z.boolean().optional(),
}).refine((o) => !(o.out !== undefined && o.stdout), {
  message: "use either --out or --stdout, not both",
});

/**
 * `bonsai export <id> [--out DIR] [--stdout] [--full] [--json]` (X5): the session as Markdown
 * in `<project>/对话/`, or in DIR, or on stdout. `--json` prints `{path, messages, bytes}`;
 * with `--stdout` too, `path` is null and `markdown` holds the text.
 */
export async function exportMarkdown(world: World, id: string, raw: unknown): Promise<number> {
  const opts = parseOptions(ExportOptions, raw);
  const ui = uiFor(world);
  using db = await openDb(world);
  const result = await sessionAdmin(world, db).export(id, {
    outDir: opts.out === undefined ? undefined : resolve(world.cwd, opts.out),
    write: !opts.stdout,
    full: opts.full,
  });
  if (opts.json) {
    const summary = { path: result.path, messages: result.messages, bytes: result.bytes };
    ui.json(opts.stdout ? { ...summary, markdown: result.markdown } : summary);
  } else if (opts.stdout) {
    world.stdout.write(result.markdown);
  } else {
    ui.out(`Wrote ${result.path} (${result.messages} messages, ${result.bytes} bytes)`);
  }
  return EXIT.OK;
}
