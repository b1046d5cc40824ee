/** How much of a long block an export keeps: its start and its end. */
export interface ClipLimits {
  /** Lines kept from the start. */
  readonly headLines: number;
  /** Lines kept from the end (where test failures and errors usually are). */
  readonly tailLines: number;
  /** Characters kept from the start at most (long lines). */
  readonly headChars: number;
  /** Characters kept from the end at most. */
  readonly tailChars: number;
}

/** The defaults: a block up to 200 lines and 20,000 characters is kept whole. */
export const DEFAULT_CLIP: ClipLimits = {
  headLines: 150,
  tailLines: 50,
  headChars: 15_000,
  tailChars: 5_000,
};

/** A block cut in two, or kept whole (`tail` null). */
export interface Clipped {
  readonly head: string;
  readonly tail: string | null;
  /** What was left out between head and tail. */
  readonly omittedLines: number;
  readonly omittedBytes: number;
}

const bytes = (s: string) => new TextEncoder().encode(s).length;

/**
 * Keeps the start and end of a long block at line boundaries where it can (inside a very long
 * line otherwise, never splitting a character). Deterministic: same text, same cut.
 */
export function clip(text: string, limits: ClipLimits = DEFAULT_CLIP): Clipped {
  const lines = text.split("\n");
  if (
    lines.length <= limits.headLines + limits.tailLines &&
    text.length <= limits.headChars + limits.tailChars
  ) {
    return { head: text, tail: null, omittedLines: 0, omittedBytes: 0 };
  }
  const headEnd = cutForward(text, limits.headLines, limits.headChars);
  const tailStart = Math.max(headEnd, cutBackward(text, limits.tailLines, limits.tailChars));
  const middle = text.slice(headEnd, tailStart);
  return {
    head: text.slice(0, headEnd),
    tail: text.slice(tailStart),
    omittedLines: middle === "" ? 0 : middle.split("\n").length - (middle.endsWith("\n") ? 1 : 0),
    omittedBytes: bytes(middle),
  };
}

/** The end of the first `lines` lines (newline included), within `chars` characters. */
function cutForward(text: string, lines: number, chars: number): number {
  let at = 0;
  for (let n = 0; n < lines; n++) {
    const nl = text.indexOf("\n", at);
    const next = nl < 0 ? text.length : nl + 1;
    if (next > chars) break;
    at = next;
  }
  return at > 0 ? at : safeCut(text, Math.min(chars, text.length));
}

/** The start of the last `lines` lines, within `chars` characters of the end. */
function cutBackward(text: string, lines: number, chars: number): number {
  // A trailing newline ends the last line; it does not start an empty one.
  let at = text.endsWith("\n") ? text.length - 1 : text.length;
  const limit = text.length - chars;
  let kept = text.length;
  for (let n = 0; n < lines; n++) {
    const nl = text.lastIndexOf("\n", at - 1);
    const start = nl < 0 ? 0 : nl + 1;
    if (start < limit) break;
    kept = start;
    if (nl < 0) break;
    at = nl;
  }
  return kept < text.length ? kept : safeCut(text, Math.max(0, limit));
}

/** `at`, moved back off the low half of a surrogate pair. */
function safeCut(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return at > 0 && code >= 0xdc00 && code <= 0xdfff ? at - 1 : at;
}
