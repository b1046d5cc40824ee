import { join } from "node:path";
import type { BudgetLimits } from "../../core/agent/budget.ts";
import type { Agent } from "../../core/agent/loop.ts";
import { type PermissionAsker, PermissionGate } from "../../core/agent/permissions.ts";
import { noPeers } from "../../core/peers/peers.ts";
import { leasedWorkspace } from "../../core/peers/workspace.ts";
import { WriteLease } from "../../core/peers/write_lease.ts";
import { createClient, type ProviderConfig } from "../../core/providers/config.ts";
import { AgentFactory, type ContextOverrides } from "../../core/service/agent_factory.ts";
import { startSession } from "../../core/session/lifecycle.ts";
import type { SessionRuntime } from "../../core/session/runtime.ts";
import type { Db } from "../../core/storage/db.ts";
import { openTestDb } from "./db.ts";
import type { FakeClock } from "./fake_clock.ts";
import { LoopbackServer } from "./loopback_server.ts";
import { tempDir } from "./temp.ts";

/** An agent on a real database and real clients, talking to a loopback server. */
export interface Harness extends AsyncDisposable {
  readonly db: Db;
  readonly clock: FakeClock;
  readonly server: LoopbackServer;
  readonly runtime: SessionRuntime;
  readonly agent: Agent;
  readonly factory: AgentFactory;
  readonly root: string;
  readonly sleeps: number[];
  /** Rows of a query, as plain objects. */
  rows<T = Record<string, unknown>>(sql: string, ...args: (string | number)[]): T[];
}

/** Builds a harness; `await using h = await harness({...})`. */
export async function harness(options: {
  provider?: "anthropic" | "openai";
  limits?: BudgetLimits;
  allow?: ("write" | "exec")[];
  ask?: PermissionAsker;
  model?: string;
  env?: Record<string, string>;
  context?: ContextOverrides;
} = {}): Promise<Harness> {
  const dir = await tempDir();
  const root = await Deno.realPath(
    await Deno.mkdir(join(dir.path, "work")).then(() => join(dir.path, "work")),
  );
  const { db, clock, ids } = await openTestDb(join(dir.path, "home"));
  const server = await LoopbackServer.start();
  const provider = options.provider ?? "anthropic";
  const config: ProviderConfig = {
    provider,
    model: options.model ?? (provider === "anthropic" ? "claude-sonnet-4-5" : "gpt-4o"),
    reasoning: null,
    apiKey: "test-key-0000000000",
    baseUrl: provider === "anthropic" ? server.url : server.openaiUrl,
    source: "flag",
  };
  const owner = { pid: 4242, host: "test-host" };
  const sleeps: number[] = [];
  const factory = new AgentFactory({
    db,
    clock,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", ...options.env },
    fetch,
    random: () => 0,
    platform: "linux",
    client: (c) =>
      createClient(c, {
        fetch,
        clock,
        random: () => 0,
        sleep: (ms) => {
          sleeps.push(ms);
          return Promise.resolve();
        },
      }),
  });
  const runtime = startSession(db, ids, {
    projectPath: root,
    owner,
    provider,
    model: config.model,
  });
  const agent = factory.agent(runtime, config, {
    workspace: leasedWorkspace(
      new WriteLease({
        db,
        clock: clock,
        projectId: runtime.session.projectId,
        sessionId: runtime.id,
      }),
    ),
    peers: noPeers,
    permissions: new PermissionGate({
      allow: options.allow ?? ["write", "exec"],
      ask: options.ask ?? null,
    }),
    limits: options.limits ?? {},
    saved: {},
    context: options.context ?? {},
  });
  return {
    db,
    clock,
    server,
    runtime,
    agent,
    factory,
    root,
    sleeps,
    rows<T>(sql: string, ...args: (string | number)[]): T[] {
      return db.connection.prepare(sql).all(...args).map((r) => ({ ...r })) as T[];
    },
    async [Symbol.asyncDispose]() {
      await server.close();
      db.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}
