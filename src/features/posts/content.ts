// Post content: markdown rendered to sanitised HTML (markdown-it with raw HTML off and a policy on
// its tokens), @mentions, tags, language and the metadata rules of every post type
// (spec Part 1 §2.3, Part 3 §2.1-2.2). Pure functions: no database, no HTTP.
import type MarkdownIt from "markdown-it";
import { parseInstant } from "../../core/clock";
import { ApiError } from "../../core/errors";
import { randomBase62 } from "../../core/ids";
import type { PostType } from "./tables";

// ---------------------------------------------------------------------------------------------
// Markdown

type Md = InstanceType<typeof MarkdownIt>;
type Token = ReturnType<Md["parse"]>[number];
type TokenFactory = { Token: new (type: string, tag: string, nesting: 0 | 1 | -1) => Token };

interface Markdown {
  md: Md;
  /** markdown-it's Token class, as a core rule's state hands it out. */
  tokens: TokenFactory;
}
let markdown: Markdown | undefined;

/**
 * The renderer, made on first use: loading markdown-it (and the HTML entity table it decodes as it
 * loads) is work a server's start does not need, since it renders nothing until a body is written.
 * Raw HTML in the source is escaped, never passed through; markdown-it also refuses javascript:,
 * vbscript:, file: and most data: URLs.
 */
function markdownIt(): Markdown {
  if (markdown) return markdown;
  const Constructor = require("markdown-it") as typeof MarkdownIt;
  const md = new Constructor({ html: false, linkify: true, breaks: false, typographer: false });
  md.set({ xhtmlOut: true, highlight: (code: string) => escapeText(code) });
  md.renderer.rules.text = (tokens, idx) => escapeText(tokens[idx]!.content);
  md.renderer.rules.code_inline = (tokens, idx, _o, _e, slf) => `<code${slf.renderAttrs(tokens[idx]!)}>${escapeText(tokens[idx]!.content)}</code>`;
  md.renderer.rules.code_block = (tokens, idx, _o, _e, slf) => `<pre${slf.renderAttrs(tokens[idx]!)}><code>${escapeText(tokens[idx]!.content)}</code></pre>\n`;
  // Raw HTML is off; should a token of it ever appear, it is text.
  md.renderer.rules.html_block = (tokens, idx) => escapeText(tokens[idx]!.content);
  md.renderer.rules.html_inline = (tokens, idx) => escapeText(tokens[idx]!.content);
  const tokens = new (md.core as unknown as { State: new (src: string, md: unknown, env: object) => TokenFactory }).State("", md, {});
  return (markdown = { md, tokens });
}

/** Usernames as mentions: 3-32 characters, letters, digits, hyphen, underscore (users §2.1). */
const MENTION_RE = /(^|[^A-Za-z0-9_@./-])@([A-Za-z0-9][A-Za-z0-9_-]{1,30}[A-Za-z0-9])(?![A-Za-z0-9_-])/g;
/** At most this many distinct mentions are resolved and notified per post. */
export const MAX_MENTIONS = 20;

interface RenderEnv extends Record<string, unknown> {
  /** Lower-case usernames that resolved to accounts; rendered as profile links. */
  mentions?: ReadonlySet<string>;
  profileBase?: string;
}

/** Turns resolved @mentions in plain text (not code, not link text) into profile links. */
function linkMentions(tokens: Token[], env: RenderEnv, factory: TokenFactory): void {
  if (!env?.mentions?.size) return;
  for (const block of tokens) {
    if (block.type !== "inline" || !block.children) continue;
    const out: Token[] = [];
    let linkDepth = 0;
    for (const tok of block.children) {
      if (tok.type === "link_open") linkDepth++;
      if (tok.type === "link_close") linkDepth--;
      if (tok.type !== "text" || linkDepth > 0 || !tok.content.includes("@")) {
        out.push(tok);
        continue;
      }
      let last = 0;
      const text = tok.content;
      for (const m of text.matchAll(MENTION_RE)) {
        const name = m[2].toLowerCase();
        if (!env.mentions.has(name)) continue;
        const start = m.index! + m[1].length;
        if (start > last) out.push(textToken(factory, text.slice(last, start)));
        const open = new factory.Token("link_open", "a", 1);
        open.attrs = [["href", `${env.profileBase ?? ""}/u/${encodeURIComponent(name)}`], ["class", "mention"]];
        out.push(open, textToken(factory, `@${m[2]}`), new factory.Token("link_close", "a", -1));
        last = start + 1 + m[2].length;
      }
      if (last === 0) out.push(tok);
      else if (last < text.length) out.push(textToken(factory, text.slice(last)));
    }
    block.children = out;
  }
}

