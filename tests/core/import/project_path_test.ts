import assert from "node:assert/strict";
import { decodeClaudeFolder, projectPathOf } from "../../../core/import/project_path.ts";

Deno.test("projectPathOf() keeps POSIX paths as written and gives Windows paths one form", async (t) => {
  const cases: [string | null | undefined, string | null][] = [
    ["/home/dev/app", "/home/dev/app"],
    ["/home/dev/app/", "/home/dev/app/"], // POSIX paths stay exactly as today
    ["  /srv/x  ", "/srv/x"],
    ["D:\\work\\app", "D:\\work\\app"],
    ["d:\\work\\app\\", "D:\\work\\app"],
    ["C:/Users/dev/app", "C:\\Users\\dev\\app"],
    ["C:\\\\Users\\\\dev", "C:\\Users\\dev"],
    ["E:\\", "E:\\"],
    ["E:", "E:\\"],
    ["\\\\?\\D:\\long\\path", "D:\\long\\path"],
    ["\\\\?\\UNC\\server\\share\\dir", "\\\\server\\share\\dir"],
    ["\\\\server\\share\\dir\\", "\\\\server\\share\\dir"],
    ["relative/dir", null],
    ["work\\app", null],
    ["", null],
    [null, null],
    [undefined, null],
  ];
  for (const [cwd, expected] of cases) {
    await t.step(`${JSON.stringify(cwd)} -> ${JSON.stringify(expected)}`, () => {
      assert.equal(projectPathOf(cwd), expected);
    });
  }
});

Deno.test("decodeClaudeFolder() reads Claude Code's encoded folder names, POSIX and Windows", () => {
  assert.equal(decodeClaudeFolder("-home-me-app"), "/home/me/app");
  assert.equal(decodeClaudeFolder("C--Users-me-app"), "C:\\Users\\me\\app");
  assert.equal(decodeClaudeFolder("plain"), "/plain");
});
