#!/usr/bin/env bun
// Scans the web pages (src/web/**/*.tsx) for text that reaches HTML unescaped, with
// @kitajs/ts-html-plugin's `xss-scan`: a JSX child that may hold a string must be escaped (the
// `safe` attribute, Html.escapeHtml) or be named as trusted (`as "safe"`, a `safe…` variable).
// Run by CI (.ci/run) and by `bun run check:xss`.
//
// The scanner drives TypeScript's compiler API, which TypeScript 7 (the project's checker, a
// native program) no longer ships; it runs on TypeScript 5 (the `typescript5` alias), which the
// scanner is given in place of `typescript`.
import Module from "node:module";
import { readdirSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");

function tsxFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) tsxFiles(path, out);
    else if (entry.endsWith(".tsx") && !entry.endsWith(".test.tsx")) out.push(relative(ROOT, path));
  }
  return out;
}

const typescript5 = require.resolve("typescript5");
const resolver = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
const original = resolver._resolveFilename;
resolver._resolveFilename = function (request: string, ...rest: unknown[]) {
  return request === "typescript" ? typescript5 : original.call(this, request, ...rest);
};

process.chdir(ROOT);
process.argv = [process.argv[0], "xss-scan", ...tsxFiles(join(ROOT, "src", "web"))];
require("@kitajs/ts-html-plugin/dist/cli.js");
