import assert from "node:assert/strict";
import { exitCodeOf, toolOutputText } from "../../../core/import/tool_output.ts";

Deno.test("toolOutputText() stores a tool output as the text people read", async (t) => {
  const cases: [string, unknown, string][] = [
    ["a plain string", "README.md\nsrc\n", "README.md\nsrc\n"],
    [
      "content items (an MCP search)",
      [{ type: "input_text", text: "Found 2 results" }, { type: "input_text", text: "1. a\n2. b" }],
      "Found 2 results\n1. a\n2. b",
    ],
    [
      "an image among the items",
      [{ type: "input_text", text: "see" }, { type: "input_image", image_url: "data:..." }],
      "see\n[image]",
    ],
    ["an empty array", [], ""],
    ["an object with content", { content: "done", success: true }, "done"],
    [
      "the older shell JSON, rendered as Codex shows it",
      JSON.stringify({ output: "ok\n", metadata: { exit_code: 0, duration_seconds: 0.5 } }),
      "Exit code: 0\nWall time: 0.5 seconds\nOutput:\nok\n",
    ],
    ["JSON that is not the shell's", '{"agent_id":"x"}', '{"agent_id":"x"}'],
    ["nothing", undefined, ""],
  ];
  for (const [name, output, expected] of cases) {
    await t.step(name, () => assert.equal(toolOutputText(output), expected));
  }
});

Deno.test("exitCodeOf() reads the exit code of Codex's plain-text and JSON outputs", async (t) => {
  const cases: [string, string, number | null][] = [
    ["shell_command", "Exit code: 1\nWall time: 0.4 seconds\nOutput:\nerror TS2322", 1],
    ["shell_command, success", "Exit code: 0\nWall time: 0 seconds\nOutput:\nok", 0],
    [
      "exec_command",
      "Chunk ID: 4f2a1c\nWall time: 1.0021 seconds\nProcess exited with code 2\n" +
      "Original token count: 37\nOutput:\nFAIL",
      2,
    ],
    [
      "exec_command still running",
      "Chunk ID: 4f2a1c\nWall time: 10.0000 seconds\nProcess running with session ID 7\n" +
      "Original token count: 3\nOutput:\n...",
      null,
    ],
    ["a negative code (a signal)", "Exit code: -1\nOutput:\n", -1],
    [
      "only the header counts",
      "Exit code: 0\nWall time: 1 seconds\nOutput:\nExit code: 1\nProcess exited with code 3",
      0,
    ],
    ["program output alone", "tests failed\nExit code: 1 was expected", null],
    ["JSON metadata", '{"output":"x","metadata":{"exit_code":3,"duration_seconds":1}}', 3],
    ["truncated JSON", '{"output":"x","metadata":{"exit_code":4,"durat', 4],
    ["a search result", "Found 2 results", null],
  ];
  for (const [name, text, expected] of cases) {
    await t.step(name, () => assert.equal(exitCodeOf(text), expected));
  }
});
