import assert from "node:assert/strict";
import { join } from "node:path";
import { readExportDocument } from "../../../core/export/export_document.ts";
import { renderMarkdown } from "../../../core/export/markdown.ts";
import { MessageStore } from "../../../core/storage/messages.ts";
import { SessionStore } from "../../../core/storage/sessions.ts";
import { mdHtml, mdNodes } from "../../support/commonmark.ts";
import { openTestDb } from "../../support/db.ts";
import { LONG_OUTPUT, seedEverySession } from "../../support/export_session.ts";
import { assertSnapshot } from "../../support/snapshot.ts";
import { tempDir } from "../../support/temp.ts";

/** The only HTML an export may hold: the collapsed block around thinking. */
const ALLOWED_HTML = /^<details>\n<summary>[^<]*<\/summary>$|^<\/details>$/;

async function everyKind(title: string) {
  const dir = await tempDir();
  const { db, ids, clock } = await openTestDb(join(dir.path, "home"));
  const id = seedEverySession(db, ids, clock, { projectPath: "/work/app", title });
  const doc = readExportDocument(db, id);
  db.close();
  await dir[Symbol.asyncDispose]();
  return doc;
}

Deno.test("renderMarkdown(): a session with every kind of entry (golden)", async () => {
  const doc = await everyKind("修复登录测试的超时问题");
  const md = renderMarkdown(doc);
  await assertSnapshot("export-every-kind", md);
  assert.equal(renderMarkdown(doc), md, "pure: the same document gives the same text");
});

Deno.test("renderMarkdown(): the structure a CommonMark parser reads back", async (t) => {
  const doc = await everyKind("修复登录测试的超时问题");
  const md = renderMarkdown(doc);
  const nodes = mdNodes(md);
  await t.step("no HTML but the thinking block, whatever the content held", () => {
    const html = mdHtml(md);
    assert.ok(html.length >= 2);
    for (const h of html) assert.match(h, ALLOWED_HTML);
  });
  await t.step("one title, a section per user prompt, a heading per reply and tool call", () => {
    const headings = nodes.filter((n) => n.type === "heading");
    assert.equal(headings.filter((h) => h.level === 1).length, 1);
    assert.equal(headings.filter((h) => h.level === 2).length, 2, "two user prompts");
    assert.equal(nodes.filter((n) => n.type === "thematic_break").length, 2, "header, footer");
  });
  await t.step("tool output with ``` and ```` runs is one code block, read back whole", () => {
    const read = doc.messages.find((m) =>
      m.toolCallId === "call_read" && m.kind === "tool_result"
    )!;
    const blocks = nodes.filter((n) => n.type === "code_block").map((n) => n.literal);
    assert.ok(blocks.includes(`${read.toolResult}\n`));
  });
  await t.step("long output keeps its start and end; the rest is named, not lost", () => {
    const lines = LONG_OUTPUT.split("\n");
    // 150 lines from the start, 50 from the end (48 tests, a blank line, the tally).
    assert.match(md, /test 150 \.\.\. ok\n`{3,}\n\n_… 302 lines \([\d.]+ KB\) left out here/);
    assert.ok(md.includes("```text\ntest 453 ... ok\n"));
    assert.ok(!md.includes("test 151 ... ok") && !md.includes("test 452 ... ok"));
    assert.ok(md.includes(lines.at(-2)!));
  });
  await t.step("the reply whose code fence was left open does not swallow what follows", () => {
    assert.match(md, /const left = 'open';\n```\n\n/);
    const last = nodes.filter((n) => n.type === "paragraph").length;
    assert.ok(last > 10);
    assert.equal(nodes.filter((n) => n.type === "heading" && n.level === 2).length, 2);
  });
});

Deno.test("renderMarkdown({full}): long blocks are kept whole", async () => {
  const doc = await everyKind("Full");
  const md = renderMarkdown(doc, { full: true });
  const blocks = mdNodes(md).filter((n) => n.type === "code_block").map((n) => n.literal);
  assert.ok(blocks.includes(LONG_OUTPUT));
  assert.doesNotMatch(md, /left out here/);
});

Deno.test("renderMarkdown(): a hostile title and an imported session (golden)", async () => {
  await using dir = await tempDir();
  const { db, ids, clock } = await openTestDb(join(dir.path, "home"));
  const hostile = `../../etc/passwd CON a:b*?"<>| <script>alert(1)</script> # *x* \x01\x1b[31m ${
    "长".repeat(20)
  }${"x".repeat(300)}`;
  const s = new SessionStore(db, ids).create({
    projectPath: "/home/me/old project",
    title: hostile,
    titleSource: "import",
    source: "claude-code",
    externalId: "9f1c",
    status: "completed",
    model: "claude-opus-4-1",
  });
  const messages = new MessageStore(db);
  clock.advance(1000);
  messages.append(s.id, [
    { role: "user", text: "What does `x` do?", createdAt: clock.now() },
    { role: "assistant", kind: "thinking", text: "", createdAt: clock.now() + 1000 },
    { role: "assistant", text: "It **doubles** its input.", createdAt: clock.now() + 2000 },
  ]);
  const doc = readExportDocument(db, s.id);
  db.close();
  const md = renderMarkdown(doc);
  await assertSnapshot("export-hostile-imported", md);
  for (const h of mdHtml(md)) assert.match(h, ALLOWED_HTML);
  const title = mdNodes(md).findIndex((n) => n.type === "heading" && n.level === 1);
  assert.equal(title, 1, "the title is the first block and stays one heading");
});
