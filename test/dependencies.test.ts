// Every runtime dependency is imported by the server's code: nothing ships that nothing uses.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { dependencies: Record<string, string> };

function sources(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) sources(path, out);
    else if (/\.tsx?$/.test(entry) && !entry.endsWith(".test.ts")) out.push(readFileSync(path, "utf8"));
  }
  return out;
}

test("every runtime dependency is imported by src/ or scripts/build.ts", () => {
  const code = [...sources(join(root, "src")), readFileSync(join(root, "scripts", "build.ts"), "utf8")].join("\n");
  const unused = Object.keys(pkg.dependencies).filter((name) => !code.includes(`"${name}"`) && !code.includes(`"${name}/`));
  expect(unused).toEqual([]);
});
