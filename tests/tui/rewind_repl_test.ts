import assert from "node:assert/strict";
import { join } from "node:path";
import { anthropic } from "../support/sse_scripts.ts";
import { replHarness } from "../support/repl_harness.ts";

function writeCall(id: string, path: string, content: string) {
  return {
    events: anthropic.reply({
      calls: [{ id, name: "write", json: JSON.stringify({ path, content }) }],
    }),
  };
}

/** The user prompts of the last request the model got. */
function promptsSent(body: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const m of body.messages as { role: string; content: unknown }[]) {
    if (m.role !== "user") continue;
    const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    for (const b of blocks as { type: string; text?: string }[]) {
      if (b.type === "text" && b.text) out.push(b.text);
    }
  }
  return out;
}

Deno.test("Repl: /rewind picks a prompt, reverts files, and the model's context ends there; /resume of the linked session undoes it", async () => {
  await using h = await replHarness({ host: { allow: ["write"] } });
  h.server.anthropic(
    writeCall("w1", "one.txt", "1\n"),
    { events: anthropic.reply({ text: "made one" }) },
    writeCall("w2", "two.txt", "2\n"),
    { events: anthropic.reply({ text: "made two" }) },
    { events: anthropic.reply({ text: "made three" }) },
    { events: anthropic.reply({ text: "back on the old branch" }) },
  );
  await h.repl.handle("make one");
  h.clock.advance(60_000);
  await h.repl.handle("make two");
  h.clock.advance(60_000);
  const id = h.host.session.id;
  const second = h.rows<{ seq: number }>(
    "SELECT seq FROM messages WHERE session_id = ? AND text = 'make two'",
    id,
  )[0]!.seq;
  // The picker (latest prompt first), then "revert the files too?", then the confirmation.
  (h.io as unknown as { answers: string[] }).answers.push(String(second), "files", "y");
  h.io.take();
  await h.repl.handle("/rewind");
  const out = h.io.take();
  assert.match(out, /Rewound '.*' \(.*\) to before prompt #\d+/);
  assert.match(out, /Reverted 1 file: two\.txt \(deleted\)/);
  assert.match(out, /Your prompt was: make two/);
  assert.deepEqual(h.io.questions.slice(-3).map((q) => q.slice(0, 24)), [
    "Rewind to before which p",
    "Files changed since that",
    "Rewind 'make one' to bef",
  ]);
  await assert.rejects(Deno.stat(join(h.root, "two.txt")), Deno.errors.NotFound);
  assert.equal(await Deno.readTextFile(join(h.root, "one.txt")), "1\n");
  assert.equal(h.host.session.id, id, "still in the same session");

  await h.repl.handle("make three");
  assert.deepEqual(promptsSent(h.server.requests.at(-1)!.body), ["make one", "make three"]);

  const linked = h.rows<{ id: string }>("SELECT id FROM sessions WHERE parent_id = ?", id)[0]!.id;
  await h.repl.handle(`/resume ${linked}`);
  await h.repl.handle("go on");
  assert.deepEqual(promptsSent(h.server.requests.at(-1)!.body), ["make one", "make two", "go on"]);
});

Deno.test("Repl: /rewind with a seq that is not a prompt says which are, and changes nothing", async () => {
  await using h = await replHarness({ answers: [] });
  h.server.anthropic({ events: anthropic.reply({ text: "hello" }) });
  await h.repl.handle("hi");
  h.io.take();
  await h.repl.handle("/rewind 2");
  assert.match(
    h.io.take(),
    /a rewind goes back to before one of the user's prompts, and its prompts are at 1/,
  );
  await h.repl.handle("/rewind x y");
  assert.match(h.io.take(), /Usage: \/rewind/);
  assert.equal(h.rows("SELECT id FROM sessions").length, 1);
});
