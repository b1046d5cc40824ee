// Chinese, Japanese and Korean text has no spaces between words, so the word index cannot
// find a word inside a run. We index every run as overlapping character bigrams plus its
// last character, which makes any substring of length >= 2 a phrase of bigrams and any
// single character a prefix query.

const CJK_CHAR =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30fc\u3005]/u;
const CJK_RUN =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30fc\u3005]+/gu;

/** True when `text` contains at least one CJK character. */
export function hasCjk(text: string): boolean {
  return CJK_CHAR.test(text);
}

/** The maximal runs of CJK characters in `text`. */
export function cjkRuns(text: string): string[] {
  return text.match(CJK_RUN) ?? [];
}

/** The bigram document for the CJK index ("" when the text has no CJK). */
export function cjkGrams(text: string): string {
  const out: string[] = [];
  for (const run of cjkRuns(text)) {
    const chars = [...run];
    for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
    out.push(chars[chars.length - 1]!);
  }
  return out.join(" ");
}

/** The CJK-index query for one run typed by the user: a bigram phrase, or a prefix for one char. */
export function cjkRunQuery(run: string): string {
  const chars = [...run];
  if (chars.length === 1) return `"${chars[0]}"*`;
  const grams: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) grams.push(chars[i]! + chars[i + 1]!);
  return `"${grams.join(" ")}"`;
}
