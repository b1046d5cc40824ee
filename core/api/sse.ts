import type { Timers } from "../session/persister.ts";

/** A comment line every this often keeps proxies and clients from timing the stream out. */
export const SSE_KEEPALIVE_MS = 15_000;

/** One event for the stream: its name and its JSON data. */
export interface SseEvent {
  readonly event: string;
  readonly data: unknown;
}

/**
 * A Server-Sent Events response. `subscribe` is called with a sender once the client is
 * connected and returns its unsubscribe; the stream ends when the client goes away, when
 * `signal` aborts (the server stops), or when the sender is told `end`.
 */
export function sseResponse(
  subscribe: (send: (e: SseEvent, end?: boolean) => void) => () => void,
  options: { signal: AbortSignal; timers: Timers },
): Response {
  const encoder = new TextEncoder();
  let stop = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let id = 0;
      let open = true;
      let unsubscribe = () => {};
      const close = () => {
        if (!open) return;
        open = false;
        options.timers.clearInterval(keepalive);
        options.signal.removeEventListener("abort", close);
        unsubscribe();
        try {
          controller.close();
        } catch {
          // Already closed by the client going away: nothing more to do.
        }
      };
      const write = (text: string) => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          close(); // the client went away between two events
        }
      };
      const keepalive = options.timers.setInterval(
        () => write(": keepalive\n\n"),
        SSE_KEEPALIVE_MS,
      );
      options.signal.addEventListener("abort", close);
      stop = close;
      write(": connected\n\n");
      const off = subscribe((e, end) => {
        id++;
        write(`id: ${id}\nevent: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`);
        if (end) close();
      });
      // Ended while subscribing (a replayed event closed it): unsubscribe at once.
      if (open) unsubscribe = off;
      else off();
      if (options.signal.aborted) close();
    },
    cancel() {
      stop();
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      "x-accel-buffering": "no",
    },
  });
}
