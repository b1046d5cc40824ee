import { isAbsolute, join } from "node:path";
import { BonsaiError } from "../errors.ts";
import type { Db } from "../storage/db.ts";
import type { Session } from "../storage/sessions.ts";
import { writeFileAtomic } from "./atomic_write.ts";
import { readExportDocument } from "./export_document.ts";
import { EXPORT_DIR, exportFileName } from "./file_name.ts";
import { renderMarkdown } from "./markdown.ts";

/** Where and how a session is exported. */
export interface ExportOptions {
  /** An absolute folder to write into instead of `<project_path>/对话` (created if needed). */
  readonly outDir?: string;
  /** False renders only and writes nothing (`path` is then null). Default true. */
  readonly write?: boolean;
  /** Keep every long tool output, argument and diff whole (default: start and end only). */
  readonly full?: boolean;
}

/** What an export produced. */
export interface SessionExport {
  /** The session as it was read for the export. */
  readonly session: Session;
  /** The file written, or null when only rendered. */
  readonly path: string | null;
  readonly markdown: string;
  /** Transcript entries rendered. */
  readonly messages: number;
  /** Size of the Markdown in UTF-8 bytes. */
  readonly bytes: number;
}

function isDirectory(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

/**
 * Renders a session from the database and, unless `write` is false, writes it atomically to
 * `<dir>/<YYYY-MM-DD>-<title>-<id8>.md`, dir being `outDir` or `<project_path>/对话`.
 * A workspace that no longer exists is a USAGE error and nothing is written; `tag` (the
 * process id) names the temporary file.
 */
export async function exportSession(
  db: Db,
  sessionId: string,
  options: ExportOptions & { readonly tag: string },
): Promise<SessionExport> {
  if (options.outDir !== undefined && !isAbsolute(options.outDir)) {
    throw new TypeError(`exportSession() needs an absolute outDir: ${options.outDir}`);
  }
  const doc = readExportDocument(db, sessionId);
  const session = doc.session;
  const markdown = renderMarkdown(doc, { full: options.full });
  const bytes = new TextEncoder().encode(markdown).length;
  const result = { session, markdown, messages: doc.messages.length, bytes };
  if (options.write === false) return { ...result, path: null };
  if (options.outDir === undefined && !isDirectory(session.projectPath)) {
    throw new BonsaiError(
      "USAGE",
      `Cannot export session '${session.id}': its workspace '${session.projectPath}' no longer exists (write elsewhere with --out DIR, or print it with --stdout)`,
      { data: { session_id: session.id, project_path: session.projectPath } },
    );
  }
  const dir = options.outDir ?? join(session.projectPath, EXPORT_DIR);
  const path = await writeFileAtomic(dir, exportFileName(session), markdown, options.tag);
  return { ...result, path };
}
