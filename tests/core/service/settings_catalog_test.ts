import assert from "node:assert/strict";
import { join } from "node:path";
import { BonsaiError } from "../../../core/errors.ts";
import {
  describeSettings,
  readSettings,
  saveSetting,
  SETTINGS,
} from "../../../core/service/settings_catalog.ts";
import { SettingsStore } from "../../../core/storage/settings.ts";
import { openTestDb } from "../../support/db.ts";
import { tempDir } from "../../support/temp.ts";

/** A value people type for each setting, and what it reads back as. */
const TYPED: Record<string, [string, unknown]> = {
  "budget.max_turns": ["25", 25],
  "budget.max_run_time": ["5m", 300_000],
  "budget.max_generation_time": ["90s", 90_000],
  "budget.max_output_chars": ["5000", 5000],
  "budget.tool_timeout": ["500ms", 500],
  "budget.session_max_turns": ["100", 100],
  "budget.session_max_output": ["100000", 100000],
  "budget.session_max_time": ["1h", 3_600_000],
  "budget.session_max_cost": ["$2.50", 2.5],
  "default.provider": ["openai", "openai"],
  "default.model": ["gpt-5", "gpt-5"],
  "default.reasoning": ["high", "high"],
  "anthropic.api_key": ["env:WORK_ANTHROPIC_KEY", "env:WORK_ANTHROPIC_KEY"],
  "anthropic.base_url": ["https://proxy.example/a", "https://proxy.example/a"],
  "openai.api_key": ["env:WORK_OPENAI_KEY", "env:WORK_OPENAI_KEY"],
  "openai.base_url": ["http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"],
  "context.window": ["16384", 16384],
  "context.compact_at": ["80%", 0.8],
  "context.compaction": ["model", "model"],
  "verify.command": ["npm test", "npm test"],
  "review.self": ["true", "true"],
};

/** A stored value each setting must refuse (hand-edited, or written by another version). */
const BAD: Record<string, string> = {
  "budget.max_turns": '"abc"',
  "budget.max_run_time": "-5",
  "budget.max_generation_time": '"90s"',
  "budget.max_output_chars": "1.5",
  "budget.tool_timeout": "0",
  "budget.session_max_turns": "null",
  "budget.session_max_output": "{}",
  "budget.session_max_time": "[]",
  "budget.session_max_cost": '"$2"',
  "default.provider": '"gemini"',
  "default.model": '""',
  "default.reasoning": '"extreme"',
  "anthropic.api_key": '"sk-ant-real-key-pasted-by-hand"',
  "anthropic.base_url": '"ftp://x"',
  "openai.api_key": "42",
  "openai.base_url": '"localhost:8080"',
  "context.window": "999",
  "context.compact_at": "70",
  "context.compaction": '"llm"',
  "verify.command": "true",
  "review.self": "true",
};

Deno.test("every setting reads back what was saved, typed", async () => {
  await using dir = await tempDir();
  const { db } = await openTestDb(join(dir.path, "home"));
  using _ = db;
  const store = new SettingsStore(db);
  assert.deepEqual(Object.keys(TYPED).sort(), SETTINGS.map((s) => s.key).sort());
  for (const [key, [typed, value]] of Object.entries(TYPED)) {
    assert.deepEqual(saveSetting(store, key, typed), value, key);
  }
  const saved = readSettings(store);
  assert.deepEqual(saved.budgets, {
    maxTurns: 25,
    maxRunTimeMs: 300_000,
    maxGenerationMs: 90_000,
    maxOutputChars: 5000,
    toolTimeoutMs: 500,
    sessionMaxTurns: 100,
    sessionMaxOutput: 100000,
    sessionMaxTimeMs: 3_600_000,
    sessionMaxCostUsd: 2.5,
  });
  assert.deepEqual(saved.context, { window: 16384, compactAt: 0.8, mode: "model" });
  assert.equal(saved.provider.openaiKey, "env:WORK_OPENAI_KEY");
  assert.equal(saved.verifyCommand, "npm test");
  assert.equal(saved.selfReview, true);
});

Deno.test("a bad stored value is one clear error naming the key and how to remove it; listings still work", async (t) => {
  await using dir = await tempDir();
  const { db } = await openTestDb(join(dir.path, "home"));
  using _ = db;
  const store = new SettingsStore(db);
  assert.deepEqual(Object.keys(BAD).sort(), SETTINGS.map((s) => s.key).sort());
  for (const [key, raw] of Object.entries(BAD)) {
    await t.step(key, () => {
      db.connection.prepare("DELETE FROM settings").run();
      db.connection.prepare(
        "INSERT INTO settings (scope, key, value, updated_at) VALUES ('global', ?, ?, 0)",
      ).run(key, raw);
      assert.throws(
        () => readSettings(store),
        (err: unknown) =>
          err instanceof BonsaiError && err.code === "CONFIG" && !err.message.includes("\n") &&
          err.message.startsWith(`Saved setting '${key}' has an unusable value ${raw} (`) &&
          err.message.includes(`'bonsai settings unset ${key}'`),
      );
      const listed = describeSettings(store).find((s) => s.def.key === key)!;
      assert.equal(listed.raw, raw);
      assert.equal(listed.value, null);
      assert.ok(listed.problem);
    });
  }
  db.connection.prepare("UPDATE settings SET value = 'not json'").run();
  assert.throws(() => readSettings(store), /it is not valid JSON/);
});
