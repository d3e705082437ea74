// What a wiki revision changed, as a unified diff of its content against the revision before it
// (docs/decisions.md §88), computed with jsdiff (`diff`). A line diff of two 200,000-character
// texts that share little can take long (Myers' algorithm grows with the edit distance), so the
// computation has a time budget; past it the diff replaces every old line with every new one,
// still a correct unified diff, only not the smallest. Revisions never change, so the last
// diffs are kept.
import type * as Jsdiff from "diff";
import type { StructuredPatch } from "diff";

/** jsdiff, loaded on the first diff rather than at start-up (cold start). */
let jsdiff: typeof Jsdiff | null = null;
const lib = () => (jsdiff ??= require("diff") as typeof Jsdiff);

/** How long one diff may compute before it falls back to the whole replacement (ms). */
const DIFF_BUDGET_MS = 100;
/** Lines of context around each change, as `diff -u` prints. */
const CONTEXT = 3;
const KEPT = 256;

export interface RevisionDiff {
  diff: string;
  additions: number;
  deletions: number;
}

const kept = new Map<string, RevisionDiff>();

/**
 * The unified diff from `before` to `after` (file names `a/<name>` and `b/<name>`, the revision
 * labels in the headers), with the count of added and removed lines. `key` names the pair (the
 * two revision ids) for the cache.
 */
export function unifiedDiff(key: string, name: string, before: { label: string; text: string }, after: { label: string; text: string }, budgetMs = DIFF_BUDGET_MS): RevisionDiff {
  const hit = kept.get(key);
  if (hit) return hit;
  const patch =
    lib().structuredPatch(`a/${name}`, `b/${name}`, before.text, after.text, before.label, after.label, { context: CONTEXT, timeout: budgetMs }) ??
    wholeReplacement(`a/${name}`, `b/${name}`, before, after);
  let additions = 0;
  let deletions = 0;
  for (const h of patch.hunks) {
    for (const line of h.lines) {
      if (line.startsWith("+")) additions++;
      else if (line.startsWith("-")) deletions++;
    }
  }
  const out = { diff: patch.hunks.length ? lib().formatPatch(patch, lib().FILE_HEADERS_ONLY) : "", additions, deletions };
  if (kept.size >= KEPT) kept.delete(kept.keys().next().value!);
  kept.set(key, out);
  return out;
}

/** The patch that removes every line of `before` and adds every line of `after` (one hunk). */
function wholeReplacement(oldName: string, newName: string, before: { label: string; text: string }, after: { label: string; text: string }): StructuredPatch {
  const oldLines = linesOf(before.text);
  const newLines = linesOf(after.text);
  const lines = [...oldLines.lines.map((l) => "-" + l), ...(oldLines.noNewline ? ["\\ No newline at end of file"] : [])];
  lines.push(...newLines.lines.map((l) => "+" + l), ...(newLines.noNewline ? ["\\ No newline at end of file"] : []));
  return {
    oldFileName: oldName,
    newFileName: newName,
    oldHeader: before.label,
    newHeader: after.label,
    // jsdiff writes an empty side's start as one less (`-0,0`), as `diff -u` does.
    hunks: [{ oldStart: 1, oldLines: oldLines.lines.length, newStart: 1, newLines: newLines.lines.length, lines }],
  };
}

function linesOf(text: string): { lines: string[]; noNewline: boolean } {
  if (!text) return { lines: [], noNewline: false };
  const lines = text.split("\n");
  const noNewline = lines[lines.length - 1] !== "";
  if (!noNewline) lines.pop();
  return { lines, noNewline };
}
