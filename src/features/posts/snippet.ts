// Search excerpts computed from the post text already read for the page, the way FTS5's
// snippet() builds them (a window of tokens with the most distinct matched terms, matches wrapped
// in **, … where text was cut), without asking the index again: FTS5's snippet() re-reads the
// match's position lists and re-tokenises the document, for every post of the page.
// Terms match as the index's porter tokenizer matches them: by Porter stem, or by prefix for
// `term*`; the words of a quoted phrase are highlighted where each occurs.
import { stemmer } from "stemmer";
import { queryParts } from "./search";

export interface SnippetTerm {
  /** Lower-case word as written in the query. */
  word: string;
  /** `word*`: any token starting with the word. */
  prefix: boolean;
}

const TOKEN = /[\p{L}\p{N}]+/gu;

/** The words of a search query (bare words, `prefix*` words and the words of "quoted phrases"). */
export function snippetTerms(input: string): SnippetTerm[] {
  const out: SnippetTerm[] = [];
  for (const p of queryParts(input)) {
    const words = p.text.toLowerCase().match(TOKEN) ?? [];
    words.forEach((word, i) => out.push({ word, prefix: p.prefix && i === words.length - 1 }));
  }
  return out;
}

export interface Matcher {
  /** Index of the term a lower-cased token matches, or -1. */
  match(token: string): number;
  /** Whether a word starting with this UTF-16 unit (lower-cased if ASCII) could match a term. */
  mayStartWith(unit: number): boolean;
}

/** Matches words against the terms; build one per search and pass it to searchSnippet for every hit. */
export function matcher(terms: readonly SnippetTerm[]): Matcher {
  const stems = terms.map((t) => (t.prefix ? t.word : stemmer(t.word)));
  // A token can only stem to s if it starts like s (Porter rewrites suffixes only).
  const heads = stems.map((s) => s.slice(0, 3));
  // First units of the heads: most words of a text start otherwise and need no stemming at all.
  // Words starting outside ASCII are always checked (their lower case is not one unit away).
  const firsts = new Set(heads.map((h) => h.charCodeAt(0)));
  const cache = new Map<string, number>();
  return {
    mayStartWith: (unit) => unit >= 128 || firsts.has(unit),
    match(token) {
      let hit = cache.get(token);
      if (hit !== undefined) return hit;
      hit = -1;
      let stem: string | undefined;
      for (let i = 0; i < terms.length && hit < 0; i++) {
        if (!token.startsWith(heads[i])) continue;
        if (terms[i].prefix) {
          if (token.startsWith(stems[i])) hit = i;
        } else if ((stem ??= stemmer(token)) === stems[i]) hit = i;
      }
      cache.set(token, hit);
      return hit;
    },
  };
}

/** The words of a text: offsets and the query term each matches (-1 for none), one entry per word. */
interface Tokens {
  start: number[];
  end: number[];
  term: number[];
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** Whether the UTF-16 unit at `i` is part of a word (ASCII fast path; the rest by Unicode class). */
function wordChar(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
  return WORD_CHAR.test(text[i]) || (c >= 0xd800 && c <= 0xdfff && WORD_CHAR.test(text.slice(i, i + 2)));
}

/**
 * The words of `text` (the same words as TOKEN finds) with the query term each matches. Only
 * words whose first letter could start a term are lower-cased and matched.
 */
function tokens(text: string, m: Matcher): Tokens {
  const out: Tokens = { start: [], end: [], term: [] };
  const n = text.length;
  let i = 0;
  while (i < n) {
    while (i < n && !wordChar(text, i)) i++;
    if (i >= n) break;
    const start = i;
    while (i < n && wordChar(text, i)) i++;
    const c = text.charCodeAt(start);
    out.start.push(start);
    out.end.push(i);
    out.term.push(m.mayStartWith(c >= 65 && c <= 90 ? c + 32 : c) ? m.match(text.slice(start, i).toLowerCase()) : -1);
  }
  return out;
}

/**
 * The excerpt of `text` of at most `size` tokens holding the most distinct matched terms (then
 * the most matches, then the earliest), matches wrapped in `mark`; null when nothing matches.
 */
function excerpt(text: string, toks: Tokens, size: number, mark: string): string | null {
  const { start: starts, end: ends, term: terms } = toks;
  const count = terms.length;
  let maxTerm = -1;
  for (const t of terms) if (t > maxTerm) maxTerm = t;
  if (maxTerm < 0) return null;
  // seen[t] === h + 1: term t was already counted in the window of hit h.
  const seen = new Int32Array(maxTerm + 1);
  let best = { start: 0, score: -1 };
  for (let h = 0; h < count; h++) {
    if (terms[h] < 0) continue;
    // Start a little before the match, as FTS5 does, without running past the end.
    const start = Math.max(0, Math.min(h - 2, count - size));
    let distinct = 0;
    let n = 0;
    for (let i = start; i < Math.min(count, start + size); i++) {
      const t = terms[i];
      if (t < 0) continue;
      n++;
      if (seen[t] !== h + 1) {
        seen[t] = h + 1;
        distinct++;
      }
    }
    const score = distinct * 1000 + n;
    if (score > best.score) best = { start, score };
  }
  const last = Math.min(count, best.start + size) - 1;
  let out = best.start > 0 ? "…" : "";
  let at = best.start > 0 ? starts[best.start] : 0;
  for (let i = best.start; i <= last; i++) {
    if (terms[i] < 0) continue;
    out += `${text.slice(at, starts[i])}${mark}${text.slice(starts[i], ends[i])}${mark}`;
    at = ends[i];
  }
  out += last < count - 1 ? `${text.slice(at, ends[last])}…` : text.slice(at);
  return out;
}

/**
 * The excerpt shown with a search hit: the body's around its matches, else the title's when
 * only the title matches, else the start of the body. Matches are wrapped in `mark` (`**`; the
 * wiki's plain-text excerpts pass "").
 */
export function searchSnippet(terms: readonly SnippetTerm[] | Matcher, title: string, body: string, mark = "**"): string {
  const m = "match" in terms ? terms : matcher(terms);
  const bodyToks = tokens(body, m);
  const fromBody = excerpt(body, bodyToks, 24, mark);
  if (fromBody !== null) return fromBody;
  const fromTitle = excerpt(title, tokens(title, m), 16, mark);
  if (fromTitle !== null) return fromTitle;
  return bodyToks.end.length > 24 ? `${body.slice(0, bodyToks.end[23])}…` : body;
}
