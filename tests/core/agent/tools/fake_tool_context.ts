import { dirname } from "node:path";
import type { Env } from "../../../../core/home.ts";
import { noPeers } from "../../../../core/peers/peers.ts";
import type { ToolContext } from "../../../../core/agent/tools/tool.ts";
import { FakeClock } from "../../../support/fake_clock.ts";

/**
 * A ToolContext for calling tools directly: files read or written are remembered by hash
 * as the session runtime does, so write and edit work after a read.
 */
export function fakeToolContext(root: string, env: Env = {}): ToolContext {
  const known = new Map<string, string>();
  return {
    root,
    callId: "call-1",
    signal: new AbortController().signal,
    clock: new FakeClock(),
    env,
    timeoutMs: null,
    files: {
      knownHash: (rel) => known.get(rel) ?? null,
      recordRead: (read) => known.set(read.rel, read.fileHash),
      recordWrite: (rel, hash) => known.set(rel, hash),
    },
    // No peers here: compare and write, without a lease (the lease has its own tests).
    workspace: {
      async replaceFile(target, content, expected) {
        const current = await Deno.readTextFile(target.abs).catch(() => null);
        if (current !== expected) return `Not written: ${target.rel} changed since you read it`;
        await Deno.mkdir(dirname(target.abs), { recursive: true });
        await Deno.writeTextFile(target.abs, content);
        return null;
      },
    },
    peers: noPeers,
    setTitle: () => {},
    setPlan: () => {},
    recall: () => [],
    subagents: null,
    onUsage: () => {},
  };
}
