import { z } from "zod";
import { findProjectRoot } from "../core/project_root.ts";
import { sessionJson } from "../core/session/session_json.ts";
import {
  formatAge,
  formatCompact,
  formatDateTime,
  formatDuration,
  formatUsd,
} from "../tui/render/format.ts";
import { renderTable } from "../tui/render/table.ts";
import { renderTranscriptLines } from "../tui/render/transcript.ts";
import { confirmOrRefuse, openDb, parseOptions, type Ui, uiFor } from "./context.ts";
import { EXIT } from "./exit_codes.ts";
import { sessionAdmin } from "./service.ts";
import type { World } from "./world.ts";

const ListOptions = z.object({
  project: z.string().min(1).optional(),
  all: z.boolean().optional(),
  json: z.boolean().optional(),
  limit: z.coerce.number().int().positive().optional(),
}).refine((o) => !(o.all && o.project), { message: "use either --project or --all, not both" });

/** `bonsai sessions [--project PATH | --all] [--json]`. */
export async function listSessions(world: World, raw: unknown): Promise<number> {
  const opts = parseOptions(ListOptions, raw);
  const ui = uiFor(world);
  using db = await openDb(world);
  const admin = sessionAdmin(world, db);
  const projectPath = opts.all ? undefined : findProjectRoot(opts.project ?? world.cwd);
  const sessions = admin.list({ projectPath, limit: opts.limit });
  if (opts.json) {
    ui.json(sessions.map(sessionJson));
    return EXIT.OK;
  }
  if (sessions.length === 0) {
    ui.err(
      projectPath
        ? `No sessions for '${projectPath}' (--all lists every project)`
        : "No sessions yet",
    );
    return EXIT.OK;
  }
  const short = admin.shortIds(sessions.map((s) => s.id));
  const now = world.clock.now();
  const pin = ui.ascii ? "*" : "★";
  const rows = sessions.map((s) => [
    short.get(s.id)!,
    `${s.pinned ? `${pin} ` : ""}${s.title}`,
    s.status,
    ...(projectPath ? [] : [s.projectPath]),
    formatDateTime(s.createdAt, ui.timeZone),
    formatAge(s.contentUpdatedAt, now, ui.timeZone),
    String(s.messageCount),
    formatCompact(s.totalTokens),
  ]);
  const { style } = ui;
  ui.out(renderTable(
    [
      { header: "ID", paint: (t) => style.cyan(t) },
      { header: "TITLE", shrink: true, min: 12 },
      { header: "STATUS", paint: (t) => statusColor(ui, t) },
      ...(projectPath ? [] : [{ header: "PROJECT", shrink: true, min: 12 }]),
      { header: "CREATED", drop: 1 },
      { header: "UPDATED", drop: 4 },
      { header: "MSGS", align: "right" as const, drop: 3 },
      { header: "TOKENS", align: "right" as const, drop: 2 },
    ],
    rows,
    { width: ui.width, style, ascii: ui.ascii },
  ));
  return EXIT.OK;
}

const ShowOptions = z.object({
  json: z.boolean().optional(),
  all: z.boolean().optional(),
});

/** Messages `sessions show` prints for people unless --all. */
const SHOW_TAIL = 40;

