// Search excerpts computed from the post text already read for the page, the way FTS5's
// snippet() builds them (a window of tokens with the most distinct matched terms, matches wrapped
// in **, … where text was cut), without asking the index again: FTS5's snippet() re-reads the
// match's position lists and re-tokenises the document, about 0.1 ms a post at 100,000 posts.
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
}

/** Matches words against the terms; build one per search and pass it to searchSnippet for every hit. */
export function matcher(terms: readonly SnippetTerm[]): Matcher {
  const stems = terms.map((t) => (t.prefix ? t.word : stemmer(t.word)));
  // A token can only stem to s if it starts like s (Porter rewrites suffixes only).
  const heads = stems.map((s) => s.slice(0, 3));
  const cache = new Map<string, number>();
  return {
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

interface Token {
  start: number;
  end: number;
  term: number;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** Whether the UTF-16 unit at `i` is part of a word (ASCII fast path; the rest by Unicode class). */
function wordChar(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
  return WORD_CHAR.test(text[i]) || (c >= 0xd800 && c <= 0xdfff && WORD_CHAR.test(text.slice(i, i + 2)));
}

/** The words of `text` with their offsets and the query term each matches (the same words as TOKEN finds). */
function tokens(text: string, m: Matcher): Token[] {
  const out: Token[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    while (i < n && !wordChar(text, i)) i++;
    if (i >= n) break;
    const start = i;
    while (i < n && wordChar(text, i)) i++;
    out.push({ start, end: i, term: m.match(text.slice(start, i).toLowerCase()) });
  }
  return out;
}

/**
 * The excerpt of `text` of at most `size` tokens holding the most distinct matched terms (then
 * the most matches, then the earliest), matches wrapped in **; null when nothing matches.
 */
function excerpt(text: string, toks: Token[], size: number): string | null {
  const hits = toks.map((t, i) => (t.term >= 0 ? i : -1)).filter((i) => i >= 0);
  if (!hits.length) return null;
  let best = { start: 0, score: -1 };
  for (const h of hits) {
    // Start a little before the match, as FTS5 does, without running past the end.
    const start = Math.max(0, Math.min(h - 2, toks.length - size));
    const distinct = new Set<number>();
    let n = 0;
    for (let i = start; i < Math.min(toks.length, start + size); i++) {
      if (toks[i].term >= 0) {
        distinct.add(toks[i].term);
        n++;
      }
    }
    const score = distinct.size * 1000 + n;
    if (score > best.score) best = { start, score };
  }
  const last = Math.min(toks.length, best.start + size) - 1;
  let out = best.start > 0 ? "…" : "";
  let at = best.start > 0 ? toks[best.start].start : 0;
  for (let i = best.start; i <= last; i++) {
    const t = toks[i];
    if (t.term < 0) continue;
    out += `${text.slice(at, t.start)}**${text.slice(t.start, t.end)}**`;
    at = t.end;
  }
  out += last < toks.length - 1 ? `${text.slice(at, toks[last].end)}…` : text.slice(at);
  return out;
}

/**
 * The excerpt shown with a search hit: the body's around its matches, else the title's when
 * only the title matches, else the start of the body.
 */
export function searchSnippet(terms: readonly SnippetTerm[] | Matcher, title: string, body: string): string {
  const m = "match" in terms ? terms : matcher(terms);
  const bodyToks = tokens(body, m);
  const fromBody = excerpt(body, bodyToks, 24);
  if (fromBody !== null) return fromBody;
  const fromTitle = excerpt(title, tokens(title, m), 16);
  if (fromTitle !== null) return fromTitle;
  return bodyToks.length > 24 ? `${body.slice(0, bodyToks[23].end)}…` : body;
}
