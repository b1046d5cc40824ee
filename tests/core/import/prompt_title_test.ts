import assert from "node:assert/strict";
import {
  codexPrompt,
  isWarmup,
  slashCommand,
  storedFallback,
  titleFrom,
} from "../../../core/import/prompt_title.ts";

Deno.test("codexPrompt() finds what the person typed under Codex's injected context", async (t) => {
  const cases: [string, string, string | null][] = [
    ["a plain prompt", "  Fix the parser  ", "Fix the parser"],
    ["AGENTS.md instructions", "# AGENTS.md instructions for /w/app\n\n<INSTRUCTIONS>x", null],
    ["environment context", "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>", null],
    ["user instructions", "<user_instructions>\nbe brief\n</user_instructions>", null],
    [
      "files mentioned, then the request",
      "# Files mentioned by the user:\n\n## a.ts: /w/a.ts\n\n## My request for Codex:\nAdd tests\n",
      "Add tests",
    ],
    [
      "the desktop app's shorter heading",
      "# Files mentioned by the user:\n\n## shot.png: C:/t/shot.png\n\n## My request:\nWhy?",
      "Why?",
    ],
    [
      "IDE context",
      "# Context from my IDE setup:\n\n## Active file: a.ts\n\n## My request for Codex:\nRename it",
      "Rename it",
    ],
    ["a preamble without a request", "# Files mentioned by the user:\n\n## a.ts: /w/a.ts", null],
    ["an empty request", "# Context from my IDE setup:\n\n## My request for Codex:\n  ", null],
    ["blank", "   ", null],
    ["a heading the person wrote", "# Plan\nShip it", "# Plan\nShip it"],
  ];
  for (const [name, text, expected] of cases) {
    await t.step(name, () => assert.equal(codexPrompt(text), expected));
  }
});

Deno.test("slashCommand() reads Claude Code's slash-command markup, old and new", async (t) => {
  const cases: [string, string | null][] = [
    [
      "<command-message>init is analyzing your codebase…</command-message>\n<command-name>/init</command-name>",
      "/init",
    ],
    [
      "<command-name>/init</command-name>\n<command-message>init</command-message>\n<command-args></command-args>",
      "/init",
    ],
    [
      "<command-name>/review</command-name>\n<command-args>  PR  123 </command-args>",
      "/review PR 123",
    ],
    ["<command-name>compact</command-name>", "/compact"],
    ["<local-command-stdout>x</local-command-stdout>", null],
    ["Fix the bug", null],
  ];
  for (const [text, expected] of cases) {
    await t.step(JSON.stringify(expected), () => assert.equal(slashCommand(text), expected));
  }
});

Deno.test("titleFrom() takes the first line, cut at a word near 60 characters", () => {
  assert.equal(titleFrom("\n\n  Fix   the parser \nmore"), "Fix the parser");
  const long = titleFrom("word ".repeat(30));
  assert.ok(long.endsWith("…") && long.length <= 61, long);
  assert.equal(isWarmup(" Warmup\n"), true);
  assert.equal(isWarmup("Warm up the cache"), false);
});

Deno.test("storedFallback() recognises a stored fallback title by its form", () => {
  assert.equal(storedFallback("/init"), 1);
  assert.equal(storedFallback("/review PR 123"), 1);
  assert.equal(storedFallback("Sub-agent warm-up (no prompt)"), 3);
  assert.equal(storedFallback("Fix the /init command"), 0);
  assert.equal(storedFallback("/ is the root"), 0);
});
