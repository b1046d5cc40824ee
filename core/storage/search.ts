import type { Db, SqlValue } from "./db.ts";
import { type CompiledQuery, compileQuery, isSearchable } from "./search_query.ts";
import type { Role } from "./messages.ts";

/** One search result. */
export interface SearchHit {
  readonly messageId: number;
  readonly sessionId: string;
  readonly sessionTitle: string;
  readonly projectPath: string;
  readonly role: Role;
  readonly seq: number;
  /** A window of the message text around the match. */
  readonly snippet: string;
  /** [start, end) ranges in `snippet` to highlight, in UTF-16 code units. */
  readonly highlights: readonly (readonly [number, number])[];
  readonly createdAt: number;
  /** Relevance (negated bm25): higher is better. */
  readonly score: number;
}

/** Filters and limits for a search. */
export interface SearchOptions {
  /** Only messages of this project (canonical root). */
  readonly projectPath?: string;
  /** Only messages created at or after this time (epoch ms). */
  readonly since?: number;
  /** Only messages created before this time (epoch ms). */
  readonly until?: number;
  /** Only this session's messages. */
  readonly sessionId?: string;
  /** Leave out this session (recall skips the conversation it is part of). */
  readonly excludeSessionId?: string;
  /** Default 20. */
  readonly limit?: number;
  /** Most matches ranked; beyond it only the newest are (default RANK_WINDOW). */
  readonly rankWindow?: number;
}

/**
 * bm25 costs a document-size lookup per match: a word in most messages of a big history
 * would take seconds to rank. Past this many matches, the newest this many are ranked.
 */
export const RANK_WINDOW = 20_000;

const OPEN = "\u0001";
const CLOSE = "\u0002";
const SNIPPET_TOKENS = 16;
const CJK_WINDOW = 48;

interface Ranked {
  id: number;
  score: number;
}

interface HitRecord {
  id: number;
  session_id: string;
  seq: number;
  role: Role;
  created_at: number;
  title: string;
  root_path: string;
  text: string;
}

/** Full-text search over every message, best first (bm25). Never throws on user text. */
export function searchMessages(db: Db, query: string, options: SearchOptions = {}): SearchHit[] {
  const compiled = compileQuery(query);
  if (!isSearchable(compiled)) return [];
  const limit = Math.max(1, Math.min(1000, Math.floor(options.limit ?? 20)));
  return db.read(() => {
    const ranked = rank(db, compiled, options, limit);
    return ranked.map((r) => hydrate(db, compiled, r));
  });
}

function rank(db: Db, q: CompiledQuery, options: SearchOptions, limit: number): Ranked[] {
  // Rank on the word index when the query has words (its bm25 is the better signal),
  // otherwise on the CJK index; the other index, if needed, filters.
  const table = q.words !== null ? "messages_fts" : "messages_cjk";
  const params: SqlValue[] = [q.words ?? q.cjk!];
  const joins: string[] = [];
  const where = [`${table} MATCH ?`];
  if (q.words !== null && q.cjk !== null) {
    where.push("f.rowid IN (SELECT rowid FROM messages_cjk WHERE messages_cjk MATCH ?)");
    params.push(q.cjk);
  }
  const needMessage = options.since !== undefined || options.until !== undefined ||
    options.sessionId !== undefined || options.excludeSessionId !== undefined ||
    options.projectPath !== undefined;
  if (needMessage) joins.push("JOIN messages m ON m.id = f.rowid");
  if (options.projectPath !== undefined) {
    joins.push("JOIN sessions s ON s.id = m.session_id");
    where.push("s.project_id = (SELECT id FROM projects WHERE root_path = ?)");
    params.push(options.projectPath);
  }
  if (options.sessionId !== undefined) {
    where.push("m.session_id = ?");
    params.push(options.sessionId);
  }
  if (options.excludeSessionId !== undefined) {
    where.push("m.session_id <> ?");
    params.push(options.excludeSessionId);
  }
  if (options.since !== undefined) {
    where.push("m.created_at >= ?");
    params.push(options.since);
  }
  if (options.until !== undefined) {
    where.push("m.created_at < ?");
    params.push(options.until);
  }
  const from = `FROM ${table} f ${joins.join(" ")} WHERE ${where.join(" AND ")}`;
  // Counting and walking newest-first read only the index, never a document size.
  const window = Math.max(limit, Math.floor(options.rankWindow ?? RANK_WINDOW));
  const oldest = db.prepare(
    `SELECT f.rowid AS id ${from} ORDER BY f.rowid DESC LIMIT 1 OFFSET ${window}`,
  ).get(...params) as { id: number } | undefined;
  if (oldest !== undefined) {
    where.push("f.rowid > ?");
    params.push(BigInt(oldest.id)); // FTS5 ignores a REAL rowid bound
  }
  const sql = `SELECT f.rowid AS id, f.rank AS score FROM ${table} f ${joins.join(" ")}
    WHERE ${where.join(" AND ")} ORDER BY f.rank LIMIT ${limit}`;
  return db.prepare(sql).all(...params) as unknown as Ranked[];
}

