import type { Env } from "../../core/home.ts";

/** Terminal text styling; every function is the identity when colour is off. */
export interface Style {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  italic(text: string): string;
  underline(text: string): string;
  inverse(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  blue(text: string): string;
  magenta(text: string): string;
  cyan(text: string): string;
  gray(text: string): string;
  /** 256-colour foreground, for heatmap shades. */
  fg256(code: number, text: string): string;
}

const sgr = (open: number, close: number) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`;

/** Styling on or off. */
export function createStyle(enabled: boolean): Style {
  if (!enabled) {
    const id = (text: string) => text;
    return {
      enabled,
      bold: id,
      dim: id,
      italic: id,
      underline: id,
      inverse: id,
      red: id,
      green: id,
      yellow: id,
      blue: id,
      magenta: id,
      cyan: id,
      gray: id,
      fg256: (_code, text) => text,
    };
  }
  return {
    enabled,
    bold: sgr(1, 22),
    dim: sgr(2, 22),
    italic: sgr(3, 23),
    underline: sgr(4, 24),
    inverse: sgr(7, 27),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    blue: sgr(34, 39),
    magenta: sgr(35, 39),
    cyan: sgr(36, 39),
    gray: sgr(90, 39),
    fg256: (code, text) => `\x1b[38;5;${code}m${text}\x1b[39m`,
  };
}

/** Colour is on for a terminal unless NO_COLOR is set (non-empty) or TERM is dumb; FORCE_COLOR forces it. */
export function colorEnabled(env: Env, isTerminal: boolean): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "" && env.FORCE_COLOR !== "0") {
    return true;
  }
  return isTerminal && env.TERM !== "dumb";
}

/** Whether the locale can show non-ASCII symbols (an unset locale counts as UTF-8). */
export function unicodeEnabled(env: Env): boolean {
  const locale = env.LC_ALL || env.LC_CTYPE || env.LANG;
  if (!locale) return true;
  return /utf-?8/i.test(locale);
}
