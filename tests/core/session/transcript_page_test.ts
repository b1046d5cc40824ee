import assert from "node:assert/strict";
import { transcriptPage } from "../../../core/session/transcript_page.ts";
import { LedgerStore } from "../../../core/storage/ledger.ts";
import { MessageStore } from "../../../core/storage/messages.ts";
import { SessionStore } from "../../../core/storage/sessions.ts";
import { ToolCallStore } from "../../../core/storage/tool_calls.ts";
import { openTestDb } from "../../support/db.ts";
import { tempDir } from "../../support/temp.ts";
import { ledgerRow } from "../../support/usage_ledger.ts";

type Page = {
  first_seq: number;
  last_seq: number;
  messages: {
    seq: number;
    tool?: { status: string; diff: string | null; duration_ms: number | null };
    usage?: { output_tokens: number; cost_usd: number | null };
  }[];
};

Deno.test("transcriptPage() windows a long transcript and joins tool outcomes and usage", async (t) => {
  await using dir = await tempDir();
  const { db, ids } = await openTestDb(dir.path);
  try {
    const s = new SessionStore(db, ids).create({ projectPath: "/p", title: "long" });
    const [ledgerId] = new LedgerStore(db).append([
      ledgerRow({ sessionId: s.id, projectId: s.projectId, createdAt: 1 }, {
        provider: "openai",
        model: "gpt-4o",
        outputTokens: 42,
        costUsd: null,
      }),
    ]);
    const messages = new MessageStore(db);
    db.write(() =>
      messages.append(s.id, [
        ...Array.from({ length: 30 }, (_, i) => ({ role: "user" as const, text: `m${i + 1}` })),
        {
          role: "assistant",
          kind: "tool_call",
          text: "write",
          toolCallId: "c1",
          toolName: "write",
          toolArgs: "{}",
        },
        { role: "assistant", text: "done", ledgerId },
      ])
    );
    new ToolCallStore(db).put(s.id, [{
      callId: "c1",
      messageSeq: 31,
      toolName: "write",
      args: "{}",
      status: "ok",
      result: "wrote",
      diff: "+hi",
      exitCode: null,
      startedAt: 1,
      endedAt: 6,
      durationMs: 5,
    }]);
    const session = new SessionStore(db, ids).get(s.id);
    const page = (w: Parameters<typeof transcriptPage>[2]) =>
      transcriptPage(db, session, w) as unknown as Page;

    await t.step("with no bound: the last `limit`, and the first and last seq", () => {
      const p = page({ limit: 5 });
      assert.deepEqual(p.messages.map((m) => m.seq), [28, 29, 30, 31, 32]);
      assert.equal(p.first_seq, 1);
      assert.equal(p.last_seq, 32);
    });
    await t.step("after and before a seq", () => {
      assert.deepEqual(page({ after: 3, limit: 3 }).messages.map((m) => m.seq), [4, 5, 6]);
      assert.deepEqual(page({ before: 4, limit: 10 }).messages.map((m) => m.seq), [1, 2, 3]);
      assert.deepEqual(page({ after: 32, limit: 10 }).messages, []);
    });
    await t.step("tool calls carry their outcome, responses their usage", () => {
      const [call, reply] = page({ after: 30, limit: 5 }).messages;
      assert.deepEqual(call!.tool, { status: "ok", diff: "+hi", exit_code: null, duration_ms: 5 });
      assert.equal(reply!.usage!.output_tokens, 42);
      assert.equal(reply!.usage!.cost_usd, null, "unpriced stays null, not 0");
    });
  } finally {
    db.close();
  }
});
