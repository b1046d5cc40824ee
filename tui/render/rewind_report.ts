import type { ExecCall, RewindPreview, RewindResult } from "../../core/service/rewind.ts";
import type { Style } from "./style.ts";

/** Longest piece of a prompt or command quoted in one line. */
const QUOTE_CHARS = 60;

/** One line of text, cut to `max` characters. */
export function clip(text: string, max = QUOTE_CHARS): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** The question asked before a rewind. */
export function rewindQuestion(p: RewindPreview, files: boolean): string {
  const reverted = p.files?.restores.length ?? 0;
  const filePart = files ? `; ${reverted} file${reverted === 1 ? "" : "s"} will be reverted` : "";
  return `Rewind '${p.session.title}' to before prompt #${p.point.seq} ("${
    clip(p.point.text, 40)
  }")? ${p.movedMessages} message${
    p.movedMessages === 1 ? "" : "s"
  } move to a new linked session${filePart}`;
}

/** Warnings a person should read before and after a rewind (exec calls, files left alone). */
export function rewindWarnings(
  p: { execCalls: readonly ExecCall[]; changedFiles: readonly string[] },
  files: boolean,
): string[] {
  const out: string[] = [];
  if (p.execCalls.length > 0) {
    const n = p.execCalls.length;
    const shown = p.execCalls.slice(0, 5).map((c) => clip(c.command)).join("; ");
    out.push(
      `warning: what ${n} exec call${
        n === 1 ? "" : "s"
      } in the rewound part did cannot be undone: ${shown}${n > 5 ? "; ..." : ""}`,
    );
  }
  if (!files && p.changedFiles.length > 0) {
    out.push(
      `note: files changed in the rewound part are left as they are (${
        p.changedFiles.slice(0, 5).join(", ")
      }${p.changedFiles.length > 5 ? ", ..." : ""}); --files reverts write and edit changes`,
    );
  }
  return out;
}

/** What a rewind did, in lines for people (with the warnings unless `warnings` is false). */
export function rewindLines(
  r: RewindResult,
  style: Style,
  options: { warnings?: boolean } = {},
): string[] {
  const short = r.linked.id.slice(0, 10);
  const lines = [
    `Rewound '${r.session.title}' (${r.session.id}) to before prompt #${r.point.seq}: ${r.keptMessages} messages kept, ${r.movedMessages} moved.`,
    `The rewound part is kept in session ${
      style.cyan(short)
    } '${r.linked.title}'; to undo, continue it: bonsai -c ${short}`,
  ];
  const f = r.files;
  if (f) {
    if (f.reverted.length > 0) {
      lines.push(
        `Reverted ${f.reverted.length} file${f.reverted.length === 1 ? "" : "s"}: ${
          f.reverted.map((x) => `${x.path} (${x.action})`).join(", ")
        }`,
      );
    } else if (f.failed.length === 0) lines.push("No file needed reverting.");
    if (f.changedSince.length > 0) {
      lines.push(`Written over (they had changed since): ${f.changedSince.join(", ")}`);
    }
    for (const u of f.unrevertable) {
      lines.push(style.yellow(`Not reverted: ${u.path}: ${u.reason}`));
    }
    for (const u of f.failed) lines.push(style.red(`Could not revert ${u.path}: ${u.reason}`));
  }
  if (options.warnings !== false) {
    for (const w of rewindWarnings(r, f !== null)) lines.push(style.yellow(w));
  }
  lines.push(style.dim(`Your prompt was: ${clip(r.point.text, 200)}`));
  return lines;
}
