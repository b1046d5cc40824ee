// Display width of terminal text: ANSI escapes take no room, East Asian wide and emoji
// characters take two columns, combining marks none.

// deno-lint-ignore no-control-regex -- ANSI escapes start with ESC by definition
const ANSI = /\x1b\[[0-9;]*m/g;
const ZERO_WIDTH = /[\p{Mn}\p{Me}\p{Cf}\u200b]/u;
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u;

/** Text without ANSI escape sequences. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, "");
}

/** Columns one character occupies. */
export function charWidth(ch: string): number {
  const cp = ch.codePointAt(0)!;
  if (cp < 32 || (cp >= 0x7f && cp < 0xa0)) return 0;
  if (cp < 0x300) return 1;
  if (ZERO_WIDTH.test(ch)) return 0;
  return WIDE.test(ch) ? 2 : 1;
}

/** Printable ASCII only: one column per character. */
const PLAIN = /^[\x20-\x7e]*$/;

/** Columns the text occupies on a terminal. */
export function displayWidth(text: string): number {
  if (PLAIN.test(text)) return text.length;
  let width = 0;
  for (const ch of stripAnsi(text)) width += charWidth(ch);
  return width;
}

/** Cuts plain text (no ANSI) to at most `width` columns, ending with an ellipsis when cut. */
export function truncate(text: string, width: number, ellipsis = "…"): string {
  if (width <= 0) return "";
  if (displayWidth(text) <= width) return text;
  const room = width - displayWidth(ellipsis);
  let out = "";
  let used = 0;
  for (const ch of text) {
    const w = charWidth(ch);
    if (used + w > room) break;
    out += ch;
    used += w;
  }
  return out + ellipsis;
}

/** Pads text (may contain ANSI) with spaces to `width` columns. */
export function pad(text: string, width: number, align: "left" | "right" = "left"): string {
  const fill = " ".repeat(Math.max(0, width - displayWidth(text)));
  return align === "right" ? fill + text : text + fill;
}
