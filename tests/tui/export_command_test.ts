import assert from "node:assert/strict";
import { join } from "node:path";
import { replHarness } from "../support/repl_harness.ts";
import { anthropic } from "../support/sse_scripts.ts";

Deno.test("Repl: /export writes the current session, unsaved replies included, and prints the path", async () => {
  await using h = await replHarness();
  h.server.anthropic({ events: anthropic.reply({ text: "the zebra answer" }) });
  await h.repl.handle("tell me about zebras");
  h.io.take();
  await h.repl.handle("/export");
  const out = h.io.take();
  const session = h.host.session;
  const path = join(
    h.root,
    "对话",
    `2026-11-30-${session.title.replace(/ /g, "-")}-${session.id.slice(0, 8)}.md`,
  );
  assert.equal(out, `Exported 2 messages to ${path}\n`);
  const text = await Deno.readTextFile(path);
  assert.match(text, /## User · .*\n\ntell me about zebras/);
  assert.match(text, /the zebra answer/);
  // A folder argument is taken from the project root; the file name is the same.
  await h.repl.handle("/export notes");
  assert.match(h.io.take(), new RegExp(`to ${join(h.root, "notes")}/2026-11-30-`));
  assert.equal(await Deno.readTextFile(join(h.root, "notes", path.split("/").at(-1)!)), text);
  await h.repl.handle("/help");
  assert.match(h.io.take(), /\/export \[dir\]/);
});
