import type { Env } from "./home.ts";

/** Removes credentials from text before it is persisted or exported. */
export interface Redactor {
  /** The text with every known key format and configured secret value replaced. */
  redact(text: string): string;
  /** Like redact, for optional values. */
  redactOptional(text: string | null | undefined): string | null;
}

interface Pattern {
  readonly name: string;
  readonly regex: RegExp;
  /** The pattern's first group is a label to keep; the second is the secret. */
  readonly labelled?: true;
}

// Ordered: more specific formats first so a label names the right kind.
const PATTERNS: readonly Pattern[] = [
  {
    name: "private-key",
    regex:
      /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)/g,
  },
  { name: "anthropic-key", regex: /\bsk-ant-[A-Za-z0-9_-]{16,}/g },
  { name: "openai-key", regex: /\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}/g },
  { name: "github-token", regex: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})/g },
  { name: "aws-access-key", regex: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g },
  {
    name: "aws-secret-key",
    regex: /((?:aws_secret_access_key|SecretAccessKey)["']?\s*[:=]\s*["']?)([A-Za-z0-9/+=]{40})/gi,
    labelled: true,
  },
  { name: "slack-token", regex: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { name: "google-api-key", regex: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { name: "stripe-key", regex: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{20,}/g },
  { name: "jwt", regex: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{10,}/g },
  { name: "bearer-token", regex: /(\b[Bb]earer\s+)([A-Za-z0-9._~+/=-]{16,})/g, labelled: true },
  {
    name: "api-key-header",
    regex: /((?:x-api-key|api-key|authorization)["']?\s*[:=]\s*["']?)([A-Za-z0-9._~+/=-]{20,})/gi,
    labelled: true,
  },
];

/**
 * A fixed part every pattern above needs (case-insensitive, so a superset): text without any
 * is clean, and one scan of it spares a dozen (most text is clean).
 */
const ANY_PATTERN =
  /PRIVATE KEY|sk-|gh[pousr]_|github_pat_|AKIA|ASIA|ABIA|ACCA|aws_secret_access_key|SecretAccessKey|xox[abposr]-|AIza|k_live_|k_test_|eyJ|bearer|api-key|authorization/i;

/** Names of environment variables whose values are treated as secrets. */
const SECRET_ENV_NAME = /(?:API_KEY|_TOKEN|_SECRET|SECRET_KEY|PASSWORD|ACCESS_KEY|PRIVATE_KEY)$/i;

/** Shorter values are too likely to be ordinary words to redact everywhere. */
const MIN_SECRET_LENGTH = 8;

/** Options for building a redactor. */
export interface RedactorOptions {
  /** Literal secret values to remove (e.g. resolved `env:NAME` references). */
  readonly values?: readonly string[];
}

/** Builds a redactor for known key formats plus the given literal values. */
export function createRedactor(options: RedactorOptions = {}): Redactor {
  const values = [...new Set(options.values ?? [])]
    .filter((v) => v.length >= MIN_SECRET_LENGTH)
    // Longest first so a secret containing another is replaced whole.
    .sort((a, b) => b.length - a.length);
  const redact = (text: string): string => {
    let out = text;
    for (const value of values) {
      if (out.includes(value)) out = out.split(value).join("[REDACTED:secret]");
    }
    if (!ANY_PATTERN.test(out)) return out;
    for (const p of PATTERNS) {
      p.regex.lastIndex = 0;
      if (!p.regex.test(out)) continue;
      p.regex.lastIndex = 0;
      out = out.replace(p.regex, p.labelled ? `$1[REDACTED:${p.name}]` : `[REDACTED:${p.name}]`);
    }
    return out;
  };
  return {
    redact,
    redactOptional: (text) => (text === null || text === undefined ? null : redact(text)),
  };
}

/** The values of secret-looking environment variables plus those named in `BONSAI_REDACT_ENV`. */
export function secretValuesFromEnv(env: Env): string[] {
  const named = new Set(
    (env.BONSAI_REDACT_ENV ?? "").split(",").map((s) => s.trim()).filter(Boolean),
  );
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!value || value.length < MIN_SECRET_LENGTH) continue;
    if (named.has(name) || SECRET_ENV_NAME.test(name)) out.push(value);
  }
  return out;
}
