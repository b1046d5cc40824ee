import assert from "node:assert/strict";
import { searchMessages } from "../../../core/storage/search.ts";
import { harness } from "../../support/agent_harness.ts";
import { anthropic } from "../../support/sse_scripts.ts";

const INSTRUCTION =
  "Refactor the parser module. Standing rule: never touch vendor/ and always indent with tabs.";

Deno.test("a 300-turn session stays inside the window; the summary keeps the first instruction and open todos", async () => {
  const window = 7_000;
  await using h = await harness({ context: { window } });
  const todos = JSON.stringify({
    plan: "Split the parser into lexer and grammar.",
    todos: [
      { content: "extract the lexer", status: "in_progress" },
      { content: "port the grammar tests", status: "pending" },
    ],
  });
  h.server.anthropic({
    events: anthropic.reply({
      text: "Planning first.",
      calls: [{ id: "t0", name: "todo_write", json: todos }],
    }),
  });
  for (let i = 1; i < 299; i++) {
    h.server.anthropic({
      events: anthropic.reply({
        text:
          `Step ${i}: inspected component zeta${i} and found nothing unusual in its handling of tokens.`,
        calls: [{
          id: `t${i}`,
          name: "glob",
          json: JSON.stringify({ pattern: `**/zeta${i}*.ts` }),
        }],
      }),
    });
  }
  h.server.anthropic({ events: anthropic.reply({ text: "All 300 steps done." }) });
  const result = await h.agent.run(INSTRUCTION, { signal: new AbortController().signal });
  assert.equal(result.status, "completed", JSON.stringify(result.error));
  assert.equal(result.turns, 300);
  assert.equal(h.server.requests.length, 300);

  let largest = 0;
  let summarised = 0;
  for (const req of h.server.requests) {
    const body = req.body as {
      system: unknown;
      tools: unknown;
      messages: { content: { type: string; text?: string }[] }[];
    };
    const tokens =
      JSON.stringify({ system: body.system, tools: body.tools, messages: body.messages }).length /
      4;
    largest = Math.max(largest, tokens);
    assert.ok(
      tokens <= window,
      `a request of ~${Math.round(tokens)} tokens exceeds the ${window}-token window`,
    );
    const first = body.messages[0]!.content.map((b) => b.text ?? "").join("");
    if (first.startsWith("[Summary of the earlier conversation")) {
      summarised++;
      assert.ok(first.includes(INSTRUCTION), "the first instruction is kept verbatim");
      assert.ok(
        first.includes("[~] extract the lexer") && first.includes("[ ] port the grammar tests"),
        "open todos are kept",
      );
    }
  }
  assert.ok(summarised > 200, `only ${summarised} requests carried a summary`);
  assert.ok(largest > window * 0.4, "the window was actually used");

  const compactions = h.rows<
    {
      method: string;
      from_seq: number;
      to_seq: number;
      tokens_before: number;
      tokens_after: number;
    }
  >(
    "SELECT method, from_seq, to_seq, tokens_before, tokens_after FROM compactions ORDER BY id",
  );
  assert.ok(compactions.length >= 5, `${compactions.length} compactions`);
  for (const [i, c] of compactions.entries()) {
    assert.equal(c.method, "rule");
    assert.equal(c.from_seq, 1);
    assert.ok(c.tokens_after < c.tokens_before);
    if (i > 0) assert.ok(c.to_seq > compactions[i - 1]!.to_seq);
  }
  // Nothing was deleted: the whole history is stored and searchable.
  assert.equal(h.rows("SELECT * FROM context_items").length, 600); // prompt, 300 replies, 299 tool results
  const early = searchMessages(h.db, "zeta3");
  assert.ok(
    early.some((hit) => hit.snippet.includes("Step 3")),
    "text from summarised turns is still found",
  );
  const episodes = h.rows<{ boundary: string }>("SELECT boundary FROM episodes ORDER BY ordinal");
  assert.equal(episodes[0]!.boundary, "start");
  assert.equal(episodes.filter((e) => e.boundary === "compaction").length, compactions.length);
});

Deno.test("a summary is deterministic and stable: requests between compactions share their prefix", async () => {
  await using h = await harness({ context: { window: 6_000 } });
  for (let i = 0; i < 80; i++) {
    h.server.anthropic({
      events: anthropic.reply({
        text:
          `Looking at item ${i} in some detail, with a longer explanation to fill the window faster.`,
        calls: [{ id: `t${i}`, name: "glob", json: JSON.stringify({ pattern: `item${i}` }) }],
      }),
    });
  }
  h.server.anthropic({ events: anthropic.reply({ text: "done" }) });
  await h.agent.run("go through the items", { signal: new AbortController().signal });
  const summaries = h.server.requests.map((r) => {
    const m = (r.body as { messages: { content: { text?: string }[] }[] }).messages[0]!;
    return m.content[0]?.text ?? "";
  }).filter((t) => t.startsWith("[Summary"));
  const distinct = new Set(summaries);
  const compactions = h.rows("SELECT * FROM compactions");
  assert.equal(
    distinct.size,
    compactions.length,
    "each summary text is reused until the next compaction",
  );
  const rewrites =
    h.rows<{ n: number }>("SELECT count(*) AS n FROM ledger WHERE prefix_rewrite = 1")[0]!.n;
  assert.equal(
    rewrites,
    compactions.length,
    "the cached prefix is rewritten only when a compaction happens",
  );
});

Deno.test("--compaction model: the model writes the summary in lane 'compaction'; rules keep the first instruction", async () => {
  await using h = await harness({ context: { window: 6_000, mode: "model" } });
  let summaries = 0;
  h.server.route((_route, body) => {
    if (!String(JSON.stringify(body.system)).includes("You summarise the earlier part")) {
      return null;
    }
    summaries++;
    return {
      events: anthropic.reply({
        text: `- MODEL SUMMARY ${summaries}: parser split in progress`,
        usage: { input_tokens: 900, output_tokens: 30 },
      }),
    };
  });
  for (let i = 0; i < 60; i++) {
    h.server.anthropic({
      events: anthropic.reply({
        text:
          `Working through part ${i} of the task with a reasonably long explanation of what happens next.`,
        calls: [{ id: `t${i}`, name: "glob", json: JSON.stringify({ pattern: `part${i}` }) }],
      }),
    });
  }
  h.server.anthropic({ events: anthropic.reply({ text: "done" }) });
  const result = await h.agent.run(INSTRUCTION, { signal: new AbortController().signal });
  assert.equal(result.status, "completed");
  assert.ok(summaries >= 1);
  const compactions = h.rows<{ method: string; ledger_id: number | null; summary: string }>(
    "SELECT method, ledger_id, summary FROM compactions ORDER BY id",
  );
  assert.equal(compactions.length, summaries);
  assert.ok(compactions.every((c) => c.method === "model" && c.ledger_id !== null));
  assert.ok(compactions[0]!.summary.includes(INSTRUCTION));
  assert.ok(compactions[0]!.summary.includes("MODEL SUMMARY 1"));
  const lanes = h.rows<{ lane: string; n: number }>(
    "SELECT lane, count(*) AS n FROM ledger GROUP BY lane ORDER BY lane",
  );
  assert.deepEqual(lanes, [{ lane: "compaction", n: summaries }, { lane: "parent", n: 61 }]);
});
