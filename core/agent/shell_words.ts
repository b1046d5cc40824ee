// A small, careful reader of `sh -c` command lines, for permission rules: it splits a line
// into its simple commands (at ;, &, &&, ||, |, newlines and subshell parentheses), removes
// quotes, and notes everything it cannot vouch for. It is deliberately not a shell: where
// it is unsure, it says so, and rules then fall through to asking a person.

/** One word after quote removal; `stars` are the indices of unquoted `*` in `text`. */
export interface ShellWord {
  readonly text: string;
  readonly stars: readonly number[];
}

/** What a command line stands for. */
export interface ShellSplit {
  /** Every simple command, in order, subshells' and substitutions' included. */
  readonly commands: readonly (readonly ShellWord[])[];
  /**
   * Why no allow rule may vouch for the line (a substitution, a redirection to a file, a
   * here-doc, syntax this reader does not follow), or null when every part is known.
   */
  readonly unsure: string | null;
  /** True when commands may run that `commands` does not list (so deny rules cannot be sure). */
  readonly concealed: boolean;
}

interface State {
  readonly src: string;
  i: number;
  readonly commands: ShellWord[][];
  unsure: string | null;
  concealed: boolean;
  depth: number;
}

/** Deepest nesting of subshells and substitutions followed. */
const MAX_DEPTH = 32;

const OPERATOR_CHARS = new Set([";", "&", "|", "(", ")", "<", ">", " ", "\t", "\n"]);
const PLAIN_PARAMETER = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])$/;

/** Splits `line` into its simple commands; never throws (`depth`: nesting already entered). */
export function splitShell(line: string, depth = 0): ShellSplit {
  const state: State = {
    src: line,
    i: 0,
    commands: [],
    unsure: null,
    concealed: false,
    depth,
  };
  scan(state, false);
  return { commands: state.commands, unsure: state.unsure, concealed: state.concealed };
}

function unsure(state: State, why: string, concealed = false): void {
  state.unsure ??= why;
  if (concealed) state.concealed = true;
}

/** Reads commands until the end, or until the `)` closing a subshell or `$(` when `nested`. */
function scan(state: State, nested: boolean): void {
  const { src } = state;
  if (state.depth >= MAX_DEPTH) {
    unsure(state, "nesting too deep to follow", true);
    state.i = src.length;
    return;
  }
  state.depth++;
  try {
    scanCommands(state, nested);
  } finally {
    state.depth--;
  }
}

function scanCommands(state: State, nested: boolean): void {
  const { src } = state;
  let words: ShellWord[] = [];
  let text = "";
  let stars: number[] = [];
  let inWord = false;
  const endWord = () => {
    if (inWord) words.push({ text, stars });
    text = "";
    stars = [];
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    if (words.length > 0) state.commands.push(words);
    words = [];
  };
  while (state.i < src.length) {
    const c = src[state.i]!;
    if (c === " " || c === "\t") {
      endWord();
      state.i++;
    } else if (c === "\n" || c === ";" || c === "&" || c === "|") {
      endCommand();
      if (c === "&" && src[state.i + 1] === ">") {
        unsure(state, "a redirection to a file");
        state.i += 2;
        skipRedirectTarget(state);
        continue;
      }
      state.i++;
      if ((c === "&" || c === "|" || c === ";") && src[state.i] === c) state.i++;
      else if (c === "|" && src[state.i] === "&") state.i++;
    } else if (c === ")") {
      endCommand();
      state.i++;
      if (nested) return;
      unsure(state, "an unmatched ')'", true);
    } else if (c === "(") {
      state.i++;
      if (words.length > 0 || inWord) unsure(state, "'(' inside a command", true);
      endCommand();
      scan(state, true);
    } else if (c === "\\" && src[state.i + 1] === "\n") {
      state.i += 2; // a line continuation joins the lines
    } else if (c === "<" || c === ">") {
      if (inWord && /^[0-9]+$/.test(text) && stars.length === 0) {
        text = ""; // the file descriptor of this redirection
        inWord = false;
      }
      endWord();
      redirection(state);
    } else if (c === "#" && !inWord) {
      while (state.i < src.length && src[state.i] !== "\n") state.i++;
    } else {
      inWord = true;
      const piece = wordPiece(state);
      for (const s of piece.stars) stars.push(text.length + s);
      text += piece.text;
    }
  }
  endCommand();
  if (nested) unsure(state, "an unclosed '('", true);
}

/**
 * A redirection at `state.i` (its file descriptor already dropped). Duplicating a
 * descriptor (`2>&1`, `>&-`) and writing to /dev/null change nothing on disk; everything
 * else (a file written or read, a here-doc, process substitution) leaves the line unsure.
 */
