import assert from "node:assert/strict";
import { join } from "node:path";
import {
  createRedactor,
  envReference,
  isSecretEnvName,
  learnSettingSecret,
  NOT_SECRET_ENV,
  referencedSecretValues,
  secretForms,
  secretValuesFromEnv,
} from "../../core/secrets.ts";
import { MessageStore } from "../../core/storage/messages.ts";
import { SessionStore } from "../../core/storage/sessions.ts";
import { openTestDb } from "../support/db.ts";
import { tempDir } from "../support/temp.ts";

const KEYS = {
  anthropic:
    "sk-ant-api03-Zx9yQ3kP0aLmN7bVcX2sD4fG6hJ8kL1qW3eR5tY7uI9oP0aS2dF4gH6jK8lZ0xC2vB4nM6qW8eR0tY2uI4oP6aS8dF0gH2jK4lZ6xC8vB0nM2-AbCdEfAA",
  openai: "sk-proj-Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Bc1Ef3Hi5Kl7No9Qr1Tu3Wx5Za7Cd9Fg1Ij3Lm5Op7Rs9Uv1Xy3",
  openaiLegacy: "sk-Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Bc1Ef3Hi5Kl7No9",
  github: "ghp_Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Bc1Ef3Hi5K",
  githubPat:
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ012345",
  awsId: "AKIAIOSFODNN7EXAMPLE",
  awsSecret: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  bearer:
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
  slack: "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
  bonsai: "bonsai_Q2hlY2tJdElzTm90QVJlYWxUb2tlbkJ1dEl0TG9va3NMaWtlT25l",
  privateKeyBody:
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKjMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvuNMoSfm76oqFvAp8Gy0iz5sxjZmSnXyCdPEovGhLa0VzMaQ8s+CLOyS56YyCFGeJZ",
};

const PRIVATE_KEY =
  `-----BEGIN PRIVATE KEY-----\n${KEYS.privateKeyBody}\n-----END PRIVATE KEY-----`;

Deno.test("createRedactor() removes every known key format", () => {
  const r = createRedactor();
  const text = [
    `ANTHROPIC_API_KEY=${KEYS.anthropic}`,
    `openai: ${KEYS.openai} and ${KEYS.openaiLegacy}`,
    `git remote https://${KEYS.github}@github.com/x/y and ${KEYS.githubPat}`,
    `aws_access_key_id = ${KEYS.awsId}`,
    `aws_secret_access_key = ${KEYS.awsSecret}`,
    `curl -H "Authorization: Bearer ${KEYS.bearer}"`,
    `slack ${KEYS.slack}`,
    `bonsai serve token ${KEYS.bonsai}`,
    PRIVATE_KEY,
  ].join("\n");
  const out = r.redact(text);
  for (const [name, key] of Object.entries(KEYS)) {
    assert.ok(!out.includes(key), `${name} leaked:\n${out}`);
  }
  assert.match(out, /ANTHROPIC_API_KEY=\[REDACTED:anthropic-key\]/);
  assert.match(out, /aws_secret_access_key = \[REDACTED:aws-secret-key\]/);
  assert.match(out, /Bearer \[REDACTED:(?:jwt|bearer-token)\]/);
  assert.equal(
    r.redact("Authorization: Bearer abcdefghijklmnopqrstuvwx"),
    "Authorization: Bearer [REDACTED:bearer-token]",
  );
  assert.match(out, /\[REDACTED:private-key\]/);
  assert.match(out, /bonsai serve token \[REDACTED:bonsai-token\]/);
  assert.equal(
    r.redact("plain words, sk-short, bearer of news"),
    "plain words, sk-short, bearer of news",
  );
});

Deno.test("secretValuesFromEnv() picks secret-looking variables and BONSAI_REDACT_ENV", () => {
  const values = secretValuesFromEnv({
    MY_SERVICE_TOKEN: "tok-1234567890",
    DATABASE_PASSWORD: "hunter2hunter2",
    CUSTOM_THING: "custom-secret-value",
    BONSAI_REDACT_ENV: "CUSTOM_THING",
    PATH: "/usr/bin:/bin",
    SHORT_TOKEN: "abc",
  });
  assert.deepEqual(values.sort(), ["custom-secret-value", "hunter2hunter2", "tok-1234567890"]);
  const r = createRedactor({ values });
  assert.equal(r.redact("pw is hunter2hunter2!"), "pw is [REDACTED:secret]!");
});

