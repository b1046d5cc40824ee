// Server-sent events (https://html.spec.whatwg.org/multipage/server-sent-events.html):
// lines `field: value`, `\n`, `\r\n` or `\r` endings, `:` comments, several `data:` lines
// joined with `\n`, an empty line dispatching the event.

/** One dispatched event. `event` is "message" when the server named none. */
export interface SseEvent {
  readonly event: string;
  readonly data: string;
  readonly id: string | null;
}

/** Parses a byte stream into events. The last event is dispatched even without a blank line. */
export async function* parseSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  let event = "";
  let data: string[] = [];
  let id: string | null = null;
  let sawField = false;
  const dispatch = (): SseEvent | null => {
    const out = sawField && data.length > 0
      ? { event: event || "message", data: data.join("\n"), id }
      : null;
    event = "";
    data = [];
    sawField = false;
    return out;
  };
  const feed = function* (line: string): Generator<SseEvent> {
    if (line === "") {
      const e = dispatch();
      if (e) yield e;
      return;
    }
    if (line.startsWith(":")) return; // comment (keep-alive)
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    sawField = true;
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
    else if (field === "id") id = value;
  };
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let start = 0;
      for (let i = 0; i < buffer.length; i++) {
        const c = buffer[i];
        if (c !== "\n" && c !== "\r") continue;
        // A trailing \r may be the first half of \r\n: wait for more input.
        if (c === "\r" && i === buffer.length - 1) break;
        yield* feed(buffer.slice(start, i));
        if (c === "\r" && buffer[i + 1] === "\n") i++;
        start = i + 1;
      }
      buffer = buffer.slice(start);
    }
    buffer += decoder.decode();
    if (buffer !== "") yield* feed(buffer.replace(/\r$/, ""));
    const last = dispatch();
    if (last) yield last;
  } finally {
    reader.releaseLock();
  }
}
