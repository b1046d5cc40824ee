// `deno task bench serve`: the HTTP API of `bonsai serve` (X4). Prints one JSON object.
//   deno run -A scripts/bench_serve.ts [--sessions 10000] [--clients 32] [--requests 4000]
//                                      [--turns 40]
// - list: GET /api/user/sessions (the first page, 100 sessions) against a real server
//   process over 10,000 sessions, from 32 concurrent clients: latency and requests/s.
// - events: for each of `turns` prompts, the time from the provider's first byte (a scripted
//   OpenAI-compatible stream served by this process) to the client's first `text` event.
import { join } from "node:path";
import { parseArgs } from "node:util";
import { progress, stats } from "./lib/bench_util.ts";
import { startBenchServer } from "./lib/serve_bench.ts";
import { generateHistory } from "./gen_history.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    sessions: { type: "string", default: "10000" },
    clients: { type: "string", default: "32" },
    requests: { type: "string", default: "4000" },
    turns: { type: "string", default: "40" },
  },
});
const dir = await Deno.makeTempDir({ prefix: "bonsai-bench-serve-" });
const home = join(dir, "home");
const project = join(dir, "project");
await Deno.mkdir(project);

// The scripted provider: notes when it sends each reply's first byte.
const firstBytes: number[] = [];
const provider = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
  if (!new URL(req.url).pathname.endsWith("/chat/completions")) {
    return new Response("not here", { status: 404 });
  }
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      firstBytes.push(performance.now());
      for (const frame of replyFrames("The answer, streamed.")) {
        controller.enqueue(encoder.encode(frame));
      }
      controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
});

let server: Deno.ChildProcess | null = null;
try {
  progress(`generating ${values.sessions} sessions ...`);
  await generateHistory({ home, sessions: Number(values.sessions), messages: 6, seed: 11 });
  const started = await startBenchServer(home, {
    cwd: dir,
    args: ["--allow-all"],
    env: {
      BONSAI_PROVIDER: "openai",
      OPENAI_BASE_URL: `http://127.0.0.1:${provider.addr.port}/v1`,
      OPENAI_API_KEY: "bench-not-a-key",
      BONSAI_MODEL: "gpt-4o",
    },
  });
  server = started.child;
  const { url, token } = started;
  const auth = { authorization: `Bearer ${token}` };

  progress(`list: ${values.requests} requests from ${values.clients} clients ...`);
  const list = await listLoad(url, auth, Number(values.clients), Number(values.requests));
  progress(`events: ${values.turns} turns ...`);
  const events = await eventLatency(url, auth, Number(values.turns));
  console.log(JSON.stringify({
    bench: "serve",
    sessions: Number(values.sessions),
    list_sessions: {
      clients: Number(values.clients),
      page: 100,
      requests_per_s: Math.round(list.rps),
      ...stats(list.samples),
    },
    sse_first_event_after_provider_first_byte: stats(events),
  }));
} finally {
  if (server) {
    server.kill("SIGTERM");
    await server.status;
  }
  await provider.shutdown();
  await Deno.remove(dir, { recursive: true });
}

/** `clients` concurrent loops sharing `total` list requests: every latency and the rate. */
async function listLoad(
  url: string,
  headers: Record<string, string>,
  clients: number,
  total: number,
): Promise<{ samples: number[]; rps: number }> {
  // Warm-up: the server's first requests compile its code paths.
  for (let i = 0; i < 20; i++) await (await fetch(`${url}/api/user/sessions`, { headers })).text();
  const samples: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next++ < total) {
      const t = performance.now();
      const res = await fetch(`${url}/api/user/sessions`, { headers });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`list: HTTP ${res.status} ${body}`);
      samples.push(performance.now() - t);
    }
  }));
  return { samples, rps: samples.length / ((performance.now() - started) / 1000) };
}

/** Prompts a session `turns` times; per turn, provider first byte → client's first text event. */
async function eventLatency(
  url: string,
  auth: Record<string, string>,
  turns: number,
): Promise<number[]> {
  const headers = { ...auth, "content-type": "application/json" };
  const created = await fetch(`${url}/api/user/sessions`, {
    method: "POST",
    headers,
    body: JSON.stringify({ title: "bench events", project_path: project }),
  });
  const { id } = await created.json() as { id: string };
  const samples: number[] = [];
  for (let turn = 0; turn < turns; turn++) {
    const res = await fetch(`${url}/api/user/sessions/${id}/events?until=turn_end`, {
      headers: auth,
    });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    const read = async (until: (text: string) => boolean) => {
      while (!until(buffer)) {
        const { done, value } = await reader.read();
        if (done) throw new Error("the event stream ended early");
        buffer += value;
      }
    };
    await read((b) => b.includes(": connected"));
    const before = firstBytes.length;
    const posted = await fetch(`${url}/api/user/sessions/${id}/messages`, {
      method: "POST",
      headers,
      body: JSON.stringify({ text: `question ${turn}` }),
    });
    if (posted.status !== 202) {
      throw new Error(`prompt: HTTP ${posted.status} ${await posted.text()}`);
    }
    await read((b) => b.includes("event: text"));
    const seen = performance.now();
    samples.push(seen - firstBytes[before]!);
    await read((b) => b.includes("event: turn_end"));
    await reader.cancel();
  }
  return samples;
}

/** An OpenAI chat-completions stream of `text` with usage. */
function replyFrames(text: string): string[] {
  const base = {
    id: "chatcmpl-bench",
    object: "chat.completion.chunk",
    created: 1,
    model: "gpt-4o",
  };
  const frame = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
  const delta = (d: Record<string, unknown>, finish: string | null = null) =>
    frame({ ...base, choices: [{ index: 0, delta: d, finish_reason: finish }] });
  return [
    delta({ role: "assistant", content: "" }),
    ...text.split(" ").map((w, i) => delta({ content: i ? ` ${w}` : w })),
    delta({}, "stop"),
    frame({
      ...base,
      choices: [],
      usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 },
    }),
    "data: [DONE]\n\n",
  ];
}
