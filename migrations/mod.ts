// The ordered schema migrations, imported as text so the compiled binary embeds them.
// Each entry's `version` is the `user_version` after it runs. Never edit a released file.
import init from "./0001_init.sql" with { type: "text" };
import usageRollup from "./0002_usage_rollup.sql" with { type: "text" };
import bulkWrites from "./0003_bulk_writes.sql" with { type: "text" };
import toolRollup from "./0004_tool_rollup.sql" with { type: "text" };
import usageSpeed from "./0005_usage_speed.sql" with { type: "text" };
import dropUnusedIndexes from "./0006_drop_unused_indexes.sql" with { type: "text" };
import messageSearchTrigger from "./0007_message_search_trigger.sql" with { type: "text" };
import dropMessageExternal from "./0008_drop_message_external_index.sql" with { type: "text" };
import sessionsByCost from "./0009_sessions_by_cost.sql" with { type: "text" };
import turnsCompleted from "./0010_turns_are_completed_responses.sql" with { type: "text" };
import ownershipEpochs from "./0011_ownership_epochs.sql" with { type: "text" };
import leaseWaits from "./0012_lease_waits.sql" with { type: "text" };
import fileCheckpoints from "./0013_file_checkpoints.sql" with { type: "text" };
import serverPassword from "./0014_server_password.sql" with { type: "text" };
import subagentSessions from "./0015_subagent_sessions.sql" with { type: "text" };
import permissionRules from "./0016_permission_rules.sql" with { type: "text" };

/** Every migration this binary knows, in order. */
export const MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  { version: 1, name: "0001_init", sql: init },
  { version: 2, name: "0002_usage_rollup", sql: usageRollup },
  { version: 3, name: "0003_bulk_writes", sql: bulkWrites },
  { version: 4, name: "0004_tool_rollup", sql: toolRollup },
  { version: 5, name: "0005_usage_speed", sql: usageSpeed },
  { version: 6, name: "0006_drop_unused_indexes", sql: dropUnusedIndexes },
  { version: 7, name: "0007_message_search_trigger", sql: messageSearchTrigger },
  { version: 8, name: "0008_drop_message_external_index", sql: dropMessageExternal },
  { version: 9, name: "0009_sessions_by_cost", sql: sessionsByCost },
  { version: 10, name: "0010_turns_are_completed_responses", sql: turnsCompleted },
  { version: 11, name: "0011_ownership_epochs", sql: ownershipEpochs },
  { version: 12, name: "0012_lease_waits", sql: leaseWaits },
  { version: 13, name: "0013_file_checkpoints", sql: fileCheckpoints },
  { version: 14, name: "0014_server_password", sql: serverPassword },
  { version: 15, name: "0015_subagent_sessions", sql: subagentSessions },
  { version: 16, name: "0016_permission_rules", sql: permissionRules },
];