function redirection(state: State): void {
  const { src } = state;
  const op = src.slice(state.i, state.i + 3);
  if (op.startsWith("<<")) {
    // A here-doc's body is data, but this reader does not follow where it ends.
    unsure(state, "a here-document", true);
    state.i = src.length;
    return;
  }
  if (op.startsWith("<(") || op.startsWith(">(")) {
    unsure(state, "process substitution");
    state.i += 2;
    scan(state, true);
    return;
  }
  if (op.startsWith(">&") || op.startsWith("<&")) {
    const m = /^[<>]&(?:[0-9]+|-)(?=$|[\s;&|()<>])/.exec(src.slice(state.i));
    if (m) {
      state.i += m[0].length;
      return;
    }
    unsure(state, "a redirection to a file");
    state.i += 2;
    skipRedirectTarget(state);
    return;
  }
  state.i += op.startsWith(">>") || op.startsWith(">|") || op.startsWith("<>") ? 2 : 1;
  const target = skipRedirectTarget(state);
  if (!(op[0] === ">" && target === "/dev/null")) {
    unsure(state, op[0] === "<" ? "input redirected from a file" : "a redirection to a file");
  }
}

/** Skips blanks and the word a redirection names; returns the word as written. */
function skipRedirectTarget(state: State): string {
  const { src } = state;
  while (src[state.i] === " " || src[state.i] === "\t") state.i++;
  const start = state.i;
  while (state.i < src.length && !OPERATOR_CHARS.has(src[state.i]!)) wordPiece(state);
  return src.slice(start, state.i);
}

/** One piece of a word at `state.i`: a plain character, an escape, a quoted string, an expansion. */
function wordPiece(state: State): { text: string; stars: number[] } {
  const { src } = state;
  const c = src[state.i]!;
  if (c === "\\") {
    const next = src[state.i + 1];
    state.i += 2;
    if (next === undefined) return { text: "\\", stars: [] };
    return { text: next === "\n" ? "" : next, stars: [] };
  }
  if (c === "'") {
    const close = src.indexOf("'", state.i + 1);
    if (close < 0) {
      unsure(state, "an unclosed quote", true);
      const text = src.slice(state.i + 1);
      state.i = src.length;
      return { text, stars: [] };
    }
    const text = src.slice(state.i + 1, close);
    state.i = close + 1;
    return { text, stars: [] };
  }
  if (c === '"') return doubleQuoted(state);
  if (c === "`") return backticks(state);
  if (c === "$") return dollar(state);
  state.i++;
  return { text: c, stars: c === "*" ? [0] : [] };
}

function doubleQuoted(state: State): { text: string; stars: number[] } {
  const { src } = state;
  let text = "";
  state.i++;
  while (state.i < src.length) {
    const c = src[state.i]!;
    if (c === '"') {
      state.i++;
      return { text, stars: [] };
    }
    if (c === "\\" && ["$", "`", '"', "\\", "\n"].includes(src[state.i + 1] ?? "")) {
      if (src[state.i + 1] !== "\n") text += src[state.i + 1];
      state.i += 2;
    } else if (c === "`") {
      text += backticks(state).text;
    } else if (c === "$") {
      text += dollar(state).text;
    } else {
      text += c;
      state.i++;
    }
  }
  unsure(state, "an unclosed quote", true);
  return { text, stars: [] };
}

/** `` `...` ``: its commands are listed (for deny rules), and the line is unsure. */
function backticks(state: State): { text: string; stars: number[] } {
  const { src } = state;
  const start = state.i;
  let body = "";
  state.i++;
  while (state.i < src.length && src[state.i] !== "`") {
    if (src[state.i] === "\\" && state.i + 1 < src.length) {
      body += src[state.i + 1];
      state.i += 2;
    } else {
      body += src[state.i++];
    }
  }
  if (state.i >= src.length) unsure(state, "an unclosed '`'", true);
  state.i++;
  unsure(state, "command substitution");
  const inner = splitShell(body, state.depth);
  state.commands.push(...inner.commands.map((w) => [...w]));
  if (inner.concealed) state.concealed = true;
  return { text: src.slice(start, state.i), stars: [] };
}

/** `$...`: plain parameters are kept as written; `$(...)` is read; anything else is unsure. */
function dollar(state: State): { text: string; stars: number[] } {
  const { src } = state;
  const start = state.i;
  const next = src[state.i + 1];
  if (next === "(") {
    if (src[state.i + 2] === "(") {
      // Arithmetic can run commands through array subscripts; it is not followed.
      unsure(state, "arithmetic expansion", true);
      const close = src.indexOf("))", state.i + 3);
      state.i = close < 0 ? src.length : close + 2;
    } else {
      unsure(state, "command substitution");
      state.i += 2;
      scan(state, true);
    }
    return { text: src.slice(start, state.i), stars: [] };
  }
  if (next === "{") {
    const close = src.indexOf("}", state.i + 2);
    const name = close < 0 ? "" : src.slice(state.i + 2, close);
    if (close < 0 || !PLAIN_PARAMETER.test(name)) {
      unsure(state, "parameter expansion beyond ${NAME}", true);
      state.i = close < 0 ? src.length : close + 1;
    } else {
      state.i = close + 1;
    }
    return { text: src.slice(start, state.i), stars: [] };
  }
  if (next === "'" || next === '"') {
    unsure(state, `${next === "'" ? "$'...'" : '$"..."'} quoting`, true);
    state.i++;
    const quoted = wordPiece(state);
    return { text: `$${quoted.text}`, stars: [] };
  }
  const m = /^\$(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(src.slice(state.i));
  state.i += m ? m[0].length : 1;
  return { text: m ? m[0] : "$", stars: [] };
}
