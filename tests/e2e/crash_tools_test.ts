// Z6 and R4 under kill -9: wherever a tool-using turn dies, `bonsai -c` continues against a
// loopback server as strict as the real APIs, and no tool call is left pending or running.
import assert from "node:assert/strict";
import { join } from "node:path";
import { Prng } from "../../scripts/lib/prng.ts";
import { LOST_BEFORE_RUNNING, LOST_WHILE_RUNNING } from "../../core/session/tool_repair.ts";
import { LoopbackServer } from "../support/loopback_server.ts";
import { baseEnv, runBonsai, spawnBonsai, spawnRepl } from "../support/bonsai_process.ts";
import { tempDir } from "../support/temp.ts";
import {
  collect,
  type Protocol,
  providerEnv,
  query,
  scriptTurn,
  toolResults,
  until,
} from "../support/tool_turn.ts";

const PROTOCOLS: Protocol[] = ["anthropic", "openai"];
const seed = Number(Deno.env.get("BONSAI_CRASH_SEED") ?? 20261201);

interface Place {
  readonly name: string;
  /** Starts bonsai, waits for the point, returns the child to kill. */
  run(ctx: Ctx): Promise<Deno.ChildProcess>;
  /** The status the call ends with once the session is continued. */
  readonly callStatus: string;
  /** What the model is told about the call on the next request (a prefix). */
  readonly told: string;
}

interface Ctx {
  readonly home: string;
  readonly work: string;
  readonly env: Record<string, string>;
  readonly server: LoopbackServer;
}

const PLACES: Place[] = [
  {
    name: "waiting for permission (REPL)",
    callStatus: "lost",
    told: LOST_BEFORE_RUNNING,
    async run({ work, env }) {
      const child = spawnRepl({ cwd: work, env });
      const out = collect(child.stdout);
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode("please run the tool\n"));
      writer.releaseLock();
      await until(() => out.text.includes("? Run"), "the permission question");
      return child;
    },
  },
  {
    name: "during exec",
    callStatus: "lost",
    told: LOST_WHILE_RUNNING,
    async run({ home, work, env }) {
      const child = spawnBonsai(["-p", "please run the tool", "--allow", "exec"], {
        cwd: work,
        env,
      });
      await until(
        () => query(home, "SELECT 1 FROM tool_calls WHERE status = 'running'").length === 1,
        "the tool to run",
      );
      return child;
    },
  },
  {
    name: "between a tool result and the next request",
    callStatus: "ok",
    told: "from the tool",
    async run({ work, env, server }) {
      const child = spawnBonsai(["-p", "please run the tool", "--allow", "exec"], {
        cwd: work,
        env,
      });
      await until(() => server.requests.length === 2, "the request carrying the result");
      return child;
    },
  },
];

for (const protocol of PROTOCOLS) {
  Deno.test(`kill -9 at each point of a tool-using turn (${protocol}); -c completes and no call is left open`, async (t) => {
    const rng = new Prng(seed + (protocol === "openai" ? 1 : 0));
    for (const place of PLACES) {
      await t.step(place.name, async () => {
        await using dir = await tempDir();
        await using server = await LoopbackServer.start();
        const home = join(dir.path, "home");
        const work = join(dir.path, "work");
        await Deno.mkdir(work);
        // The command prints at once, then waits: a kill lands while it runs, or after it.
        const command = place.name === "during exec"
          ? "echo started; sleep 5"
          : "echo from the tool";
        const call = { id: "call_crash1", name: "exec", json: JSON.stringify({ command }) };
        scriptTurn(server, protocol, {
          call,
          afterResults: place.callStatus === "ok" ? { events: [], hangAfter: 0 } : undefined,
        });
        const env = baseEnv(home, providerEnv(server, protocol));
        const child = await place.run({ home, work, env, server });
        await new Promise((r) => setTimeout(r, Math.floor(rng.next() * 300)));
        child.kill("SIGKILL");
        await child.status;
        await closeOutput(child);

        const before = server.requests.length;
        const resumed = await runBonsai(["-c", "-p", "what happened?", "--json"], {
          cwd: work,
          env,
        });
        assert.equal(resumed.code, 0, `seed ${seed}: ${resumed.stderr}`);
        assert.equal(JSON.parse(resumed.stdout).result, "continued: what happened?");
        const sent = server.requests[before]!.body;
        assert.ok(toolResults(sent).get(call.id)?.startsWith(place.told), JSON.stringify(sent));
        assert.deepEqual(
          query(home, "SELECT call_id, status, ended_at IS NOT NULL AS ended FROM tool_calls"),
          [{ call_id: call.id, status: place.callStatus, ended: 1 }],
        );
        const session = query<{ status: string }>(home, "SELECT status FROM sessions")[0]!;
        assert.equal(session.status, "completed");
      });
    }
  });
}