function hydrate(db: Db, q: CompiledQuery, ranked: Ranked): SearchHit {
  const row = db.prepare(
    `SELECT m.id, m.session_id, m.seq, m.role, m.created_at, s.title, p.root_path,
       ${q.words !== null ? "''" : "m.text"} AS text
     FROM messages m JOIN sessions s ON s.id = m.session_id JOIN projects p ON p.id = s.project_id
     WHERE m.id = ?`,
  ).get(ranked.id) as unknown as HitRecord;
  let marked: string;
  if (q.words !== null) {
    const snip = db.prepare(
      `SELECT snippet(messages_fts, 0, '${OPEN}', '${CLOSE}', '…', ${SNIPPET_TOKENS}) AS s
       FROM messages_fts WHERE messages_fts MATCH ? AND rowid = ?`,
    ).get(q.words, BigInt(ranked.id)) as { s: string } | undefined; // FTS5 ignores a REAL rowid
    marked = markCjk(snip?.s ?? "", q.cjkTerms);
  } else {
    marked = markCjk(cjkWindow(row.text, q.cjkTerms), q.cjkTerms);
  }
  const { text, highlights } = unmark(marked);
  return {
    messageId: row.id,
    sessionId: row.session_id,
    sessionTitle: row.title,
    projectPath: row.root_path,
    role: row.role,
    seq: row.seq,
    snippet: text,
    highlights,
    createdAt: row.created_at,
    score: Number((-ranked.score).toPrecision(6)),
  };
}

/** A window of `text` around the first CJK term found. */
function cjkWindow(text: string, terms: readonly string[]): string {
  let at = -1;
  for (const term of terms) {
    const i = text.indexOf(term);
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  const flat = text.replace(/\s+/g, " ");
  if (at < 0) return flat.slice(0, CJK_WINDOW * 2);
  const start = Math.max(0, at - CJK_WINDOW);
  const end = Math.min(flat.length, at + CJK_WINDOW);
  return `${start > 0 ? "…" : ""}${flat.slice(start, end)}${end < flat.length ? "…" : ""}`;
}

/** Wraps occurrences of CJK terms (outside existing marks) in highlight markers. */
function markCjk(marked: string, terms: readonly string[]): string {
  let out = marked;
  for (const term of [...terms].sort((a, b) => b.length - a.length)) {
    out = out.split(term).join(`${OPEN}${term}${CLOSE}`);
  }
  return out;
}

/** Removes markers, returning the plain text and merged highlight ranges. */
function unmark(marked: string): { text: string; highlights: [number, number][] } {
  let text = "";
  let depth = 0;
  let start = 0;
  const ranges: [number, number][] = [];
  for (const ch of marked) {
    if (ch === OPEN) {
      if (depth++ === 0) start = text.length;
    } else if (ch === CLOSE) {
      if (depth > 0 && --depth === 0 && text.length > start) ranges.push([start, text.length]);
    } else {
      text += ch;
    }
  }
  const merged: [number, number][] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return { text, highlights: merged };
}
