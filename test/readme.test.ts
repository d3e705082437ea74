// The README's two set-up commands are the project's contract with a fresh machine; .ci/run
// must run exactly the README's test command, and `bun run start` must serve from source.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const ci = readFileSync(join(root, ".ci", "run"), "utf8");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

test(".ci/run runs exactly the README's test command", () => {
  const ciCommand = /TEST_COMMAND='([^']+)'/.exec(ci)?.[1];
  expect(ciCommand).toBeDefined();
  const blocks = [...readme.matchAll(/```sh\n([^`]+?)\n```/g)].map((m) => m[1].trim());
  expect(blocks).toContain(ciCommand!);
  expect(ciCommand!.endsWith("bun run test")).toBe(true);
  // The whole suite: every file (no paths), over the cores, with the 20 s timeout bun test reads from no file.
  expect(pkg.scripts.test).toBe("bun test --parallel --no-isolate --timeout=20000");
});

test("the README's start command serves from source on the embedded default", () => {
  const blocks = [...readme.matchAll(/```sh\n([^`]+?)\n```/g)].map((m) => m[1].trim());
  expect(blocks).toContain("npm install -g bun@1.4.5 && bun install --frozen-lockfile && bun run start");
  expect(pkg.scripts.start).toBe("bun src/main.ts serve");
});

test("the README's Configuration table lists every setting with its flag, and nothing else", async () => {
  const { SETTINGS } = await import("../src/config");
  const section = readme.slice(readme.indexOf("## Configuration"), readme.indexOf("\n## ", readme.indexOf("## Configuration") + 5));
  const rows = section.split("\n").filter((l) => l.startsWith("| `COLONY_"));
  const documented = new Map(rows.map((r) => {
    const cells = r.split("|").map((c) => c.trim());
    return [/`(COLONY_[A-Z_]+)`/.exec(cells[1])![1], /`--(?:\[no-\])?([a-z-]+)`/.exec(cells[2])?.[1] ?? null] as const;
  }));
  for (const s of Object.values(SETTINGS) as { env: readonly string[]; flag?: string }[]) {
    expect(documented.has(s.env[0])).toBe(true);
    expect(documented.get(s.env[0]) ?? null).toBe(s.flag ?? null);
  }
  expect(documented.size).toBe(Object.keys(SETTINGS).length);
});
