import type { Clock } from "../clock.ts";
import type { Env } from "../home.ts";
import type { PeerPort } from "../peers/peers.ts";
import type { Workspace } from "../peers/workspace.ts";
import type { ModelClient } from "../providers/types.ts";
import type { SessionRuntime } from "../session/runtime.ts";
import type { SessionUsage } from "./budget.ts";
import type { PermissionGate } from "./permissions.ts";
import type { ToolRegistry } from "./tools/registry.ts";
import type { RecallHit, SubagentPort } from "./tools/tool.ts";

/** What the agent works with. */
export interface AgentDeps {
  readonly runtime: SessionRuntime;
  readonly client: ModelClient;
  readonly tools: ToolRegistry;
  /** Decides write and exec calls (a subagent's asks through its parent's). */
  readonly permissions: Pick<PermissionGate, "decide">;
  /** Writes of the shared workspace, under the project's write lease (P2). */
  readonly workspace: Workspace;
  readonly clock: Clock;
  readonly env: Env;
  /** Canonical project root. */
  readonly root: string;
  readonly projectId: number;
  readonly recall: (query: string, limit: number) => RecallHit[];
  /** Peers of the session (the peers tool). */
  readonly peers: PeerPort;
  /**
   * Called at every turn boundary, before a model call: deliveries from peers (messages,
   * wakes) join the context here, never between a tool call and its result.
   */
  readonly takeNotices?: () => void;
  /** The session's totals from the persisted ledger (called after a flush). */
  readonly sessionUsage: () => SessionUsage;
  /** Subagents for the task tool (absent inside a subagent). */
  readonly subagents?: SubagentPort;
}
