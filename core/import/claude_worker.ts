// The parsing half of a Claude Code import, on its own thread: reads the files it is given,
// parses their lines and posts the recorded sink calls back in batches, never more than
// IN_FLIGHT_BYTES of file ahead of the writer (which acknowledges each batch).
import { parseClaudeFiles } from "./claude_lines.ts";
import { IN_FLIGHT_BYTES, type ParseReply, type ParseRequest } from "./claude_jobs.ts";
import type { FileJob } from "./file_jobs.ts";
import { OpRecorder } from "./import_ops.ts";
import { setSavedPrices } from "../usage/pricing_context.ts";

const scope = self as unknown as {
  postMessage(message: ParseReply): void;
  onmessage: ((event: MessageEvent<ParseRequest>) => void) | null;
};

let inFlight = 0;
let wake: (() => void) | null = null;

scope.onmessage = (event) => {
  const request = event.data;
  if (request.kind === "ack") {
    inFlight -= request.bytes;
    wake?.();
    wake = null;
  } else {
    setSavedPrices(request.prices);
    parse(request.jobs).catch((err) =>
      scope.postMessage({
        kind: "error",
        message: err instanceof Error ? err.message : String(err),
      })
    );
  }
};

async function parse(jobs: readonly FileJob[]): Promise<void> {
  const recorder = new OpRecorder();
  await parseClaudeFiles(jobs, recorder, (job, offset, bytes) =>
    send({
      kind: "batch",
      index: job.index,
      path: job.path,
      progress: offset === null ? null : { size: job.size, mtimeMs: job.mtimeMs, offset },
      bytes,
      ...recorder.take(),
    }));
  scope.postMessage({ kind: "end" });
}

/** Posts a batch once the writer is less than IN_FLIGHT_BYTES behind. */
async function send(reply: Extract<ParseReply, { kind: "batch" }>): Promise<void> {
  while (inFlight > 0 && inFlight + reply.bytes > IN_FLIGHT_BYTES) {
    await new Promise<void>((resolve) => wake = resolve);
  }
  inFlight += reply.bytes;
  scope.postMessage(reply);
}
