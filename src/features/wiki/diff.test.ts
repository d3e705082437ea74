// The revision diff (docs/decisions.md §88): a unified diff that patch tools apply, the whole
// replacement when the time budget runs out, and the kept answers.
import { describe, expect, test } from "bun:test";
import { applyPatch } from "diff";
import { unifiedDiff } from "./diff";

let n = 0;
const key = () => `k${++n}`;
const side = (text: string, label = "r") => ({ label, text });

/** A deterministic pseudo-random text of `lines` lines. */
function text(seed: number, lines: number): string {
  let x = seed;
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out.push(`line ${x % 97}`);
  }
  return out.join("\n") + "\n";
}

describe("unifiedDiff", () => {
  test("applying the diff to the old text gives the new one, for many edits", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const before = text(seed, 40);
      const after = text(seed + 100, 35);
      const d = unifiedDiff(key(), "page", side(before), side(after));
      expect(applyPatch(before, d.diff)).toBe(after);
    }
  });

  test("additions and deletions count the changed lines; identical texts have an empty diff", () => {
    const d = unifiedDiff(key(), "page", side("a\nb\nc\n"), side("a\nB\nc\nd\n"));
    expect({ additions: d.additions, deletions: d.deletions }).toEqual({ additions: 2, deletions: 1 });
    expect(unifiedDiff(key(), "page", side("same\n"), side("same\n"))).toEqual({ diff: "", additions: 0, deletions: 0 });
  });

  test("past its time budget the diff replaces every line, and still applies", () => {
    const before = text(7, 3000);
    const after = text(8, 3000);
    const d = unifiedDiff(key(), "page", side(before, "old"), side(after, "new"), -1);
    expect(d).toMatchObject({ additions: 3000, deletions: 3000 });
    expect(d.diff.startsWith("--- a/page\told\n+++ b/page\tnew\n@@ -1,3000 +1,3000 @@\n")).toBe(true);
    expect(applyPatch(before, d.diff)).toBe(after);
    // Without a final newline, and from or to nothing.
    const noEol = unifiedDiff(key(), "page", side("x\ny"), side(""), -1);
    expect(noEol.diff).toBe("--- a/page\tr\n+++ b/page\tr\n@@ -1,2 +0,0 @@\n-x\n-y\n\\ No newline at end of file\n");
    expect(applyPatch("x\ny", noEol.diff)).toBe("");
    expect(applyPatch("", unifiedDiff(key(), "page", side(""), side("z\n"), -1).diff)).toBe("z\n");
  });

  test("a diff is kept by its key", () => {
    const k = key();
    const first = unifiedDiff(k, "page", side("a\n"), side("b\n"));
    expect(unifiedDiff(k, "page", side("other\n"), side("texts\n"))).toBe(first);
  });
});