Deno.test("no key written through the storage layer reaches the raw database bytes", async () => {
  await using dir = await tempDir();
  const envSecret = "zq-very-private-value-0987654321";
  const { db, ids } = await openTestDb(dir.path, {
    redactor: createRedactor({ values: [envSecret] }),
  });
  const sessions = new SessionStore(db, ids);
  const messages = new MessageStore(db);
  const s = sessions.create({ projectPath: "/p", title: `title with ${KEYS.github}` });
  const all = [...Object.values(KEYS), envSecret];
  messages.append(s.id, [
    // A bare AWS secret key is indistinguishable from any base64 string; it is recognised by its label.
    {
      role: "user",
      text: `here are keys: ${
        all.filter((k) => k !== KEYS.privateKeyBody).join(" ")
          .replace(KEYS.awsSecret, `aws_secret_access_key=${KEYS.awsSecret}`)
      }\n${PRIVATE_KEY}`,
    },
    {
      role: "assistant",
      kind: "tool_call",
      text: "exec",
      toolName: "exec",
      toolArgs: JSON.stringify({ command: `echo ${KEYS.openai}` }),
    },
    {
      role: "tool",
      kind: "tool_result",
      text: "",
      toolResult: `OPENAI_API_KEY=${KEYS.openai}\n${envSecret}`,
    },
  ]);
  messages.put(s.id, 2, {
    role: "assistant",
    text: `streamed ${KEYS.anthropic}`,
    status: "streaming",
  });
  sessions.rename(s.id, `renamed ${KEYS.awsId}`);
  sessions.end(s.id, "failed", "error", `failed with ${KEYS.slack}`);
  db.close();
  let haystack = "";
  for (const name of Deno.readDirSync(dir.path)) {
    if (name.isFile) {
      haystack += new TextDecoder("latin1").decode(await Deno.readFile(join(dir.path, name.name)));
    }
  }
  assert.ok(haystack.length > 0);
  for (const key of all) {
    // Long keys are checked by a distinctive middle part too, in case of page splits.
    for (const probe of [key, key.slice(8, 28)]) {
      assert.ok(!haystack.includes(probe), `found '${probe}' in the raw database file`);
    }
  }
});

Deno.test("createRedactor() redacts each format on its own (the clean-text shortcut misses none)", () => {
  const r = createRedactor();
  const alone: [string, string][] = [
    [PRIVATE_KEY, "private-key"],
    [`key ${KEYS.anthropic}`, "anthropic-key"],
    [`key ${KEYS.openai}`, "openai-key"],
    [`token ${KEYS.github}`, "github-token"],
    [`token ${KEYS.githubPat}`, "github-token"],
    [`id ${KEYS.awsId}`, "aws-access-key"],
    [`AWS_SECRET_ACCESS_KEY=${KEYS.awsSecret}`, "aws-secret-key"],
    [`"SecretAccessKey": "${KEYS.awsSecret}"`, "aws-secret-key"],
    [`slack ${KEYS.slack}`, "slack-token"],
    ["maps AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q", "google-api-key"],
    ["stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc", "stripe-key"],
    ["stripe rk_test_4eC39HqLyjWDarjtT1zdp7dc", "stripe-key"],
    [`jwt ${KEYS.bearer}`, "jwt"],
    ["BEARER abcdefghijklmnopqrstuvwx", "REDACTED"],
    ["bearer abcdefghijklmnopqrstuvwx", "bearer-token"],
    ["X-Api-Key: abcdefghijklmnopqrstuvwxyz0123", "api-key-header"],
    ["AUTHORIZATION=abcdefghijklmnopqrstuvwxyz0123", "api-key-header"],
  ];
  for (const [text, label] of alone) {
    const out = r.redact(text);
    if (label === "REDACTED") {
      // Upper-case BEARER is not the bearer format; it must come through unchanged.
      assert.equal(out, text);
      continue;
    }
    assert.ok(out.includes(`[REDACTED:${label}]`), `${label} not redacted: ${out}`);
  }
});

