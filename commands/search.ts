import { z } from "zod";
import { BonsaiError } from "../core/errors.ts";
import { findProjectRoot } from "../core/project_root.ts";
import { compileQuery, isSearchable } from "../core/storage/search_query.ts";
import { type SearchHit, searchMessages } from "../core/storage/search.ts";
import { searchHitJson } from "../core/session/session_json.ts";
import { parseTimeBound } from "../core/time.ts";
import { formatDateTime } from "../tui/render/format.ts";
import type { Style } from "../tui/render/style.ts";
import { truncate } from "../tui/render/width.ts";
import { openDb, parseOptions, uiFor } from "./context.ts";
import { EXIT } from "./exit_codes.ts";
import type { World } from "./world.ts";

const SearchOptions = z.object({
  project: z.string().min(1).optional(),
  since: z.string().min(1).optional(),
  until: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(20),
  json: z.boolean().optional(),
});

/** `bonsai search <query...>`: full-text search over every session's messages. */
export async function search(
  world: World,
  words: readonly string[],
  raw: unknown,
): Promise<number> {
  const opts = parseOptions(SearchOptions, raw);
  const query = words.join(" ");
  if (query.trim() === "") throw new BonsaiError("USAGE", "Give something to search for");
  const ui = uiFor(world);
  const now = world.clock.now();
  const since = opts.since ? parseTimeBound(opts.since, now, ui.timeZone) : undefined;
  const until = opts.until ? parseTimeBound(opts.until, now, ui.timeZone) : undefined;
  using db = await openDb(world);
  const hits = searchMessages(db, query, {
    projectPath: opts.project ? findProjectRoot(opts.project) : undefined,
    since,
    until,
    limit: opts.limit,
  });
  if (opts.json) {
    ui.json(hits.map(searchHitJson));
    return EXIT.OK;
  }
  if (hits.length === 0) {
    const searchable = isSearchable(compileQuery(query));
    ui.err(searchable ? "No matches" : "Nothing to search for: the query has no letters or digits");
    return EXIT.OK;
  }
  const { style } = ui;
  for (const hit of hits) {
    const head = [
      style.bold(truncate(hit.sessionTitle, 48)),
      hit.role,
      formatDateTime(hit.createdAt, ui.timeZone),
      style.cyan(hit.sessionId.slice(0, 10)),
    ].join(style.dim(" · "));
    ui.out(`${head}\n  ${highlight(hit, style)}\n`);
  }
  return EXIT.OK;
}

/** The snippet with matches in bold yellow, or between asterisks without colour. */
function highlight(hit: SearchHit, style: Style): string {
  let out = "";
  let at = 0;
  for (const [start, end] of hit.highlights) {
    out += hit.snippet.slice(at, start);
    const word = hit.snippet.slice(start, end);
    out += style.enabled ? style.bold(style.yellow(word)) : `*${word}*`;
    at = end;
  }
  return (out + hit.snippet.slice(at)).replace(/\s+/g, " ");
}