/** `bonsai sessions show <id>`. */
export async function showSession(world: World, id: string, raw: unknown): Promise<number> {
  const opts = parseOptions(ShowOptions, raw);
  const ui = uiFor(world);
  using db = await openDb(world);
  const admin = sessionAdmin(world, db);
  const session = admin.resolve(id);
  const detail = admin.detail(session);
  if (opts.json) {
    ui.json(detail.json);
    return EXIT.OK;
  }
  const { style } = ui;
  const field = (name: string, value: string) => `${style.dim(name.padEnd(10))} ${value}`;
  const cost =
    formatUsd(session.costUsd, { floor: session.unpricedAttempts > 0, ascii: ui.ascii }) +
    (session.unpricedAttempts > 0 ? ` (${session.unpricedAttempts} unpriced turns)` : "");
  const lines = [
    style.bold(session.title),
    field("id", session.id),
    field(
      "status",
      session.endReason ? `${session.status} (${session.endReason})` : session.status,
    ),
    field("project", session.projectPath),
    field("model", [session.provider, session.model].filter(Boolean).join(" / ") || "-"),
    field("created", formatDateTime(session.createdAt, ui.timeZone)),
    field("updated", formatDateTime(session.contentUpdatedAt, ui.timeZone)),
    field("active", formatDuration(session.activeMs)),
    field("usage", `${session.turns} turns, ${formatCompact(session.totalTokens)} tokens, ${cost}`),
    field("messages", String(session.messageCount)),
  ];
  for (const e of detail.episodes) {
    const summary = e.summary ? style.dim(` — ${e.summary}`) : "";
    lines.push(
      field("episode", `#${e.ordinal} ${e.title ?? "(untitled)"} [${e.boundary}]${summary}`),
    );
  }
  for (const c of detail.compactions) {
    lines.push(
      field(
        "compacted",
        `context items ${c.fromSeq}-${c.toSeq} (${c.method}): ${c.tokensBefore} → ${c.tokensAfter} tokens`,
      ),
    );
  }
  for (const v of detail.verification) {
    if (v.kind === "verify") {
      const ok = v.exitCode === 0;
      lines.push(
        field(
          "verify",
          `${v.command} → ${
            ok ? style.green("passed") : style.red(`failed (exit ${v.exitCode ?? "timeout"})`)
          }`,
        ),
      );
    } else {
      const count = v.findings ? (JSON.parse(v.findings) as unknown[]).length : 0;
      lines.push(field("review", `${count} finding${count === 1 ? "" : "s"}`));
    }
  }
  for (const a of detail.subagents) {
    lines.push(
      field(
        "subagent",
        `${style.cyan(a.id.slice(0, 10))} ${a.title} ${
          style.dim(`(${a.status}, ${a.model ?? "-"}, ${a.messageCount} messages)`)
        }`,
      ),
    );
  }
  ui.out(lines.join("\n"));
  const all = opts.all || session.messageCount <= SHOW_TAIL;
  const shown = admin.transcript(session, all ? undefined : SHOW_TAIL);
  if (shown.length > 0) {
    ui.out("");
    if (!all) {
      ui.out(
        style.dim(
          `(last ${shown.length} of ${session.messageCount} messages; --all shows every one)`,
        ),
      );
    }
    ui.out(renderTranscriptLines(shown, { style, width: ui.width }).join("\n"));
  }
  return EXIT.OK;
}

const TitleArg = z.string().trim().min(1, "a title cannot be empty").max(
  200,
  "a title is at most 200 characters",
);

/** `bonsai sessions rename <id> <title>`. */
export async function renameSession(world: World, id: string, title: string): Promise<number> {
  const clean = parseOptions(TitleArg, title);
  using db = await openDb(world);
  const session = sessionAdmin(world, db).rename(id, clean);
  uiFor(world).err(`Renamed ${session.id} to '${session.title}'`);
  return EXIT.OK;
}

/** `bonsai sessions pin|unpin <id>`. */
export async function pinSession(world: World, id: string, pinned: boolean): Promise<number> {
  using db = await openDb(world);
  const session = sessionAdmin(world, db).setPinned(id, pinned);
  uiFor(world).err(`${pinned ? "Pinned" : "Unpinned"} ${session.id} '${session.title}'`);
  return EXIT.OK;
}

const ForgetOptions = z.object({ yes: z.boolean().optional() });

/** `bonsai sessions forget <id> [--yes]`: deletes the session and everything hanging off it. */
export async function forgetSession(world: World, id: string, raw: unknown): Promise<number> {
  const opts = parseOptions(ForgetOptions, raw);
  using db = await openDb(world);
  const admin = sessionAdmin(world, db);
  const session = admin.forgettable(id);
  const question =
    `Delete session ${session.id} '${session.title}' and its ${session.messageCount} messages for good?`;
  if (!(await confirmOrRefuse(world, question, opts.yes ?? false))) {
    uiFor(world).err("Nothing deleted");
    return EXIT.CANCELLED;
  }
  admin.forget(session);
  uiFor(world).err(`Forgot ${session.id} '${session.title}'`);
  return EXIT.OK;
}

function statusColor(ui: Ui, status: string): string {
  const { style } = ui;
  if (status.startsWith("active")) return style.green(status);
  if (status.startsWith("failed") || status.startsWith("interrupted")) return style.red(status);
  if (status.startsWith("budget")) return style.yellow(status);
  return style.dim(status);
}

export { rewindSession } from "./sessions_rewind.ts";
