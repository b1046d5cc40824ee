import assert from "node:assert/strict";
import { clip, type ClipLimits } from "../../../core/export/clip.ts";

const SMALL: ClipLimits = { headLines: 3, tailLines: 2, headChars: 40, tailChars: 20 };
const lines = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `line ${i + from}`);

Deno.test("clip(): short text is kept whole; long text keeps its start and end", async (t) => {
  const cases: {
    name: string;
    text: string;
    head: string;
    tail: string | null;
    omittedLines: number;
  }[] = [
    { name: "empty", text: "", head: "", tail: null, omittedLines: 0 },
    {
      name: "exactly head + tail lines",
      text: lines(5).join("\n"),
      head: lines(5).join("\n"),
      tail: null,
      omittedLines: 0,
    },
    {
      name: "one line too many",
      text: lines(6).join("\n"),
      head: `${lines(3).join("\n")}\n`,
      tail: lines(2, 5).join("\n"),
      omittedLines: 1,
    },
    {
      name: "trailing newline ends the last line",
      text: `${lines(10).join("\n")}\n`,
      head: `${lines(3).join("\n")}\n`,
      tail: `${lines(2, 9).join("\n")}\n`,
      omittedLines: 5,
    },
    {
      name: "one very long line is cut inside it",
      text: "x".repeat(100),
      head: "x".repeat(40),
      tail: "x".repeat(20),
      omittedLines: 1,
    },
    {
      name: "a long first line, then short ones",
      text: ["y".repeat(50), ...lines(8)].join("\n"),
      head: "y".repeat(40),
      tail: lines(2, 7).join("\n"),
      omittedLines: 7,
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const r = clip(c.text, SMALL);
      assert.equal(r.head, c.head);
      assert.equal(r.tail, c.tail);
      assert.equal(r.omittedLines, c.omittedLines);
      if (r.tail !== null) {
        const middle = c.text.slice(r.head.length, c.text.length - r.tail.length);
        assert.equal(r.omittedBytes, new TextEncoder().encode(middle).length);
        assert.equal(r.head + middle + r.tail, c.text, "head + left out + tail is the text");
      }
    });
  }
});

Deno.test("clip(): never splits a character made of two UTF-16 units", () => {
  const text = "😀".repeat(100);
  const r = clip(text, SMALL);
  assert.doesNotMatch(
    r.head + r.tail,
    /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/,
  );
  assert.ok(r.head.length <= 40 && r.tail!.length <= 20);
});
