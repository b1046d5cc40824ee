import assert from "node:assert/strict";
import {
  cleanText,
  codeBlock,
  containedMarkdown,
  escapeInline,
  inlineCode,
} from "../../../core/export/markdown_text.ts";
import { mdHtml, mdNodes, mdText } from "../../support/commonmark.ts";

const HOSTILE = [
  "plain",
  "```",
  "````\nfour\n````",
  "a ``` b ```` c ````` d",
  "~~~\ntilde fence\n~~~",
  "`",
  "ends with `",
  "    indented",
  "</details>\n<script>alert(1)</script>",
  "",
  "\n\nblank lines\n\n",
  "中文 `代码` 내용",
];

Deno.test("codeBlock(): no content closes the block early; the parser gets the text back whole", async (t) => {
  for (const text of HOSTILE) {
    await t.step(JSON.stringify(text), () => {
      const md = `${codeBlock(text, "text")}\n\nafter`;
      const nodes = mdNodes(md);
      const blocks = nodes.filter((n) => n.type === "code_block");
      assert.equal(blocks.length, 1);
      assert.equal(blocks[0]!.literal, text === "" || text.endsWith("\n") ? text : `${text}\n`);
      assert.equal(blocks[0]!.info, "text");
      assert.deepEqual(nodes.at(-1), { type: "text", literal: "after", level: null, info: null });
    });
  }
});

Deno.test("codeBlock(): the fence is one backtick longer than the longest run inside", () => {
  assert.ok(codeBlock("x").startsWith("```\n"));
  assert.ok(codeBlock("a ```` b").startsWith("`````\n"));
  assert.ok(codeBlock("x", "ts").startsWith("```ts\n"));
  assert.ok(
    codeBlock("x", "a`b c").startsWith("```abc\n"),
    "an info string cannot hold a backtick",
  );
});

Deno.test("inlineCode(): a code span that reads back as the text, whatever backticks it holds", async (t) => {
  for (const text of ["a", "`", "``x``", "a ` b", " lead", "trail ", " both ", "`edge`", "x\ny"]) {
    await t.step(JSON.stringify(text), () => {
      const code = mdNodes(`see ${inlineCode(text)} here`).filter((n) => n.type === "code");
      assert.equal(code.length, 1);
      assert.equal(code[0]!.literal, text.replace(/\n/g, " "));
    });
  }
});

Deno.test("escapeInline(): text renders as itself, never as syntax or HTML", async (t) => {
  const cases: [string, string][] = [
    ["# not a heading", "# not a heading"],
    ["1. not a list", "1. not a list"],
    ["- not a list", "- not a list"],
    ["+ nor this", "+ nor this"],
    ["> not a quote", "> not a quote"],
    ["*not em* _nor this_", "*not em* _nor this_"],
    ["[not](a link)", "[not](a link)"],
    ["<script>alert(1)</script>", "<script>alert(1)</script>"],
    ["a | b ~~c~~ &amp;", "a | b ~~c~~ &amp;"],
    ["back\\slash `tick`", "back\\slash `tick`"],
    ["multi\nline\ttext", "multi line text"],
    ["修复 登录", "修复 登录"],
  ];
  for (const [input, shown] of cases) {
    await t.step(input, () => {
      const md = escapeInline(input);
      assert.deepEqual(mdHtml(md), []);
      // The parser splits text at escapes: every node under the paragraph is still text.
      const types = mdNodes(md).map((n) => n.type);
      assert.deepEqual(types.slice(0, 2), ["document", "paragraph"]);
      assert.deepEqual([...new Set(types.slice(2))], ["text"]);
      assert.equal(mdText(md), shown);
    });
  }
});

Deno.test("containedMarkdown(): Markdown stays Markdown, raw HTML is shown as text", async (t) => {
  await t.step("HTML outside code is escaped, inside code spans and fences it is kept", () => {
    const md = containedMarkdown(
      "Hello <b>bold</b> and `<i>code</i>`\n\n<div>\nblock\n</div>\n\n```html\n<p>kept</p>\n```",
    );
    assert.deepEqual(mdHtml(md), []);
    assert.match(mdText(md), /Hello <b>bold<\/b> and <i>code<\/i>/);
    const block = mdNodes(md).find((n) => n.type === "code_block")!;
    assert.equal(block.literal, "<p>kept</p>\n");
  });
  await t.step("autolinks stay links", () => {
    const md = containedMarkdown("see <https://example.com/a?b=1>");
    assert.deepEqual(mdNodes(md).map((n) => n.type), [
      "document",
      "paragraph",
      "text",
      "link",
      "text",
    ]);
  });
  await t.step("a fence left open is closed, so what follows is not swallowed", () => {
    const md = `${containedMarkdown("Done.\n\n```ts\nconst open = 1;")}\n\n## Next`;
    const nodes = mdNodes(md);
    assert.equal(nodes.find((n) => n.type === "code_block")!.literal, "const open = 1;\n");
    assert.ok(nodes.some((n) => n.type === "heading" && n.level === 2));
  });
  await t.step("a longer fence is closed by its own length, not by a shorter run", () => {
    const md = `${containedMarkdown("````\n```\nstill code\n")}\n\nafter`;
    const nodes = mdNodes(md);
    assert.equal(nodes.find((n) => n.type === "code_block")!.literal, "```\nstill code\n");
    assert.equal(nodes.at(-1)!.literal, "after");
  });
  await t.step("tilde fences are tracked too", () => {
    const md = `${containedMarkdown("~~~\n<b>x</b>")}\n\nafter`;
    assert.equal(mdNodes(md).find((n) => n.type === "code_block")!.literal, "<b>x</b>\n");
    assert.equal(mdNodes(md).at(-1)!.literal, "after");
  });
});

Deno.test("cleanText(): CRLF, terminal colours and control characters do not reach the file", () => {
  assert.equal(cleanText("a\r\nb\rc"), "a\nb\nc");
  assert.equal(cleanText("\x1b[31mred\x1b[0m \x1b]0;title\x07ok"), "red ok");
  assert.equal(cleanText("nul\x00bell\x07tab\tok"), "nul\ufffdbell\ufffdtab\tok");
  assert.equal(cleanText("lone \ud800 half"), "lone \ufffd half");
  assert.equal(cleanText("pair 😀 kept"), "pair 😀 kept");
});
