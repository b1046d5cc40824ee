import type { StatusInfo } from "../../core/service/session_host.ts";
import { formatCompact, formatUsd } from "./format.ts";
import type { Style } from "./style.ts";
import { truncate } from "./width.ts";

/** One dim line: title · model · tokens · cost (· waiting peers). */
export function renderStatusLine(
  s: StatusInfo,
  options: { style: Style; width: number; ascii: boolean },
): string {
  const sep = options.ascii ? " | " : " · ";
  const parts = [
    s.model ?? "no model",
    `${formatCompact(s.tokens)} tokens`,
    formatUsd(s.costUsd, { floor: s.costFloor, ascii: options.ascii }),
    ...(s.waitingPeers > 0
      ? [`${s.waitingPeers} peer${s.waitingPeers > 1 ? "s" : ""} waiting`]
      : []),
  ];
  const tail = parts.join(sep);
  const room = Math.max(8, options.width - tail.length - sep.length - 1);
  return options.style.dim(`${truncate(s.title, room)}${sep}${tail}`);
}