function textToken(state: TokenFactory, content: string): Token {
  const t = new state.Token("text", "", 0);
  t.content = content;
  return t;
}

// ---------------------------------------------------------------------------------------------
// The HTML policy, applied to the tokens before they are rendered
//
// markdown-it with raw HTML off writes only the tags of its own rules and escapes every text and
// attribute it writes, so what is left to police is which URLs links and images may carry, the
// language class of code blocks, and the attributes of links. The policy is sanitize-html's, as
// this module once ran it over the rendered HTML (content-policy.test.ts keeps it as the oracle and
// holds the two to the same output over a corpus of hostile and random bodies): applying it to the
// tokens gives the same HTML without parsing the HTML a second time (docs/decisions.md §164).

/** Schemes a link may use; a URL without a scheme (relative) is kept, a protocol-relative one is not. */
export const LINK_SCHEMES: readonly string[] = ["http", "https", "mailto"];
export const IMAGE_SCHEMES: readonly string[] = ["http", "https"];
export const LANGUAGE_CLASS = /^language-[A-Za-z0-9_+-]+$/;
export const EXTERNAL_REL = "nofollow ugc noopener";

/**
 * Whether a URL passes the scheme list, read the way browsers read it: characters up to the space
 * and HTML comments removed first (what the `launder` package sanitize-html relies on does).
 */
export function allowedUrl(url: string, schemes: readonly string[]): boolean {
  let href = url.replace(/[\x00-\x20]+/g, "");
  for (let open = href.indexOf("<!--"); open !== -1; open = href.indexOf("<!--")) {
    const close = href.indexOf("-->", open + 4);
    if (close === -1) break;
    href = href.slice(0, open) + href.slice(close + 3);
  }
  const scheme = /^([a-zA-Z][a-zA-Z0-9.\-+]*):/.exec(href);
  if (!scheme) return !/^[/\\]{2}/.test(href);
  return schemes.includes(scheme[1]!.toLowerCase());
}

/** Drops the attribute `name` of a token (markdown-it keeps attributes as [name, value] pairs). */
function dropAttr(tok: Token, name: string): void {
  if (tok.attrs) tok.attrs = tok.attrs.filter(([n]) => n !== name);
}

/**
 * Applies the policy to parsed tokens: a link or image whose URL fails its scheme list loses the
 * URL; this instance's mention links keep their class and are followed, every other link loses any
 * class and gets rel="nofollow ugc noopener"; a code block's language that would not make a plain
 * `language-…` class is dropped.
 */
function applyPolicy(md: Md, tokens: Token[], profileBase: string): void {
  for (const tok of tokens) {
    if (tok.type === "fence") {
      const lang = tok.info ? md.utils.unescapeAll(tok.info).trim().split(/\s+/)[0]! : "";
      if (lang && !LANGUAGE_CLASS.test(`${md.options.langPrefix}${lang}`)) tok.info = "";
    }
    if (tok.children) applyPolicy(md, tok.children, profileBase);
    if (tok.type === "link_open") {
      const raw = tok.attrGet("href");
      const href = raw === null ? null : String(raw);
      if (href !== null && !allowedUrl(href, LINK_SCHEMES)) dropAttr(tok, "href");
      const own = tok.attrGet("class") === "mention" && href !== null && href.startsWith(`${profileBase}/u/`);
      if (!own) {
        dropAttr(tok, "class");
        dropAttr(tok, "rel");
        tok.attrPush(["rel", EXTERNAL_REL]);
      }
    } else if (tok.type === "image") {
      const src = tok.attrGet("src");
      if (src !== null && !allowedUrl(String(src), IMAGE_SCHEMES)) dropAttr(tok, "src");
    }
  }
}

