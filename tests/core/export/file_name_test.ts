import assert from "node:assert/strict";
import { exportFileName, MAX_TITLE_BYTES, safeTitle } from "../../../core/export/file_name.ts";

const bytes = (s: string) => new TextEncoder().encode(s).length;
const WINDOWS_DEVICES = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)$/i;

/** A file name every one of Linux, macOS and Windows accepts as an ordinary file. */
function assertPortable(name: string): void {
  assert.ok(name.length > 0, "not empty");
  assert.ok(bytes(name) <= 200, `${bytes(name)} bytes is well under 255`);
  assert.doesNotMatch(name, /[<>:"/\\|?*]/, "no separator or reserved character");
  // deno-lint-ignore no-control-regex
  assert.doesNotMatch(name, /[\x00-\x1f\x7f-\x9f]/, "no control character");
  assert.doesNotMatch(
    name.replace(/[\u200c\u200d]/g, ""),
    /[\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u,
    "no invisible format character but the joiners",
  );
  assert.doesNotMatch(name, /[. ]$/, "no trailing dot or space");
  assert.ok(name !== "." && name !== "..");
  assert.doesNotMatch(name.split(".")[0]!, WINDOWS_DEVICES, "not a Windows device name");
  assert.equal(name, name.normalize("NFC"));
}

Deno.test("safeTitle(): titles become portable file names, keeping what can be kept", async (t) => {
  const cases: [string, string][] = [
    ["Fix the login test", "Fix-the-login-test"],
    ["修复登录测试的超时问题", "修复登录测试的超时问题"],
    ["日本語のタイトル 한국어", "日本語のタイトル-한국어"],
    ["你好\u3000世界", "你好-世界"],
    ["../../etc/passwd", "etc-passwd"],
    ["..\\..\\windows\\system32", "windows-system32"],
    ["CON", "CON_"],
    ["con.txt", "con_.txt"],
    ["lpt9", "lpt9_"],
    ["COM1 port", "COM1-port"],
    ["Console", "Console"],
    ['a:b*?"<>|', "a-b"],
    ["tab\tand\nnew\r\nline", "tab-and-new-line"],
    ["nul\x00bell\x07del\x7fend", "nul-bell-del-end"],
    ["\u202eevil\u200b.exe", "evil-.exe"],
    ["trailing dots...", "trailing-dots"],
    ["  spaced  out  ", "spaced-out"],
    [".hidden", "hidden"],
    ["e\u0301te\u0301", "été"],
    ["emoji 👩‍💻 ok", "emoji-👩‍💻-ok"],
    ["50% off: 1/2 price?", "50%-off-1-2-price"],
    ["", "untitled"],
    ["   ", "untitled"],
    ["...", "untitled"],
    ["/\\:*?", "untitled"],
  ];
  for (const [title, expected] of cases) {
    await t.step(JSON.stringify(title), () => {
      const name = safeTitle(title);
      assert.equal(name, expected);
      assertPortable(name);
    });
  }
});

Deno.test("safeTitle(): long titles are cut to MAX_TITLE_BYTES between whole characters", async (t) => {
  const cases: [string, string][] = [
    ["ascii", "a".repeat(300)],
    ["CJK (3 bytes each)", "长".repeat(300)],
    ["emoji (4 bytes, some joined)", "👩‍💻🎉".repeat(100)],
    ["combining marks", "e\u0301\u0302".repeat(100)],
    ["ends on a separator after the cut", `${"a".repeat(99)} tail`],
  ];
  for (const [what, title] of cases) {
    await t.step(what, () => {
      const name = safeTitle(title);
      assert.ok(bytes(name) <= MAX_TITLE_BYTES, `${bytes(name)} bytes`);
      assert.ok(bytes(name) > MAX_TITLE_BYTES - 12, "keeps as much as fits");
      assert.ok(safeTitle(title).startsWith(name.slice(0, 10)));
      assert.ok(
        title.normalize("NFC").replace(/ /g, "-").startsWith(name),
        "a prefix of the title",
      );
      assertPortable(name);
    });
  }
  assert.equal(safeTitle("长".repeat(300)), "长".repeat(33));
});

Deno.test("exportFileName(): <UTC date>-<title>-<first 8 of id>.md, the same for the same session", () => {
  const session = {
    id: "01m8ntxdm059qwzekjdevv5ghd",
    title: "Fix the login test",
    createdAt: Date.UTC(2026, 10, 30, 23, 59, 59),
  };
  assert.equal(exportFileName(session), "2026-11-30-Fix-the-login-test-01m8ntxd.md");
  assert.equal(exportFileName({ ...session }), exportFileName(session), "stable");
  // The day is UTC's whatever the local zone: a late evening in UTC is still that day.
  assert.equal(
    exportFileName({ ...session, createdAt: Date.UTC(2026, 11, 1, 0, 0, 0) }).slice(0, 10),
    "2026-12-01",
  );
  for (
    const title of [
      "CON",
      "../../etc/passwd",
      'a:b*?"<>|',
      "\x01\x02",
      "x".repeat(300),
      "长".repeat(300),
    ]
  ) {
    const name = exportFileName({ ...session, title });
    assertPortable(name);
    assert.ok(bytes(name) <= MAX_TITLE_BYTES + 25);
    assert.match(name, /^2026-11-30-.+-01m8ntxd\.md$/);
  }
});
