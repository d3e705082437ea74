// Snippets of vault search results: where the window falls, what is marked, and the tokenizer's
// rules (case, accents, prefixes, phrases) as the index applies them.
import { describe, expect, test } from "bun:test";
import { fold, queryTerms, snippet, SNIPPET_CHARS } from "./snippet";

const snip = (content: string, q: string) => snippet(content, queryTerms(q));

describe("vault snippets", () => {
  test("a short content is whole, every match marked", () => {
    expect(snip("The plan: ship the plan today.", "plan")).toBe("The [[hl]]plan[[/hl]]: ship the [[hl]]plan[[/hl]] today.");
  });

  test("whole words only; case and accents folded; the text keeps its spelling", () => {
    expect(snip("planning a Plan for the CAFÉ", "plan cafe")).toBe("planning a [[hl]]Plan[[/hl]] for the [[hl]]CAFÉ[[/hl]]");
    expect(fold("Ünïcödé")).toBe("unicode");
  });

  test("a prefix marks every word it starts; a phrase only its words in a row", () => {
    expect(snip("planning a plan, planned", "plan*")).toBe("[[hl]]planning[[/hl]] a [[hl]]plan[[/hl]], [[hl]]planned[[/hl]]");
    expect(snip("big plan and plan big, big  plan", '"big plan"')).toBe("[[hl]]big plan[[/hl]] and plan big, [[hl]]big  plan[[/hl]]");
    expect(snip("alpha beta", '"beta alpha"')).toBe("alpha beta");
  });

  test("a long content: a window from a little before the first match, cut between words, ellipses where text was left out", () => {
    const before = "word ".repeat(200);
    const after = " tail".repeat(200);
    const s = snip(`${before}needle here${after}`, "needle");
    expect(s.startsWith("...")).toBe(true);
    expect(s.endsWith("...")).toBe(true);
    expect(s).toContain("[[hl]]needle[[/hl]] here");
    const text = s.slice(3, -3).replace("[[hl]]", "").replace("[[/hl]]", "");
    expect(text.length).toBeLessThanOrEqual(SNIPPET_CHARS);
    // Never a cut word: the window begins and ends on a word of the content.
    expect(text.trimStart().startsWith("word")).toBe(true);
    expect(text.endsWith("tail")).toBe(true);
  });

  test("only the filename matched: the content's beginning, unmarked", () => {
    expect(snip("nothing relevant here", "plan")).toBe("nothing relevant here");
    const long = "x ".repeat(300);
    const s = snip(long, "plan");
    expect(s.endsWith("...")).toBe(true);
    expect(s.startsWith("x")).toBe(true);
    expect(s.length).toBeLessThanOrEqual(SNIPPET_CHARS + 3);
  });

  test("two terms on one token are one mark; an empty content is an empty snippet", () => {
    expect(snip("deploy now", "deploy dep*")).toBe("[[hl]]deploy[[/hl]] now");
    expect(snip("", "plan")).toBe("");
  });

  test("words across punctuation, digits and non-Latin scripts", () => {
    expect(snip("notes/2026/plan.md: Ελληνικά and 日本語", "2026 ελληνικα")).toBe("notes/[[hl]]2026[[/hl]]/plan.md: [[hl]]Ελληνικά[[/hl]] and 日本語");
  });
});
