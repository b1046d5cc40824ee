import { cjkRunQuery, cjkRuns } from "./cjk.ts";

/**
 * A user query compiled to FTS5 MATCH expressions. Every user term is quoted, so no input
 * (quotes, `*`, `-`, `NEAR(`, `AND`, `OR`, column filters) can reach FTS5 as syntax.
 */
export interface CompiledQuery {
  /** For the word index, or null when the query has no such terms. */
  readonly words: string | null;
  /** For the CJK bigram index, or null. */
  readonly cjk: string | null;
  /** The searchable pieces, for highlighting text the index does not mark (CJK). */
  readonly cjkTerms: readonly string[];
}

// Characters unicode61 keeps inside tokens (its default categories L*, N*, Co).
const TOKEN_CHAR = /[\p{L}\p{N}\p{Co}]/u;
const CJK_RUN_SPLIT =
  /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30fc\u3005]+)/u;

interface RawTerm {
  text: string;
  prefix: boolean;
}

/**
 * Compiles the query language: words (all must match), "quoted phrases", `prefix*`.
 * Returns null fields when nothing searchable remains (only punctuation or emoji).
 */
export function compileQuery(input: string): CompiledQuery {
  const words: string[] = [];
  const cjk: string[] = [];
  const cjkTerms: string[] = [];
  const seen = new Set<string>();
  for (const term of splitTerms(input)) {
    const key = `${term.text}\u0000${term.prefix}`;
    if (seen.has(key)) continue;
    seen.add(key);
    // A term may mix scripts ("API接口"): its CJK runs go to the bigram index, the rest to words.
    const pieces = term.text.split(CJK_RUN_SPLIT).filter((p) => p !== "");
    pieces.forEach((piece, i) => {
      const last = i === pieces.length - 1;
      if (cjkRuns(piece).join("") === piece) {
        cjk.push(cjkRunQuery(piece));
        cjkTerms.push(piece);
      } else if (TOKEN_CHAR.test(piece)) {
        words.push(`"${piece.replaceAll('"', '""')}"${term.prefix && last ? "*" : ""}`);
      }
    });
  }
  return {
    words: words.length ? words.join(" AND ") : null,
    cjk: cjk.length ? cjk.join(" AND ") : null,
    cjkTerms,
  };
}

/** True when the compiled query can match anything at all. */
export function isSearchable(query: CompiledQuery): boolean {
  return query.words !== null || query.cjk !== null;
}

function splitTerms(input: string): RawTerm[] {
  const out: RawTerm[] = [];
  let i = 0;
  const n = input.length;
  while (i < n) {
    const ch = input[i]!;
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === '"') {
      const end = input.indexOf('"', i + 1);
      const stop = end < 0 ? n : end;
      const text = input.slice(i + 1, stop);
      const prefix = end >= 0 && input[end + 1] === "*";
      if (text.trim()) out.push({ text: text.trim(), prefix });
      i = stop + 1 + (prefix ? 1 : 0);
    } else {
      let j = i;
      while (j < n && !/\s/.test(input[j]!) && input[j] !== '"') j++;
      const word = input.slice(i, j);
      const prefix = word.length > 1 && word.endsWith("*");
      const text = word.replace(/\*+$/, "");
      if (text) out.push({ text, prefix });
      i = j;
    }
  }
  return out;
}
