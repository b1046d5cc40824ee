// A real `bonsai serve` process on a free loopback port, and a small client for its API.
import { spawnBonsai } from "./bonsai_process.ts";

/** A running server: its URL, and a stop that signals it and waits for its exit. */
export class ServeProcess {
  readonly stderr: string[] = [];

  private constructor(
    readonly child: Deno.ChildProcess,
    readonly url: string,
    readonly port: number,
    readonly done: Promise<Deno.CommandStatus>,
  ) {}

  /** Starts `bonsai serve --port 0 --json [args]` and waits for its address line. */
  static async start(
    options: { cwd: string; env: Record<string, string>; args?: string[] },
  ): Promise<ServeProcess> {
    const child = spawnBonsai(["serve", "--port", "0", "--json", ...(options.args ?? [])], {
      cwd: options.cwd,
      env: options.env,
    });
    const lines = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(
      lineSplitter(),
    );
    const reader = lines.getReader();
    const first = await reader.read();
    reader.releaseLock();
    void lines.pipeTo(new WritableStream());
    const errors: string[] = [];
    void (async () => {
      const errLines = child.stderr.pipeThrough(new TextDecoderStream()).pipeThrough(
        lineSplitter(),
      );
      for await (const line of errLines) errors.push(line);
    })();
    if (first.done) {
      const status = await child.status;
      throw new Error(
        `bonsai serve exited (${status.code}) before listening: ${errors.join("\n")}`,
      );
    }
    const { url, port } = JSON.parse(first.value) as { url: string; port: number };
    const server = new ServeProcess(child, url, port, child.status);
    (server as { stderr: string[] }).stderr = errors;
    return server;
  }

  /** Sends `signal` and waits for the process to exit; returns its status. */
  async stop(signal: Deno.Signal = "SIGTERM"): Promise<Deno.CommandStatus> {
    try {
      this.child.kill(signal);
    } catch (err) {
      if (!(err instanceof TypeError)) throw err; // already gone
    }
    return await this.done;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop("SIGKILL");
  }
}

/** What a request sends. */
export interface Call {
  method?: string;
  token?: string;
  cookie?: string;
  origin?: string;
  host?: string;
  body?: unknown;
  rawBody?: BodyInit;
  headers?: Record<string, string>;
}

/** A request to the server, read whole: status, JSON (or text) and headers. */
export async function call(
  base: string,
  path: string,
  c: Call = {},
): Promise<{ status: number; json: unknown; text: string; headers: Headers }> {
  const headers: Record<string, string> = { ...c.headers };
  if (c.token) headers.authorization = `Bearer ${c.token}`;
  if (c.cookie) headers.cookie = c.cookie;
  if (c.origin) headers.origin = c.origin;
  if (c.host) headers.host = c.host;
  let body = c.rawBody;
  if (c.body !== undefined) {
    headers["content-type"] ??= "application/json";
    body = JSON.stringify(c.body);
  }
  const res = await fetch(`${base}${path}`, { method: c.method ?? "GET", headers, body });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null; // not JSON (an event stream, a page)
  }
  return { status: res.status, json, text, headers: res.headers };
}

/** One Server-Sent Event. */
export interface ServerEvent {
  event: string;
  data: Record<string, unknown>;
}

/**
 * Reads an event stream: `onEvent` sees each event as it comes; resolves with all of them
 * when the stream ends. Resolves `connected` once the server has subscribed the client.
 */
export function readEvents(
  url: string,
  token: string,
  onEvent: (e: ServerEvent) => void | Promise<void> = () => {},
): { connected: Promise<void>; events: Promise<ServerEvent[]> } {
  let connected = () => {};
  const ready = new Promise<void>((r) => (connected = r));
  const events = (async () => {
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    if (res.status !== 200) throw new Error(`events: HTTP ${res.status} ${await res.text()}`);
    const out: ServerEvent[] = [];
    let block: string[] = [];
    const lines = res.body!.pipeThrough(new TextDecoderStream()).pipeThrough(
      lineSplitter(),
    );
    for await (const line of lines) {
      if (line !== "") {
        block.push(line);
        continue;
      }
      if (block.some((l) => l === ": connected")) connected();
      const event = block.find((l) => l.startsWith("event: "))?.slice(7);
      const data = block.find((l) => l.startsWith("data: "))?.slice(6);
      block = [];
      if (event === undefined || data === undefined) continue;
      const e = { event, data: JSON.parse(data) };
      out.push(e);
      await onEvent(e);
    }
    return out;
  })();
  return { connected: ready, events };
}

/** Splits decoded text into lines (without their line ends). */
function lineSplitter(): TransformStream<string, string> {
  let rest = "";
  return new TransformStream<string, string>({
    transform(chunk, controller) {
      const parts = (rest + chunk).split(/\r?\n/);
      rest = parts.pop()!;
      for (const line of parts) controller.enqueue(line);
    },
    flush(controller) {
      if (rest) controller.enqueue(rest);
    },
  });
}
