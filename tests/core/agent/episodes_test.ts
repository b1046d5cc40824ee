import assert from "node:assert/strict";
import { sessionDetail } from "../../../core/session/session_detail.ts";
import { SessionStore } from "../../../core/storage/sessions.ts";
import { harness } from "../../support/agent_harness.ts";
import { anthropic } from "../../support/sse_scripts.ts";

Deno.test("set_session_title names the first episode, later titles start new ones with a summary of the last", async () => {
  await using h = await harness();
  const title = (id: string, t: string) => ({
    events: anthropic.reply({
      calls: [{ id, name: "set_session_title", json: JSON.stringify({ title: t }) }],
    }),
  });
  h.server.anthropic(
    title("t1", "Parse the config"),
    {
      events: anthropic.reply({
        text: "Parsed it with a small state machine.",
        calls: [{ id: "w1", name: "write", json: '{"path":"config.ts","content":"x"}' }],
      }),
    },
    title("t2", "Fix the flaky test"),
    { events: anthropic.reply({ text: "Both done." }) },
  );
  const result = await h.agent.run("parse the config file, then fix the flaky test", {
    signal: new AbortController().signal,
  });
  assert.equal(result.status, "completed");
  const session = new SessionStore(h.db).get(h.runtime.id);
  assert.equal(session.title, "Fix the flaky test");
  assert.equal(session.titleSource, "agent");
  const detail = sessionDetail(h.db, session);
  const episodes = detail.json.episodes as {
    ordinal: number;
    boundary: string;
    title: string;
    summary: string | null;
    end_seq: number | null;
  }[];
  assert.deepEqual(episodes.map((e) => [e.ordinal, e.boundary, e.title]), [[
    1,
    "start",
    "Parse the config",
  ], [2, "title", "Fix the flaky test"]]);
  assert.match(episodes[0]!.summary!, /Asked: parse the config file/);
  assert.match(episodes[0]!.summary!, /Changed: config.ts/);
  assert.ok(episodes[0]!.end_seq !== null);
  assert.equal(episodes[1]!.end_seq, null, "the current episode is open");
});

Deno.test("a title the user chose is not overwritten by the agent", async () => {
  await using h = await harness();
  h.runtime.setTitle("My own name", "user");
  h.server.anthropic(
    {
      events: anthropic.reply({
        calls: [{ id: "t1", name: "set_session_title", json: '{"title":"Agent name"}' }],
      }),
    },
    { events: anthropic.reply({ text: "ok" }) },
  );
  await h.agent.run("hello", { signal: new AbortController().signal });
  assert.equal(h.runtime.session.title, "My own name");
});