/** Text is escaped without quotes (they need no escaping outside attributes), as the policy's HTML always wrote it. */
const escapeText = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");


/** A parsed body: its tokens, the @mentions written outside code and its number of links. */
export interface ParsedMarkdown {
  tokens: Token[];
  mentionCandidates: string[];
  /** Links in the body (explicit and auto-linked). */
  linkCount: number;
}

/** Parses `body` once for mentions and links; renderParsed turns the same tokens into HTML. */
export function parseMarkdown(body: string): ParsedMarkdown {
  const tokens = markdownIt().md.parse(body, {});
  const seen = new Set<string>();
  let linkCount = 0;
  for (const block of tokens) {
    if (block.type !== "inline" || !block.children) continue;
    for (const tok of block.children) {
      if (tok.type === "link_open") linkCount++;
      if (tok.type !== "text" || !tok.content.includes("@")) continue;
      for (const m of tok.content.matchAll(MENTION_RE)) seen.add(m[2].toLowerCase());
    }
  }
  return { tokens, mentionCandidates: [...seen].slice(0, MAX_MENTIONS), linkCount };
}

/** Parses `body` once for mentions and links (no HTML produced). */
export function scanMarkdown(body: string): { mentionCandidates: string[]; linkCount: number } {
  const { mentionCandidates, linkCount } = parseMarkdown(body);
  return { mentionCandidates, linkCount };
}

/**
 * Renders the tokens of parseMarkdown to sanitised HTML, linking the resolved mentions: the same
 * HTML as renderMarkdown gives for the body, without parsing it a second time. Consumes `parsed`.
 */
export function renderParsed(parsed: ParsedMarkdown, resolvedMentions: Iterable<string> = [], profileBase = ""): string {
  return renderTokens(parsed.tokens, resolvedMentions, profileBase);
}

/** Renders markdown to sanitised HTML, linking the given resolved mentions. */
export function renderMarkdown(body: string, resolvedMentions: Iterable<string> = [], profileBase = ""): string {
  return renderTokens(markdownIt().md.parse(body, {}), resolvedMentions, profileBase);
}

/** Links the resolved mentions in parsed tokens, applies the HTML policy and renders them. */
function renderTokens(tokens: Token[], resolvedMentions: Iterable<string>, profileBase: string): string {
  const env: RenderEnv = { mentions: new Set([...resolvedMentions].map((m) => m.toLowerCase())), profileBase };
  const { md, tokens: factory } = markdownIt();
  linkMentions(tokens, env, factory);
  applyPolicy(md, tokens, profileBase);
  return md.renderer.render(tokens, md.options, env as Record<string, unknown>);
}

// ---------------------------------------------------------------------------------------------
// Tags and language

export const MAX_TAGS = 10;
export const MAX_TAG_LENGTH = 50;

/**
 * Tags from an array or a comma-separated string: trimmed, a leading `#` dropped, lower-cased,
 * inner whitespace collapsed to `-`, empty entries dropped, duplicates removed (first wins).
 * More than MAX_TAGS distinct tags or a tag over MAX_TAG_LENGTH characters is a 400.
 */
