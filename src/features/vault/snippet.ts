// Snippets of vault search results (docs/decisions.md §119). The index is contentless (the
// content is in the data folder), so FTS5's snippet() has no text to cut from: the snippet is cut
// here from the file, around the first place the query's terms match, with every match in it
// marked [[hl]]…[[/hl]]. Matching follows the index's tokenizer (unicode61, diacritics removed,
// case folded): a token is a run of letters, digits and marks, a bare word matches a whole
// token, `word*` the tokens it starts, and a "phrase" its words in a row.
import { queryParts } from "../posts/search";

const HL_OPEN = "[[hl]]";
const HL_CLOSE = "[[/hl]]";
const ELLIPSIS = "...";
/** About how many characters of content a snippet shows. */
export const SNIPPET_CHARS = 200;
/** How much of that comes before the first match. */
const LEAD_CHARS = 50;

const TOKEN = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

/** A token as the index compares it: decomposed, without combining marks, lower case. */
export const fold = (token: string): string => token.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();

/** One term of a query: its folded words, in order; `prefix` when its last word is a prefix. */
interface Term {
  words: string[];
  prefix: boolean;
}

/** The terms of a search query, read as toFtsQuery reads it (posts/search.ts). */
export function queryTerms(q: string): Term[] {
  const out: Term[] = [];
  for (const p of queryParts(q)) {
    const words = (p.text.match(TOKEN) ?? []).map(fold).filter((w) => w.length > 0);
    if (words.length) out.push({ words, prefix: p.prefix });
  }
  return out;
}

interface Token {
  start: number;
  end: number;
  folded: string;
}

const wordMatches = (word: string, folded: string, prefix: boolean) => (prefix ? folded.startsWith(word) : folded === word);

/** Whether `term` ends at the last of `recent` (tokens in order), and where it starts. */
function endsWith(term: Term, recent: Token[]): Token | null {
  const n = term.words.length;
  if (recent.length < n) return null;
  for (let i = 0; i < n; i++) {
    const tok = recent[recent.length - n + i]!;
    if (!wordMatches(term.words[i]!, tok.folded, term.prefix && i === n - 1)) return null;
  }
  return recent[recent.length - n]!;
}

/**
 * The snippet of `content` for `terms`: about SNIPPET_CHARS characters from a little before the
 * first match, cut at token boundaries, every match inside marked, `...` where text was left out.
 * Without a match in the content (the filename matched), its beginning, unmarked.
 */
export function snippet(content: string, terms: Term[]): string {
  const longest = Math.max(1, ...terms.map((t) => t.words.length));
  const recent: Token[] = [];
  const hits: { start: number; end: number }[] = [];
  let windowStart = -1;
  let windowEnd = content.length;
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(content); m; m = TOKEN.exec(content)) {
    const tok = { start: m.index, end: m.index + m[0].length, folded: fold(m[0]) };
    if (windowStart >= 0 && tok.start >= windowEnd) break;
    recent.push(tok);
    if (recent.length > longest) recent.shift();
    for (const term of terms) {
      const first = endsWith(term, recent);
      if (!first) continue;
      if (windowStart < 0) {
        windowStart = startNear(content, first.start);
        windowEnd = Math.max(endNear(content, windowStart + SNIPPET_CHARS), tok.end);
      }
      // A match overlapping the previous one (two terms on one token) widens it.
      const last = hits[hits.length - 1];
      if (last && first.start < last.end) last.end = Math.max(last.end, tok.end);
      else hits.push({ start: first.start, end: tok.end });
      break;
    }
  }
  if (windowStart < 0) {
    windowStart = 0;
    windowEnd = endNear(content, SNIPPET_CHARS);
  }
  let out = windowStart > 0 ? ELLIPSIS : "";
  let at = windowStart;
  for (const hit of hits) {
    if (hit.end > windowEnd) break;
    out += content.slice(at, hit.start) + HL_OPEN + content.slice(hit.start, hit.end) + HL_CLOSE;
    at = hit.end;
  }
  out += content.slice(at, windowEnd);
  return windowEnd < content.length ? out + ELLIPSIS : out;
}

/** A start about LEAD_CHARS before `at`, moved forward out of a token it would cut and past blanks. */
function startNear(content: string, at: number): number {
  if (at <= LEAD_CHARS) return 0;
  let s = at - LEAD_CHARS;
  while (s < at && isTokenChar(content, s - 1) && isTokenChar(content, s)) s++;
  while (s < at && /\s/.test(content[s]!)) s++;
  return s;
}

/** An end at or before `at` that does not cut a token, blanks before it left out (or the content's length). */
function endNear(content: string, at: number): number {
  if (at >= content.length) return content.length;
  let e = at;
  while (e > 0 && isTokenChar(content, e - 1) && isTokenChar(content, e)) e--;
  if (e === 0) return at;
  while (e > 0 && /\s/.test(content[e - 1]!)) e--;
  return e;
}

const TOKEN_CHAR = /[\p{L}\p{N}\p{M}\p{Co}]/u;

/** Whether the UTF-16 unit at `i` belongs to a token (halves of surrogate pairs count, so a pair is never cut). */
function isTokenChar(s: string, i: number): boolean {
  if (i < 0 || i >= s.length) return false;
  const unit = s.charCodeAt(i);
  return (unit >= 0xd800 && unit <= 0xdfff) || TOKEN_CHAR.test(s[i]!);
}
