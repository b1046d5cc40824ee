import type { PeerInfo } from "../../core/peers/peers.ts";
import type { Claim } from "../../core/storage/claims.ts";
import { formatDateTime } from "./format.ts";
import type { Style } from "./style.ts";
import { renderTable } from "./table.ts";

/** Live peers as a table: id, title, process, model, what they are doing, claims, last heartbeat. */
export function renderPeers(
  peers: readonly PeerInfo[],
  options: { style: Style; width: number; ascii: boolean; now: number; timeZone: string },
): string {
  if (peers.length === 0) {
    return options.style.dim("No other live bonsai session in this project.\n");
  }
  return renderTable(
    [
      { header: "ID", paint: (t) => options.style.cyan(t) },
      { header: "TITLE", shrink: true, min: 10 },
      { header: "PID" },
      { header: "MODEL", drop: 2 },
      { header: "DOING", shrink: true, min: 10 },
      { header: "CLAIMS", shrink: true, min: 6, drop: 1 },
      { header: "BEAT", drop: 3 },
    ],
    peers.map((p) => [
      p.sessionId.slice(0, 10),
      p.title,
      p.pid === null ? "?" : String(p.pid),
      p.model ?? "-",
      p.waitingForLease ? "waiting for the write lease" : p.activity ?? "idle",
      p.claims.map((c) => c.pathGlob).join(", ") || "-",
      p.heartbeatAt === null
        ? "-"
        : `${Math.max(0, Math.round((options.now - p.heartbeatAt) / 1000))}s ago`,
    ]),
    { width: options.width, style: options.style, ascii: options.ascii },
  );
}

/** The project's claims as a table. */
export function renderClaims(
  claims: readonly Claim[],
  options: { style: Style; width: number; ascii: boolean; now: number; timeZone: string },
): string {
  if (claims.length === 0) return options.style.dim("No claims in this project.\n");
  return renderTable(
    [
      { header: "PATH", paint: (t) => options.style.cyan(t) },
      { header: "SESSION" },
      { header: "TITLE", shrink: true, min: 10 },
      { header: "NOTE", shrink: true, min: 10 },
      { header: "UNTIL", drop: 1 },
    ],
    claims.map((c) => [
      c.pathGlob,
      c.sessionId.slice(0, 10),
      c.title,
      c.note ?? "-",
      c.expiresAt === null ? "-" : formatDateTime(c.expiresAt, options.timeZone),
    ]),
    { width: options.width, style: options.style, ascii: options.ascii },
  );
}
