import assert from "node:assert/strict";
import { join } from "node:path";
import { createRedactor, secretValuesFromEnv } from "../../core/secrets.ts";
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