Deno.test("isSecretEnvName() marks KEY, TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL, AUTH anywhere", async (t) => {
  const cases: [name: string, secret: boolean][] = [
    // Today's suffixes still count.
    ["OPENAI_API_KEY", true],
    ["GITHUB_TOKEN", true],
    ["CLIENT_SECRET", true],
    ["AWS_SECRET_ACCESS_KEY", true],
    ["DATABASE_PASSWORD", true],
    ["SSH_PRIVATE_KEY", true],
    // In the middle, at the start, in any case.
    ["CI_SECRET_VALUE", true],
    ["GH_TOKEN_CI", true],
    ["TOKEN_FOR_DEPLOY", true],
    ["KEY", true],
    ["my_api_key", true],
    ["Db_Passwd_Prod", true],
    ["MYSQL_PWD_PASSWD", true],
    ["GOOGLE_APPLICATION_CREDENTIALS", true],
    ["AZURE_CREDENTIAL_BLOB", true],
    ["OAUTH_CLIENT", true],
    ["PROXY_AUTHORIZATION", true],
    ["BASIC_AUTH", true],
    ["MONKEYPATCH_MODE", true], // the rule is a substring rule: erring towards redaction
    // Not secret-looking.
    ["PATH", false],
    ["HOME", false],
    ["OPENAI_BASE_URL", false],
    ["BONSAI_REDACT_ENV", false],
    ["PASS", false],
    ["CRED", false],
    ["GIT_COMMITTER_NAME", false],
    // The documented exceptions, in any case.
    ["SSH_AUTH_SOCK", false],
    ["XAUTHORITY", false],
    ["XAUTHLOCALHOSTNAME", false],
    ["GIT_AUTHOR_NAME", false],
    ["GIT_AUTHOR_EMAIL", false],
    ["GIT_AUTHOR_DATE", false],
    ["git_author_name", false],
    // Only those exact names: near misses are still secret.
    ["GIT_AUTHOR_TOKEN", true],
    ["SSH_AUTH_SOCK_KEY", true],
  ];
  for (const [name, secret] of cases) {
    await t.step(`${name} -> ${secret}`, () => assert.equal(isSecretEnvName(name), secret));
  }
  await t.step("the exception list stays tiny", () => assert.equal(NOT_SECRET_ENV.size, 6));
});

Deno.test("secretValuesFromEnv() skips short values and the exceptions, unless BONSAI_REDACT_ENV names them", () => {
  const env = {
    CI_SECRET_VALUE: "ci-secret-value-123",
    GH_TOKEN_CI: "gh-token-ci-4567890",
    KEYTIMEOUT: "1",
    TOKENIZERS_PARALLELISM: "false",
    SSH_AUTH_SOCK: "/tmp/ssh-XXXXabcd/agent.1234",
    XAUTHORITY: "/home/jane/.Xauthority",
    XAUTHLOCALHOSTNAME: "localhost",
    GIT_AUTHOR_NAME: "Jane Developer",
    GIT_AUTHOR_EMAIL: "jane@example.com",
    GIT_AUTHOR_DATE: "2024-05-01T10:00:00Z",
  };
  assert.deepEqual(secretValuesFromEnv(env).sort(), ["ci-secret-value-123", "gh-token-ci-4567890"]);
  assert.deepEqual(
    secretValuesFromEnv({ ...env, BONSAI_REDACT_ENV: "GIT_AUTHOR_EMAIL, XAUTHORITY" }).sort(),
    ["/home/jane/.Xauthority", "ci-secret-value-123", "gh-token-ci-4567890", "jane@example.com"],
  );
  const r = createRedactor({ values: secretValuesFromEnv(env) });
  const text =
    "Jane Developer <jane@example.com> at http://localhost:8080 via /tmp/ssh-XXXXabcd/agent.1234";
  assert.equal(r.redact(text), text, "everyday text is left alone");
});