/** Ways a turn ends that are not a crash: each must leave a session `-c` can continue. */
const ENDINGS: {
  name: string;
  args: string[];
  command: string;
  signal?: Deno.Signal;
  exit: number;
  callStatus: string;
  afterResults?: (p: Protocol) => { status?: number; body?: string; events?: string[] };
}[] = [
  {
    name: "Ctrl-C during exec",
    args: ["--allow", "exec"],
    command: "sleep 5",
    signal: "SIGINT",
    exit: 130,
    callStatus: "cancelled",
  },
  {
    name: "SIGTERM during exec",
    args: ["--allow", "exec"],
    command: "sleep 5",
    signal: "SIGTERM",
    exit: 143,
    callStatus: "cancelled",
  },
  {
    name: "tool timeout",
    args: ["--allow", "exec", "--tool-timeout", "300ms"],
    command: "sleep 5",
    exit: 0,
    callStatus: "timeout",
  },
  {
    name: "budget exhausted after the tool",
    args: ["--allow", "exec", "--max-turns", "1"],
    command: "echo hi",
    exit: 6,
    callStatus: "ok",
  },
  {
    name: "permission denied (headless)",
    args: [],
    command: "echo hi",
    exit: 0,
    callStatus: "denied",
  },
  {
    name: "provider error on the request after the tool",
    args: ["--allow", "exec"],
    command: "echo hi",
    exit: 7,
    callStatus: "ok",
    afterResults: (p) => ({
      status: 400,
      body: p === "anthropic"
        ? JSON.stringify({
          type: "error",
          error: { type: "invalid_request_error", message: "prompt is too long" },
        })
        : JSON.stringify({
          error: { message: "context too long", type: "invalid_request_error", param: null },
        }),
    }),
  },
];

for (const protocol of PROTOCOLS) {
  Deno.test(`Ctrl-C, SIGTERM, tool timeout, budget, denial and provider errors mid-tool (${protocol}) leave a session -c continues`, async (t) => {
    for (const ending of ENDINGS) {
      await t.step(ending.name, async () => {
        await using dir = await tempDir();
        await using server = await LoopbackServer.start();
        const home = join(dir.path, "home");
        const work = join(dir.path, "work");
        await Deno.mkdir(work);
        const call = {
          id: "call_end1",
          name: "exec",
          json: JSON.stringify({ command: ending.command }),
        };
        scriptTurn(server, protocol, { call, afterResults: ending.afterResults?.(protocol) });
        const env = baseEnv(home, providerEnv(server, protocol));
        const child = spawnBonsai(["-p", "please run the tool", "--json", ...ending.args], {
          cwd: work,
          env,
        });
        if (ending.signal) {
          await until(
            () => query(home, "SELECT 1 FROM tool_calls WHERE status = 'running'").length === 1,
            "the tool to run",
          );
          child.kill(ending.signal);
        }
        const out = await child.output();
        assert.equal(out.code, ending.exit, new TextDecoder().decode(out.stderr));
        const resumed = await runBonsai(["-c", "-p", "what happened?", "--json"], {
          cwd: work,
          env,
        });
        assert.equal(resumed.code, 0, resumed.stderr);
        assert.equal(JSON.parse(resumed.stdout).result, "continued: what happened?");
        assert.deepEqual(query(home, "SELECT status FROM tool_calls"), [{
          status: ending.callStatus,
        }]);
      });
    }
  });
}

/** Lets go of a killed child's output streams (whichever are piped). */
async function closeOutput(child: Deno.ChildProcess): Promise<void> {
  for (const stream of ["stdout", "stderr"] as const) {
    try {
      await child[stream].cancel();
    } catch (err) {
      if (!(err instanceof TypeError)) throw err; // not piped
    }
  }
}
