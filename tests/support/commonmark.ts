// The CommonMark reference parser, for checking that exports read as intended.
import { Parser } from "commonmark";

/** A node of a parsed Markdown document, flattened in document order. */
export interface MdNode {
  readonly type: string;
  readonly literal: string | null;
  readonly level: number | null;
  readonly info: string | null;
}

/** Every node of `markdown`, in order (entering events only). */
export function mdNodes(markdown: string): MdNode[] {
  const walker = new Parser().parse(markdown).walker();
  const out: MdNode[] = [];
  let event;
  while ((event = walker.next())) {
    if (!event.entering) continue;
    const n = event.node;
    out.push({
      type: n.type,
      literal: n.literal ?? null,
      level: n.type === "heading" ? n.level : null,
      info: n.type === "code_block" ? n.info ?? null : null,
    });
  }
  return out;
}

/** The raw HTML the document holds (blocks and inline). */
export function mdHtml(markdown: string): string[] {
  return mdNodes(markdown)
    .filter((n) => n.type === "html_block" || n.type === "html_inline")
    .map((n) => n.literal!.trim());
}

/** The plain text of a document: its text nodes and code spans, joined. */
export function mdText(markdown: string): string {
  return mdNodes(markdown)
    .filter((n) => n.type === "text" || n.type === "code")
    .map((n) => n.literal)
    .join("");
}
