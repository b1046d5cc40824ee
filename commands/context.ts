import type { z } from "zod";
import { BonsaiError } from "../core/errors.ts";
import { homeFrom } from "../core/home.ts";
import { createRedactor, referencedSecretValues, secretValuesFromEnv } from "../core/secrets.ts";
import { checkTimeZone, localTimeZone } from "../core/time.ts";
import { type Db, openDatabase } from "../core/storage/db.ts";
import { savedReferenceValues } from "../core/storage/setting_references.ts";
import { SettingsStore } from "../core/storage/settings.ts";
import { priceSettings, usePricingContext } from "../core/usage/pricing_context.ts";
import { recoverCrashed } from "../core/session/recovery.ts";
import { colorEnabled, createStyle, type Style, unicodeEnabled } from "../tui/render/style.ts";
import type { World } from "./world.ts";

/** How a command talks to people and scripts. */
export interface Ui {
  readonly style: Style;
  /** Columns to fit tables into. */
  readonly width: number;
  /** Plain ASCII symbols (non-UTF-8 locale). */
  readonly ascii: boolean;
  /** IANA zone for times shown to people (TZ, else the system's). */
  readonly timeZone: string;
  /** A line (or lines) to stdout. */
  out(text: string): void;
  /** A line to stderr. */
  err(text: string): void;
  /** One JSON value to stdout. */
  json(value: unknown): void;
}

/** The Ui for a world: colour per NO_COLOR and terminal, width per COLUMNS or the terminal. */
export function uiFor(world: World): Ui {
  const style = createStyle(colorEnabled(world.env, world.stdout.isTerminal));
  const fromEnv = Number(world.env.COLUMNS);
  const width = Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : world.stdout.columns ?? 100;
  let zone: string | null = null;
  return {
    style,
    width,
    ascii: !unicodeEnabled(world.env),
    // Resolved on first use: asking ICU for the local zone costs ~20 ms at startup.
    get timeZone() {
      return zone ??= checkTimeZone(world.env.TZ || localTimeZone());
    },
    out: (text) => world.stdout.write(text.endsWith("\n") ? text : `${text}\n`),
    err: (text) => world.stderr.write(text.endsWith("\n") ? text : `${text}\n`),
    json: (value) => world.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
  };
}

/**
 * Opens the database of the world's BONSAI_HOME, redacting the environment's secrets and the
 * values behind saved `env:NAME` key references, and first promotes crash leftovers to
 * `interrupted` (L5: every process that opens it does).
 */
export async function openDb(world: World): Promise<Db> {
  const home = homeFrom(world.env);
  const redactor = createRedactor({ values: secretValuesFromEnv(world.env) });
  const db = await openDatabase({ home, clock: world.clock, redactor });
  try {
    // The references live in the database, so the redactor learns them before any write.
    redactor.addValues(referencedSecretValues(world.env, savedReferenceValues(db)));
    recoverCrashed(db, world.probe);
  } catch (err) {
    db.close();
    throw err;
  }
  // Whatever prices something in this process (a run's ledger, an import) sees the saved
  // prices and the time; the settings are read only when something is priced.
  usePricingContext({
    savedPrices: () =>
      db.connection.isOpen ? priceSettings(new SettingsStore(db).all()) : new Map(),
    now: () => world.clock.now(),
  });
  return db;
}

/** Parses command options with a zod schema; bad input becomes a USAGE error. */
export function parseOptions<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const key = issue.path[0];
  const where = key === undefined
    ? ""
    : `--${String(key).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: `;
  // A coerced number's own message ("received nan") hides what the user typed.
  const given = key !== undefined && typeof value === "object" && value !== null
    ? (value as Record<PropertyKey, unknown>)[key]
    : undefined;
  const message = issue.code === "invalid_type" && given !== undefined
    ? `expected a ${issue.expected}, got '${String(given)}'`
    : issue.message;
  throw new BonsaiError("USAGE", `${where}${message}`);
}

/** Asks before a destructive step unless `yes`; refuses without a terminal to ask on. */
export async function confirmOrRefuse(
  world: World,
  question: string,
  yes: boolean,
): Promise<boolean> {
  if (yes) return true;
  if (!world.prompter.interactive) {
    throw new BonsaiError(
      "CONFIRMATION_REQUIRED",
      `${question.replace(/\?$/, "")}: pass --yes to confirm without a terminal`,
    );
  }
  return await world.prompter.confirm(question, false);
}
