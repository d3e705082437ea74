import { describe, expect, test } from "bun:test";
import { normaliseLanguage, normaliseTags, renderMarkdown, scanMarkdown } from "./content";
import { hotRank } from "./service";

describe("renderMarkdown: sanitised HTML", () => {
  const cases: [string, string, (html: string) => void][] = [
    ["raw script tags are escaped text", "<script>alert(1)</script>", (html) => expect(html).toBe("<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n")],
    ["inline event handlers never become attributes", '<img src="x" onerror="alert(1)">', (html) => expect(html).not.toMatch(/<img/)],
    ["javascript: links are not links", "[click](javascript:alert(1))", (html) => expect(html).not.toContain("href")],
    ["JaVaScRiPt: with entities is not a link either", "[click](jav&#x61;script:alert(1))", (html) => expect(html).not.toContain("href")],
    ["data: links are dropped", "[x](data:text/html;base64,PHNjcmlwdD4=)", (html) => expect(html).not.toContain("href")],
    ["vbscript: links are dropped", "[x](vbscript:msgbox)", (html) => expect(html).not.toContain("href")],
    ["http links get rel=nofollow ugc noopener", "[x](https://a.example)", (html) => expect(html).toContain('<a href="https://a.example" rel="nofollow ugc noopener">x</a>')],
    ["bare URLs are linked", "see https://a.example/x", (html) => expect(html).toContain('href="https://a.example/x"')],
    ["images over https are kept", "![alt](https://a.example/i.png)", (html) => expect(html).toContain('<img src="https://a.example/i.png" alt="alt" />')],
    ["code keeps its language class", "```ts\nconst a = 1;\n```", (html) => expect(html).toContain('<code class="language-ts">')],
    ["a forged mention class is removed", '[x](https://a.example "t")', (html) => expect(html).not.toContain("class=")],
    ["tables keep their alignment", "| a |\n|--:|\n| 1 |", (html) => expect(html).toContain('<th style="text-align:right">a</th>')],
  ];
  for (const [name, md, check] of cases) test(name, () => check(renderMarkdown(md)));

  test("resolved mentions become profile links; others stay text", () => {
    const html = renderMarkdown("hi @alice and @bob", ["alice"], "https://colony.example");
    expect(html).toBe('<p>hi <a href="https://colony.example/u/alice" class="mention">@alice</a> and @bob</p>\n');
  });
});

describe("scanMarkdown", () => {
  test("mentions outside code, lower-cased, deduplicated; emails and code spans are not mentions", () => {
    const s = scanMarkdown("@Alice hi @alice, mail me@example.com, `@carol`\n\n```\n@dave\n```\n> @eve-1 quoted");
    expect(s.mentionCandidates).toEqual(["alice", "eve-1"]);
  });

  test("links are counted, explicit and automatic", () => {
    expect(scanMarkdown("[a](https://a.example) https://b.example plain").linkCount).toBe(2);
  });
});

describe("normaliseTags", () => {
  test("array or comma string; trimmed, lower-cased, #-less, deduplicated, spaces to hyphens", () => {
    expect(normaliseTags(" AI, #ML,ai,,deep learning ")).toEqual(["ai", "ml", "deep-learning"]);
    expect(normaliseTags(["B", "a"], ["a", "c"])).toEqual(["b", "a", "c"]);
    expect(normaliseTags(undefined, null)).toEqual([]);
  });
  test("refusals are 400 INVALID_INPUT", () => {
    for (const bad of [Array.from({ length: 11 }, (_, i) => `t${i}`), ["x".repeat(51)], [3], { a: 1 }, ["a<b"]]) {
      try {
        normaliseTags(bad);
        throw new Error("accepted " + JSON.stringify(bad));
      } catch (err: any) {
        expect([err.status, err.code]).toEqual([400, "INVALID_INPUT"]);
      }
    }
  });
});

describe("normaliseLanguage", () => {
  test("defaults to en; the primary subtag is lower-cased", () => {
    expect(normaliseLanguage(undefined)).toBe("en");
    expect(normaliseLanguage("")).toBe("en");
    expect(normaliseLanguage("PT-BR")).toBe("pt-BR");
    expect(() => normaliseLanguage("e")).toThrow();
  });
});

describe("hotRank", () => {
  test("higher scores rank higher at the same instant; newer ranks higher at the same score", () => {
    const t = Date.UTC(2026, 0, 1);
    expect(hotRank(10, t)).toBeGreaterThan(hotRank(1, t));
    expect(hotRank(-10, t)).toBeLessThan(hotRank(0, t));
    expect(hotRank(0, t + 1000)).toBeGreaterThan(hotRank(0, t));
    // 12.5 hours are worth a factor of ten in score.
    expect(hotRank(1, t + 45_000_000)).toBeCloseTo(hotRank(10, t), 9);
  });
});
