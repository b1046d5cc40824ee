import type { Env } from "./home.ts";

/** Removes credentials from text before it is persisted or exported. */
export interface Redactor {
  /** The text with every known key format and configured secret value replaced. */
  redact(text: string): string;
  /** Like redact, for optional values. */
  redactOptional(text: string | null | undefined): string | null;
  /**
   * Learns more literal secret values from now on (e.g. the values behind `env:NAME`
   * references in settings, which can only be read once the database is open). Values
   * shorter than 8 characters are ignored.
   */
  addValues(values: readonly string[]): void;
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
  { name: "bonsai-token", regex: /\bbonsai_[A-Za-z0-9_-]{40,}/g },
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
  /PRIVATE KEY|sk-|gh[pousr]_|github_pat_|AKIA|ASIA|ABIA|ACCA|aws_secret_access_key|SecretAccessKey|xox[abposr]-|bonsai_|AIza|k_live_|k_test_|eyJ|bearer|api-key|authorization/i;

/**
 * Parts of an environment variable's name that mark its value as secret, anywhere in the
 * name and in any case: `GH_TOKEN_CI`, `CI_SECRET_VALUE`, `db_password`, `OAUTH_CLIENT`.
 */
const SECRET_NAME_PART = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH/i;

/**
 * Well-known variables whose names match SECRET_NAME_PART but whose values are not secrets
 * and appear in everyday text, so redacting them everywhere would mangle transcripts: the
 * ssh-agent socket and X authority paths, the X host name (openSUSE sets it to `localhost`,
 * which would break every URL), and the git author's name, e-mail and date. Kept tiny and
 * listed in README's Secrets; `BONSAI_REDACT_ENV` still redacts any of them by name.
 */
export const NOT_SECRET_ENV: ReadonlySet<string> = new Set([
  "SSH_AUTH_SOCK",
  "XAUTHORITY",
  "XAUTHLOCALHOSTNAME",
  "GIT_AUTHOR_NAME",
  "GIT_AUTHOR_EMAIL",
  "GIT_AUTHOR_DATE",
]);

/** Shorter values are too likely to be ordinary words to redact everywhere. */
export const MIN_SECRET_LENGTH = 8;

const REDACTED = "[REDACTED:secret]";

/** Options for building a redactor. */
export interface RedactorOptions {
  /** Literal secret values to remove (e.g. resolved `env:NAME` references). */
  readonly values?: readonly string[];
}

/**
 * The spellings of a secret value that stored text may hold, longest first: the value itself
 * and its JSON-escaped forms (once, for a JSON column; twice, for JSON text inside a JSON
 * string, such as tool arguments inside a stored context message). They differ only for
 * values with quotes, backslashes or control characters.
 */
export function secretForms(value: string): string[] {
  const once = JSON.stringify(value).slice(1, -1);
  const twice = JSON.stringify(once).slice(1, -1);
  return [...new Set([twice, once, value])];
}

/** Builds a redactor for known key formats plus the given literal values (and those added later). */
export function createRedactor(options: RedactorOptions = {}): Redactor {
  const known = new Set<string>();
  // Every spelling of every value, longest first so a secret containing another is replaced whole.
  let forms: string[] = [];
  const addValues = (values: readonly string[]) => {
    let added = false;
    for (const value of values) {
      if (value.length < MIN_SECRET_LENGTH || known.has(value)) continue;
      known.add(value);
      forms.push(...secretForms(value));
      added = true;
    }
    if (added) forms = [...new Set(forms)].sort((a, b) => b.length - a.length);
  };
  addValues(options.values ?? []);
  const redact = (text: string): string => {
    let out = text;
    for (const form of forms) {
      if (out.includes(form)) out = out.split(form).join(REDACTED);
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
    addValues,
  };
}

/** Whether an environment variable's name marks its value as secret (see NOT_SECRET_ENV). */
export function isSecretEnvName(name: string): boolean {
  return SECRET_NAME_PART.test(name) && !NOT_SECRET_ENV.has(name.toUpperCase());
}

/** The values of secret-looking environment variables plus those named in `BONSAI_REDACT_ENV`. */
export function secretValuesFromEnv(env: Env): string[] {
  const named = new Set(
    (env.BONSAI_REDACT_ENV ?? "").split(",").map((s) => s.trim()).filter(Boolean),
  );
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!value || value.length < MIN_SECRET_LENGTH) continue;
    if (named.has(name) || isSecretEnvName(name)) out.push(value);
  }
  return out;
}

// The same rule as providers/config.ts KeyReference (core/ cannot import providers/).
const ENV_REFERENCE = /^env:([A-Za-z_][A-Za-z0-9_]*)$/;

/**
 * The NAME of an `env:NAME` reference, or null for any other value. Takes a setting's value
 * parsed (`env:MY_KEY`) or as the JSON text the settings table stores (`"env:MY_KEY"`).
 */
export function envReference(value: unknown): string | null {
  let v = value;
  if (typeof v === "string" && v.startsWith('"')) {
    try {
      v = JSON.parse(v);
    } catch {
      return null; // not JSON text, so not a stored reference either
    }
  }
  if (typeof v !== "string") return null;
  return ENV_REFERENCE.exec(v)?.[1] ?? null;
}

/** The values behind the `env:NAME` references among saved settings' values (S4). */
export function referencedSecretValues(env: Env, settingValues: Iterable<unknown>): string[] {
  const out: string[] = [];
  for (const value of settingValues) {
    const name = envReference(value);
    const secret = name === null ? undefined : env[name];
    if (secret) out.push(secret);
  }
  return out;
}

/**
 * When a setting is saved: if its value is an `env:NAME` reference, the redactor learns the
 * value behind it, whatever NAME is called. Returns whether it learned one. Any setting
 * counts (as when the database is opened), so the key is not needed.
 */
export function learnSettingSecret(
  redactor: Redactor,
  setting: { readonly value: unknown; readonly env: Env },
): boolean {
  const values = referencedSecretValues(setting.env, [setting.value]).filter((v) =>
    v.length >= MIN_SECRET_LENGTH
  );
  redactor.addValues(values);
  return values.length > 0;
}
