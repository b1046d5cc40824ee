// Pieces of a transcript: a tool call collapsed to one line (expandable to its arguments,
// result and diff) and the usage of a turn.
import { h } from "./dom.js";
import { int, ms, usd } from "./format.js";

/** A tool call's arguments shortly, for its one line. */
export function toolArgs(json) {
  if (!json) return "";
  try {
    const v = JSON.parse(json);
    const text = typeof v === "object" && v !== null
      ? Object.entries(v).map(([k, x]) => `${k}=${typeof x === "string" ? x : JSON.stringify(x)}`)
        .join(" ")
      : String(v);
    return text.length > 120 ? `${text.slice(0, 119)}…` : text;
  } catch {
    return json.slice(0, 120);
  }
}

function pretty(json) {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json ?? "";
  }
}

/** A diff with its added and removed lines marked. */
function diffBlock(diff) {
  const code = h("code");
  for (const line of diff.split("\n")) {
    const cls = line.startsWith("+") && !line.startsWith("+++")
      ? "add"
      : line.startsWith("-") && !line.startsWith("---")
      ? "del"
      : line.startsWith("@@")
      ? "hunk"
      : "";
    code.appendChild(h("span", cls ? { class: cls } : {}, `${line}\n`));
  }
  return h("pre", { class: "diff", tabindex: "0", "aria-label": "diff" }, code);
}

/** A tool call as one line, open to its arguments, result and diff. */
export function toolBlock(call, result) {
  const status = call.tool?.status ?? (result ? (result.is_error ? "error" : "ok") : call.status);
  const failed = ["error", "denied", "cancelled", "timeout", "lost"].includes(status) ||
    result?.is_error;
  return h(
    "details",
    { class: `tool${failed ? " failed" : ""}` },
    h(
      "summary",
      {},
      h("span", { class: "tool-name" }, `⚙ ${call.tool_name ?? "tool"}`),
      " ",
      h("code", { class: "tool-args" }, toolArgs(call.tool_args)),
      h("span", { class: `tool-status ${failed ? "bad" : ""}` }, ` · ${status}`),
      call.tool?.duration_ms !== null && call.tool?.duration_ms !== undefined
        ? ` · ${ms(call.tool.duration_ms)}`
        : null,
    ),
    h("h3", {}, "Arguments"),
    h("pre", { tabindex: "0" }, pretty(call.tool_args)),
    result
      ? [
        h("h3", { id: `m${result.seq}` }, result.is_error ? "Result (error)" : "Result"),
        h("pre", { tabindex: "0" }, result.tool_result ?? result.text),
      ]
      : null,
    call.tool?.diff ? [h("h3", {}, "Diff"), diffBlock(call.tool.diff)] : null,
  );
}

/** The usage line of a turn (its messages' provider responses), or null when none. */
export function turnUsage(messages) {
  const rows = messages.filter((m) => m.usage).map((m) => m.usage);
  if (!rows.length) return null;
  const sum = (k) => rows.reduce((s, r) => s + (r[k] ?? 0), 0);
  const exact = rows.every((r) => r.cost_usd !== null);
  return h(
    "li",
    { class: "turn-usage" },
    h(
      "p",
      {},
      `Turn: ${int(sum("input_tokens"))} in · ${int(sum("output_tokens"))} out · `,
      `${int(sum("cache_read_tokens"))} cache read · ${
        int(sum("cache_write_tokens"))
      } cache write · `,
      usd(sum("cost_usd"), exact),
      ` · ${[...new Set(rows.map((r) => r.model))].join(", ")}`,
    ),
  );
}
