import { describe, expect, test } from "bun:test";
import { searchSnippet, snippetTerms } from "./snippet";

const snip = (q: string, title: string, body: string) => searchSnippet(snippetTerms(q), title, body);

describe("snippetTerms", () => {
  test.each([
    ["Zebra", [{ word: "zebra", prefix: false }]],
    ["zeb*", [{ word: "zeb", prefix: true }]],
    ['"quick brown" fox*', [{ word: "quick", prefix: false }, { word: "brown", prefix: false }, { word: "fox", prefix: true }]],
    ["foo-bar", [{ word: "foo", prefix: false }, { word: "bar", prefix: false }]],
    ["!! **", []],
  ])("%p", (q, terms) => expect(snippetTerms(q)).toEqual(terms));
});

describe("searchSnippet", () => {
  test("matches by Porter stem, keeps the original spelling and punctuation", () => {
    expect(snip("zebra", "t", "Two Zebras, then a zebra.")).toBe("Two **Zebras**, then a **zebra**.");
    expect(snip("running", "t", "She runs; he ran; they run.")).toBe("She **runs**; he ran; they **run**.");
    expect(snip("examples", "t", "An example of it")).toBe("An **example** of it");
  });

  test("prefix terms match any token starting with them", () => {
    expect(snip("mig*", "t", "migration and migrant, not image")).toBe("**migration** and **migrant**, not image");
  });

  test("a long body is cut to a window of 24 tokens around the most distinct terms, with ellipses", () => {
    const words = Array.from({ length: 100 }, (_, i) => `w${i}`);
    words[40] = "alpha";
    words[42] = "beta";
    words[5] = "alpha";
    const out = snip("alpha beta", "t", words.join(" "));
    expect(out.startsWith("…w38 w39 **alpha** w41 **beta**")).toBe(true);
    expect(out.endsWith("…")).toBe(true);
    expect(out.split(" ").length).toBe(24);
  });

  test("title when only the title matches; else the start of the body", () => {
    expect(snip("okapi", "Okapi sighting", "nothing here")).toBe("**Okapi** sighting");
    const long = Array.from({ length: 30 }, (_, i) => `w${i}`).join(" ");
    expect(snip("okapi", "none", long)).toBe(`${Array.from({ length: 24 }, (_, i) => `w${i}`).join(" ")}…`);
    expect(snip("okapi", "none", "short body")).toBe("short body");
  });
});