Deno.test("createRedactor() literal values: learned later, JSON-escaped too, longest first, short ones ignored", async (t) => {
  const cases: {
    name: string;
    values: string[];
    added?: string[];
    input: string;
    output: string;
  }[] = [
    {
      name: "a value given at creation",
      values: ["hunter2hunter2"],
      input: "pw=hunter2hunter2;",
      output: "pw=[REDACTED:secret];",
    },
    {
      name: "a value added after creation",
      values: [],
      added: ["added-later-0001"],
      input: "x added-later-0001 y",
      output: "x [REDACTED:secret] y",
    },
    {
      name: "values under 8 characters are never learned",
      values: ["short"],
      added: ["1234567"],
      input: "short 1234567",
      output: "short 1234567",
    },
    {
      name: "a value inside another is replaced whole",
      values: ["abcdefgh"],
      added: ["abcdefgh-and-more"],
      input: "abcdefgh-and-more abcdefgh",
      output: "[REDACTED:secret] [REDACTED:secret]",
    },
    {
      name: "a value with a quote, as a JSON column holds it",
      values: ['pa"ss\\word!'],
      input: JSON.stringify({ command: 'echo pa"ss\\word!' }),
      output: '{"command":"echo [REDACTED:secret]"}',
    },
    {
      name: "the same value JSON-encoded twice (tool arguments inside a stored message)",
      values: ['pa"ss\\word!'],
      input: JSON.stringify({ arguments: JSON.stringify({ command: 'echo pa"ss\\word!' }) }),
      output: JSON.stringify({ arguments: '{"command":"echo [REDACTED:secret]"}' }),
    },
    {
      name: "key formats still go after literal values",
      values: ["literal-secret-1"],
      input: "literal-secret-1 ghp_Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Bc1Ef3Hi5K",
      output: "[REDACTED:secret] [REDACTED:github-token]",
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const r = createRedactor({ values: c.values });
      r.addValues(c.added ?? []);
      assert.equal(r.redact(c.input), c.output);
    });
  }
  await t.step("secretForms() lists each spelling once, longest first", () => {
    assert.deepEqual(secretForms("plainvalue"), ["plainvalue"]);
    assert.deepEqual(secretForms('a"bcdefgh'), ['a\\\\\\"bcdefgh', 'a\\"bcdefgh', 'a"bcdefgh']);
  });
});

Deno.test("envReference() and referencedSecretValues() read env:NAME references from settings", async (t) => {
  const cases: [value: unknown, name: string | null][] = [
    ["env:MY_KEY", "MY_KEY"],
    ['"env:MY_KEY"', "MY_KEY"], // the JSON text the settings table stores
    ["env:_lower_ok1", "_lower_ok1"],
    ["env:", null],
    ["env:1ABC", null],
    ["env:MY KEY", null],
    ["MY_KEY", null],
    ['"env:MY_KEY', null],
    [42, null],
    [null, null],
    ["sk-ant-not-a-reference", null],
  ];
  for (const [value, name] of cases) {
    await t.step(
      `${JSON.stringify(value)} -> ${name}`,
      () => assert.equal(envReference(value), name),
    );
  }
  await t.step("values behind references; unset or empty variables give nothing", () => {
    const env = { LLM_ACCESS: "access-value-123", EMPTY: "", OTHER: "other-value-456" };
    assert.deepEqual(
      referencedSecretValues(env, ['"env:LLM_ACCESS"', '"env:EMPTY"', '"env:UNSET"', "40"]),
      ["access-value-123"],
    );
  });
  await t.step("learnSettingSecret() teaches the redactor a newly saved reference", () => {
    const r = createRedactor();
    const env = { LLM_ACCESS: "access-value-123", SHORT: "abc" };
    assert.equal(r.redact("k=access-value-123"), "k=access-value-123");
    assert.equal(learnSettingSecret(r, { env, value: "env:LLM_ACCESS" }), true);
    assert.equal(r.redact("k=access-value-123"), "k=[REDACTED:secret]");
    assert.equal(learnSettingSecret(r, { env, value: "env:SHORT" }), false);
    assert.equal(learnSettingSecret(r, { env, value: "10m" }), false);
  });
});
