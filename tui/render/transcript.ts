import type { Message } from "../../core/storage/messages.ts";
import type { Style } from "./style.ts";
import { truncate } from "./width.ts";

/** One line per transcript entry, for `sessions show`. */
export function renderTranscriptLines(
  messages: readonly Message[],
  options: { style: Style; width: number },
): string[] {
  const { style, width } = options;
  return messages.map((m) => {
    const seq = style.dim(String(m.seq).padStart(4));
    const text = oneLine(m);
    const room = Math.max(10, width - 16);
    const body = truncate(text, room);
    return `${seq}  ${label(m, style)}  ${m.isError ? style.red(body) : body}`;
  });
}

function label(m: Message, style: Style): string {
  switch (m.kind) {
    case "tool_call":
      return style.cyan("tool     ");
    case "tool_result":
      return m.isError ? style.red("result   ") : style.green("result   ");
    case "permission":
      return style.yellow("permit   ");
    case "error":
      return style.red("error    ");
    case "thinking":
      return style.dim("thinking ");
    case "summary":
      return style.magenta("summary  ");
    case "notice":
      return style.dim("notice   ");
    default:
      return m.role === "user" ? style.bold("user     ") : style.blue(m.role.padEnd(9));
  }
}

function oneLine(m: Message): string {
  const base = m.kind === "tool_call" && m.toolName
    ? `${m.toolName} ${m.toolArgs ?? ""}`
    : m.text || m.toolResult || "";
  const status = m.status === "complete" ? "" : ` [${m.status}]`;
  return base.replace(/\s+/g, " ").trim() + status;
}
