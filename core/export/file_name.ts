/** The folder, under the session's workspace, that exports go to (X5). */
export const EXPORT_DIR = "对话";

/** Most UTF-8 bytes of the title part of a file name (the whole name stays under ~130). */
export const MAX_TITLE_BYTES = 100;

/** The title part used when nothing of the title survives. */
const UNTITLED = "untitled";

// Separators and characters Windows forbids, controls, format characters (bidi overrides,
// zero-width space; the joiners that build emoji and some scripts' words are kept), line and
// paragraph separators, lone surrogates, the replacement character.
const UNSAFE = /[<>:"/\\|?*\p{Cc}\p{Zl}\p{Zp}\p{Cs}\ufffd]|(?![\u200c\u200d])\p{Cf}/gu;

/** Windows device names, unusable as a file's name before its first dot on any drive. */
const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)(\.|$)/i;

const encoder = new TextEncoder();
const segmenter = new Intl.Segmenter("en", { granularity: "grapheme" });

/**
 * A title made safe as a file name on Linux, macOS and Windows: no separators, controls or
 * reserved characters (each run becomes one `-`), whitespace as `-`, no leading or trailing
 * dots, dashes or spaces, no Windows device name, at most `MAX_TITLE_BYTES` UTF-8 bytes
 * (cut between whole characters), CJK and other letters kept. Empty becomes "untitled".
 */
export function safeTitle(title: string): string {
  let name = title.normalize("NFC")
    .replace(UNSAFE, "-")
    .replace(/[\s\u3000]+/gu, "-")
    .replace(/-{2,}/g, "-");
  name = trimEnds(name);
  if (encoder.encode(name).length > MAX_TITLE_BYTES) name = trimEnds(cutBytes(name));
  if (name === "") return UNTITLED;
  return name.replace(RESERVED, "$1_$2");
}

/** Without leading or trailing dots, dashes or spaces (Windows drops trailing dots). */
function trimEnds(name: string): string {
  return name.replace(/^[.\- ]+|[.\- ]+$/g, "");
}

/** The longest run of whole characters (graphemes) of `name` within MAX_TITLE_BYTES. */
function cutBytes(name: string): string {
  let out = "";
  let used = 0;
  for (const { segment } of segmenter.segment(name)) {
    const size = encoder.encode(segment).length;
    if (used + size > MAX_TITLE_BYTES) break;
    out += segment;
    used += size;
  }
  return out;
}

/** The UTC date `YYYY-MM-DD` of an epoch time. */
function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * The file name of a session's export: `<YYYY-MM-DD>-<title>-<first 8 of id>.md`, the date
 * its creation day in UTC. Stable: the same session (and title) always gives the same name.
 */
export function exportFileName(
  session: { readonly id: string; readonly title: string; readonly createdAt: number },
): string {
  return `${utcDate(session.createdAt)}-${safeTitle(session.title)}-${session.id.slice(0, 8)}.md`;
}