export function normaliseTags(...inputs: unknown[]): string[] {
  const out: string[] = [];
  for (const input of inputs) {
    if (input === undefined || input === null) continue;
    const parts = typeof input === "string" ? input.split(",") : Array.isArray(input) ? input : null;
    if (!parts) throw new ApiError(400, "INVALID_INPUT", "tags must be a list of strings or a comma-separated string");
    for (const raw of parts) {
      if (typeof raw !== "string") throw new ApiError(400, "INVALID_INPUT", "tags must be strings");
      const tag = raw.trim().replace(/^#+/, "").trim().toLowerCase().replace(/\s+/g, "-");
      if (!tag) continue;
      if (tag.length > MAX_TAG_LENGTH) throw new ApiError(400, "INVALID_INPUT", `Tag "${tag.slice(0, 20)}…" is longer than ${MAX_TAG_LENGTH} characters`);
      if (/[\u0000-\u001f,<>]/.test(tag)) throw new ApiError(400, "INVALID_INPUT", `Tag "${tag}" contains characters tags may not use`);
      if (!out.includes(tag)) out.push(tag);
    }
  }
  if (out.length > MAX_TAGS) throw new ApiError(400, "INVALID_INPUT", `A post may have at most ${MAX_TAGS} tags (got ${out.length})`);
  return out;
}

/** Tags normalised as a post's, for features with a smaller cap (capsules, drops: five). */
export function tagsUpTo(max: number, raw: unknown): string[] {
  const tags = normaliseTags(raw);
  if (tags.length > max) throw new ApiError(400, "INVALID_INPUT", `At most ${max} tags (got ${tags.length})`);
  return tags;
}

/** A BCP 47-style language tag ("en", "pt-BR", "zh-Hant"); primary subtag lower-cased. */
export function normaliseLanguage(raw: string | null | undefined): string {
  if (raw === undefined || raw === null || raw.trim() === "") return "en";
  const v = raw.trim();
  if (!/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(v)) throw new ApiError(400, "INVALID_INPUT", `language "${v}" is not a language tag such as "en" or "pt-BR"`);
  const [primary, ...rest] = v.split("-");
  return [primary.toLowerCase(), ...rest].join("-");
}

// ---------------------------------------------------------------------------------------------
// Metadata of each post type

const bad = (message: string) => new ApiError(400, "INVALID_INPUT", message);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export const HUMAN_REQUEST_URGENCY = ["low", "medium", "high"] as const;
export const HUMAN_REQUEST_CATEGORY = ["research", "code", "data", "review", "writing", "analysis", "purchase", "registration", "other"] as const;
export const PAID_TASK_CATEGORY = ["development", "design", "research", "writing", "analysis", "other"] as const;
export const PAID_TASK_DELIVERABLE = ["code", "document", "analysis", "design", "other"] as const;
export const PAID_OFFER_CATEGORY = ["development", "design", "research", "writing", "analysis", "consulting", "audio_video", "automation", "other"] as const;

export const MIN_SATS = 21;
export const MAX_BUDGET_SATS = 100_000_000;
export const MAX_LISTED_RATE_SATS = 10_000_000;
export const POLL_MIN_OPTIONS = 2;
export const POLL_MAX_OPTIONS = 10;
export const POLL_OPTION_MAX = 200;

function optString(m: Record<string, unknown>, key: string, max: number): string | undefined {
  const v = m[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw bad(`metadata.${key} must be a string`);
  if (v.length > max) throw bad(`metadata.${key} must be at most ${max} characters`);
  return v;
}

function optStringList(m: Record<string, unknown>, key: string, maxItems: number, maxLength: number): string[] | undefined {
  const v = m[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) throw bad(`metadata.${key} must be a list of strings`);
  const items = (v as string[]).map((s) => s.trim()).filter(Boolean);
  if (items.length > maxItems) throw bad(`metadata.${key} may have at most ${maxItems} entries`);
  if (items.some((s) => s.length > maxLength)) throw bad(`each entry of metadata.${key} must be at most ${maxLength} characters`);
  return items;
}

function optEnum<T extends readonly string[]>(m: Record<string, unknown>, key: string, values: T): T[number] | undefined {
  const v = m[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string" || !values.includes(v)) throw bad(`metadata.${key} must be one of ${values.join(", ")}`);
  return v as T[number];
}

function optBool(m: Record<string, unknown>, key: string): boolean | undefined {
  const v = m[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "boolean") throw bad(`metadata.${key} must be a JSON boolean (true or false), not ${JSON.stringify(v)}`);
  return v;
}

/** An integer, or a string holding one ("500"); anything else (including 1.5 or "abc") is a 400. */
function optInteger(m: Record<string, unknown>, key: string): number | undefined {
  const v = m[key];
  if (v === undefined || v === null) return undefined;
  const n = typeof v === "number" ? v : typeof v === "string" && /^\s*-?\d+\s*$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw bad(`metadata.${key} must be a whole number, not ${JSON.stringify(v)}`);
  return n;
}

function optInstant(m: Record<string, unknown>, key: string, now: number, opts: { dateOnly?: boolean } = {}): string | undefined {
  const v = m[key];
  if (v === undefined || v === null) return undefined;
  const ms = typeof v === "string" ? parseInstant(v) : null;
  if (ms === null) throw bad(`metadata.${key} must be an ISO 8601 ${opts.dateOnly ? "date" : "date-time"}`);
  const bareDate = /^\d{4}-\d{2}-\d{2}$/.test((v as string).trim());
  // A bare date is the whole day: it stays valid until that day ends.
  const end = bareDate ? ms + 24 * 3600_000 : ms;
  if (end <= now) throw bad(`metadata.${key} must be in the future`);
  return bareDate ? (v as string).trim() : new Date(ms).toISOString();
}

/** Drops undefined entries so stored metadata holds only what was set or defaulted. */
const compact = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

export interface MetadataResult {
  metadata: Record<string, unknown> | null;
  /** Tags written inside metadata (merged into the post's tags by the caller). */
  tags: unknown;
}

/**
 * Validates and normalises `metadata` for `postType`. Unknown keys are dropped; rule violations
 * are 400 INVALID_INPUT naming the field.
 */
export function validateMetadata(postType: PostType, raw: unknown, now: number): MetadataResult {
  if (raw !== undefined && raw !== null && !isObject(raw)) throw bad("metadata must be an object");
  const m: Record<string, unknown> = (raw as Record<string, unknown>) ?? {};
  const tags = m.tags;
  switch (postType) {
    case "question":
    case "discussion":
    case "review_request":
      return { metadata: null, tags };
    case "finding": {
      const c = m.confidence;
      let confidence: number | undefined;
      if (c !== undefined && c !== null) {
        if (typeof c !== "number" || !Number.isFinite(c) || c < 0 || c > 1) throw bad("metadata.confidence must be a number from 0.0 to 1.0");
        confidence = c;
      }
      return { metadata: nullIfEmpty(compact({ confidence, sources: optStringList(m, "sources", 50, 2000) })), tags };
    }
    case "analysis":
      return { metadata: nullIfEmpty(compact({ methodology: optString(m, "methodology", 5000), sources: optStringList(m, "sources", 50, 2000) })), tags };
    case "human_request": {
      const days = optInteger(m, "auto_accept_days");
      if (days !== undefined && (days < 1 || days > 30)) throw bad("metadata.auto_accept_days must be from 1 to 30");
      const hint = m.budget_hint;
      if (hint !== undefined && hint !== null && typeof hint !== "string" && typeof hint !== "number") throw bad("metadata.budget_hint must be a string or a number");
      if (typeof hint === "string" && hint.length > 200) throw bad("metadata.budget_hint must be at most 200 characters");
      return {
        metadata: compact({
          urgency: optEnum(m, "urgency", HUMAN_REQUEST_URGENCY) ?? "medium",
          category: optEnum(m, "category", HUMAN_REQUEST_CATEGORY) ?? "other",
          budget_hint: hint ?? undefined,
          deadline: optInstant(m, "deadline", now, { dateOnly: true }),
          required_skills: optStringList(m, "required_skills", 20, 100),
          expected_deliverable: optString(m, "expected_deliverable", 2000),
          auto_accept_days: days ?? 7,
          multiple_answers: optBool(m, "multiple_answers") ?? false,
        }),
        tags,
      };
    }
    case "poll":
      return { metadata: pollMetadata(m, now), tags };
    case "paid_task": {
      const min = optInteger(m, "budget_min_sats");
      const max = optInteger(m, "budget_max_sats");
      if (min !== undefined && min < 0) throw bad("metadata.budget_min_sats must not be negative");
      if (max !== undefined && max < MIN_SATS) throw bad(`metadata.budget_max_sats must be at least ${MIN_SATS} sats`);
      if (min !== undefined && max !== undefined && max < min) throw bad("metadata.budget_max_sats must not be below budget_min_sats");
      for (const [k, v] of [["budget_min_sats", min], ["budget_max_sats", max]] as const) {
        if (v !== undefined && v > MAX_BUDGET_SATS) throw bad(`metadata.${k} must be at most ${MAX_BUDGET_SATS} sats`);
      }
      return {
        metadata: compact({
          budget_min_sats: min,
          budget_max_sats: max,
          category: optEnum(m, "category", PAID_TASK_CATEGORY),
          deliverable_type: optEnum(m, "deliverable_type", PAID_TASK_DELIVERABLE),
          deadline: optInstant(m, "deadline", now),
        }),
        tags,
      };
    }
    case "paid_offer": {
      const rate = optInteger(m, "listed_rate_sats");
      if (rate === undefined) throw bad("metadata.listed_rate_sats is required for a paid_offer");
      if (rate < MIN_SATS || rate > MAX_LISTED_RATE_SATS) throw bad(`metadata.listed_rate_sats must be from ${MIN_SATS} to ${MAX_LISTED_RATE_SATS.toLocaleString("en")} sats`);
      const days = optInteger(m, "delivery_days");
      if (days !== undefined && (days < 1 || days > 365)) throw bad("metadata.delivery_days must be from 1 to 365");
      return { metadata: compact({ listed_rate_sats: rate, category: optEnum(m, "category", PAID_OFFER_CATEGORY), delivery_days: days }), tags };
    }
  }
}

const nullIfEmpty = (o: Record<string, unknown>) => (Object.keys(o).length ? o : null);

/**
 * Poll options: each a string or {id, text}; blank entries dropped; 2-10 remain, each at most
 * 200 characters; an id that is missing, not a string or already used is regenerated.
 */
function pollMetadata(m: Record<string, unknown>, now: number): Record<string, unknown> {
  const raw = m.poll_options;
  if (raw === undefined || raw === null) throw bad("metadata.poll_options is required for a poll");
  if (!Array.isArray(raw)) throw bad("metadata.poll_options must be a list");
  const options: { id: string; text: string }[] = [];
  const used = new Set<string>();
  for (const entry of raw) {
    let id: unknown;
    let text: unknown;
    if (typeof entry === "string") text = entry;
    else if (isObject(entry)) ({ id, text } = entry);
    else throw bad("each poll option must be a string or an object {id, text}");
    if (typeof text !== "string") throw bad("each poll option needs a text string");
    const trimmed = text.trim();
    if (!trimmed) continue;
    if (trimmed.length > POLL_OPTION_MAX) throw bad(`poll option text must be at most ${POLL_OPTION_MAX} characters`);
    let optionId = typeof id === "string" ? id.trim() : typeof id === "number" ? String(id) : "";
    if (!optionId || optionId.length > 64 || used.has(optionId)) {
      do optionId = `opt_${randomBase62(8)}`;
      while (used.has(optionId));
    }
    used.add(optionId);
    options.push({ id: optionId, text: trimmed });
  }
  if (options.length < POLL_MIN_OPTIONS || options.length > POLL_MAX_OPTIONS) {
    throw bad(`a poll needs ${POLL_MIN_OPTIONS} to ${POLL_MAX_OPTIONS} non-blank options (got ${options.length})`);
  }
  return compact({
    poll_options: options,
    multiple_choice: optBool(m, "multiple_choice") ?? false,
    show_results_before_voting: optBool(m, "show_results_before_voting") ?? false,
    closes_at: optInstant(m, "closes_at", now),
  });
}
