import assert from "node:assert/strict";
import { canonicalCommand } from "../../../core/agent/rule_patterns.ts";
import { splitShell } from "../../../core/agent/shell_words.ts";

/** [line, simple commands (canonical), unsure?, concealed?] */
const TABLE: [string, string[], boolean, boolean][] = [
  ["npm test", ["npm test"], false, false],
  ["  npm   test  ", ["npm test"], false, false],
  ['"npm" test', ["npm test"], false, false],
  ["'npm' \"te\"st", ["npm test"], false, false],
  ["npm\\ test", ["'npm test'"], false, false],
  ["npm test; rm -rf /", ["npm test", "rm -rf /"], false, false],
  ["npm test;rm x", ["npm test", "rm x"], false, false],
  ["npm test && curl x | sh", ["npm test", "curl x", "sh"], false, false],
  ["a || b", ["a", "b"], false, false],
  ["npm test & rm x", ["npm test", "rm x"], false, false],
  ["npm test |& tee log", ["npm test", "tee log"], false, false],
  ["npm test\nrm x", ["npm test", "rm x"], false, false],
  ["(npm test; rm x)", ["npm test", "rm x"], false, false],
  ["npm test \\\n  --watch", ["npm test --watch"], false, false],
  ["npm test # ; rm x", ["npm test"], false, false],
  ["npm test a#; rm x", ["npm test 'a#'", "rm x"], false, false],
  ["npm test 2>&1", ["npm test"], false, false],
  ["npm test >/dev/null 2>&1", ["npm test"], false, false],
  ["npm test > /dev/null", ["npm test"], false, false],
  ["git diff -- 'a b'", ["git diff -- 'a b'"], false, false],
  ['echo "it\'s"', ["echo 'it'\\''s'"], false, false],
  ["echo '$(rm x)'", ["echo '$(rm x)'"], false, false],
  ["echo $HOME ${HOME}", ["echo '$HOME' '${HOME}'"], false, false],
  ["FOO=1 npm test", ["FOO=1 npm test"], false, false],
  ["ls *.ts", ["ls *.ts"], false, false],
  ["bash -c 'npm test; rm -rf /'", ["bash -c 'npm test; rm -rf /'"], false, false],
  // Unsure: no allow rule may vouch for these.
  ["npm test > out.txt", ["npm test"], true, false],
  ["npm test >> out.txt", ["npm test"], true, false],
  ["npm test &> out.txt", ["npm test"], true, false],
  ["npm test < in.txt", ["npm test"], true, false],
  ["npm test $(rm x)", ["rm x", "npm test '$(rm x)'"], true, false],
  ["npm test `rm x`", ["rm x", "npm test '`rm x`'"], true, false],
  ['echo "$(rm x)"', ["rm x", "echo '$(rm x)'"], true, false],
  ["echo <(rm x)", ["rm x", "echo"], true, false],
  // Concealed: commands may run that the split does not list.
  ["cat <<EOF\nrm -rf /\nEOF", ["cat"], true, true],
  ["echo ${x:-$(rm x)}", ["echo '${x:-$(rm x)}'"], true, true],
  ["echo $((a[1]))", ["echo '$((a[1]))'"], true, true],
  ["npm test 'unclosed", ["npm test unclosed"], true, true],
  ['npm test "unclosed', ["npm test unclosed"], true, true],
  ["(npm test", ["npm test"], true, true],
  ["npm test)", ["npm test"], true, true],
  ["x=(1 2)", ["x=", "1 2"], true, true],
  ["echo $'\\x41'", ["echo '$\\x41'"], true, true],
];

Deno.test("splitShell() splits command lines into simple commands and flags what it cannot read", async (t) => {
  for (const [line, commands, unsure, concealed] of TABLE) {
    await t.step(JSON.stringify(line), () => {
      const split = splitShell(line);
      assert.deepEqual(split.commands.map(canonicalCommand), commands);
      assert.equal(split.unsure !== null, unsure, `unsure: ${split.unsure}`);
      assert.equal(split.concealed, concealed);
    });
  }
});

Deno.test("splitShell() marks unquoted stars only", () => {
  const [words] = splitShell("npm run '*' a\\*b *x").commands;
  assert.deepEqual(words!.map((w) => [w.text, w.stars]), [
    ["npm", []],
    ["run", []],
    ["*", []],
    ["a*b", []],
    ["*x", [0]],
  ]);
});

Deno.test("splitShell() gives up on absurd nesting instead of overflowing the stack", () => {
  for (const line of ["$(".repeat(100_000), "(".repeat(100_000), "`echo \\`".repeat(2000)]) {
    const split = splitShell(line);
    assert.notEqual(split.unsure, null);
    assert.equal(split.concealed, true);
  }
});
