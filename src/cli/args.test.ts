// The command-line parser, table-driven over the real command table.
import { describe, expect, test } from "bun:test";
import { loadConfig, PUBLIC_OTS_CALENDARS, SETTINGS } from "../config";
import { main } from "../main";
import { commandHelp, commandOptions, globalHelp, parseCommandLine, suggest, UsageError } from "./args";
import { COMMANDS } from "./commands";

const parse = (...argv: string[]) => parseCommandLine(argv, COMMANDS);

type Row = { argv: string[]; kind: "run" | "help" | "version"; command?: string; positionals?: string[]; options?: Record<string, unknown>; flags?: Record<string, string | boolean | undefined> };

const accepted: Row[] = [
  { argv: [], kind: "run", command: "serve", positionals: [], flags: {} },
  { argv: ["--port", "9000"], kind: "run", command: "serve", flags: { port: "9000" } },
  { argv: ["serve", "--data-dir=/srv/colony", "--trust-proxy"], kind: "run", command: "serve", flags: { "data-dir": "/srv/colony", "trust-proxy": true } },
  { argv: ["serve", "--no-oidc-delegation"], kind: "run", command: "serve", flags: { "oidc-delegation": false } },
  { argv: ["serve", "--public-url", "https://colony.example.org"], kind: "run", command: "serve", flags: { "public-url": "https://colony.example.org" } },
  { argv: ["admin", "create-user", "carol", "--admin"], kind: "run", command: "admin create-user", positionals: ["carol"], options: { admin: true } },
  // A switch never takes the next word: carol stays the username.
  { argv: ["admin", "create-user", "--admin", "carol"], kind: "run", command: "admin create-user", positionals: ["carol"], options: { admin: true } },
  { argv: ["admin", "create-user", "dan", "--display-name", "Dan D"], kind: "run", command: "admin create-user", positionals: ["dan"], options: { "display-name": "Dan D" } },
  { argv: ["admin", "create-user", "--", "-dash-"], kind: "run", command: "admin create-user", positionals: ["-dash-"] },
  { argv: ["admin", "create-user", "ada", "--human", "--admin", "--public-url", "https://colony.example"], kind: "run", command: "admin create-user", positionals: ["ada"], options: { human: true, admin: true } },
  { argv: ["admin", "sign-in-link", "ada"], kind: "run", command: "admin sign-in-link", positionals: ["ada"] },
  { argv: ["admin", "invite"], kind: "run", command: "admin invite", positionals: [] },
  { argv: ["admin", "invite", "--days", "30"], kind: "run", command: "admin invite", positionals: [], options: { days: "30" } },
  { argv: ["admin", "grant-karma", "bob", "-5"], kind: "run", command: "admin grant-karma", positionals: ["bob", "-5"] },
  { argv: ["admin", "grant-karma", "bob", "12"], kind: "run", command: "admin grant-karma", positionals: ["bob", "12"] },
  { argv: ["doctor", "--fix", "--data-dir", "/x"], kind: "run", command: "doctor", options: { fix: true }, flags: { "data-dir": "/x" } },
  { argv: ["version"], kind: "run", command: "version" },
  { argv: ["--version"], kind: "version" },
  { argv: ["-v"], kind: "version" },
  { argv: ["--help"], kind: "help" },
  { argv: ["-h"], kind: "help" },
  { argv: ["help"], kind: "help" },
  { argv: ["help", "backup"], kind: "help", command: "backup" },
  { argv: ["help", "admin", "create-user"], kind: "help", command: "admin create-user" },
  { argv: ["backup", "--help"], kind: "help", command: "backup" },
  { argv: ["restore", "-h"], kind: "help", command: "restore" },
  { argv: ["admin", "rotate-key", "--help"], kind: "help", command: "admin rotate-key" },
  { argv: ["admin", "--help"], kind: "help" },
  { argv: ["admin"], kind: "help" },
];

const refused: { argv: string[]; message: string | RegExp }[] = [
  { argv: ["frobnicate"], message: 'unknown command "frobnicate"' },
  { argv: ["serv"], message: 'did you mean "serve"?' },
  { argv: ["backpu", "x"], message: 'did you mean "backup"?' },
  { argv: ["admin", "create-usr", "x"], message: 'did you mean "admin create-user"?' },
  { argv: ["serve", "--data_dir", "/x"], message: "unknown option --data_dir; did you mean --data-dir?" },
  { argv: ["serve", "--prot", "80"], message: "did you mean --port?" },
  { argv: ["serve", "--port"], message: "--port needs a value" },
  { argv: ["serve", "--port", "--trust-proxy"], message: "--port needs a value" },
  { argv: ["serve", "--trust-proxy=yes"], message: "--trust-proxy is a switch and takes no value" },
  { argv: ["serve", "extra"], message: 'unexpected argument "extra"' },
  { argv: ["migrate", "--port", "80"], message: "unknown option --port" },
  { argv: ["admin", "create-user"], message: "missing <username>" },
  { argv: ["admin", "sign-in-link"], message: "missing <username>" },
  { argv: ["admin", "invite", "extra"], message: 'unexpected argument "extra"' },
  { argv: ["admin", "create-user", "a", "b"], message: 'unexpected argument "b"' },
  { argv: ["admin", "create-user", "-bad-"], message: "unknown option" },
  { argv: ["admin", "grant-karma", "bob", "abc"], message: "<amount> must be a non-zero whole number" },
  { argv: ["admin", "grant-karma", "bob", "0"], message: "<amount> must be a non-zero whole number" },
  { argv: ["admin", "grant-karma", "bob", "1.5"], message: "<amount> must be a non-zero whole number" },
  { argv: ["restore"], message: "missing <file>" },
  { argv: ["restore", "/definitely/not/here.db"], message: "does not exist" },
  { argv: ["backup", import.meta.path], message: "already exists" },
  { argv: ["version", "--data-dir", "/x"], message: "unknown option --data-dir" },
  { argv: ["--version", "extra"], message: "takes no arguments" },
  { argv: ["help", "nothing-like-it"], message: "unknown command" },
];

describe("parseCommandLine", () => {
  for (const row of accepted) {
    test(`accepts: colony ${row.argv.join(" ")}`, () => {
      const p = parse(...row.argv);
      expect(p.kind).toBe(row.kind);
      if (p.kind === "run") {
        expect(p.command.name).toBe(row.command!);
        if (row.positionals) expect(p.positionals).toEqual(row.positionals);
        if (row.options) expect(p.options).toMatchObject(row.options);
        if (row.flags) expect(p.flags).toEqual(row.flags);
      } else if (p.kind === "help" && row.command) {
        expect(p.command?.name).toBe(row.command);
      }
    });
  }

  for (const row of refused) {
    test(`refuses: colony ${row.argv.join(" ")}`, () => {
      let caught: unknown;
      try {
        parse(...row.argv);
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(UsageError);
      expect((caught as Error).message).toMatch(row.message);
    });
  }
});

describe("settings from flags", () => {
  const bad: [string[], string][] = [
    [["serve", "--port", "70000"], "--port must be a whole number from 0 to 65535"],
    [["serve", "--port", "80.5"], "--port must be a whole number"],
    [["serve", "--log-level", "loud"], "--log-level must be one of debug, info, warn, error, silent"],
    [["serve", "--public-url", "not a url"], "--public-url must be an absolute URL"],
    [["serve", "--public-url", "ftp://x.example"], "--public-url must be an http(s) or smtp(s) URL"],
    [["serve", "--rate-limit-multiplier", "-1"], "--rate-limit-multiplier must be a number >= 0"],
    [["serve", "--read-workers", "two"], "--read-workers must be a whole number"],
    [["serve", "--ots-calendars", "ftp://cal.example"], "--ots-calendars must be a comma-separated list of http(s) URLs"],
    [["serve", "--ots-calendars", "https://cal.example/?q=1"], "--ots-calendars must be a comma-separated list of http(s) URLs"],
    [["serve", "--ots-calendars", " , "], "--ots-calendars must be a comma-separated list of http(s) URLs"],
  ];
  for (const [argv, message] of bad) {
    test(`a bad value is a usage error: ${argv.slice(1).join(" ")}`, async () => {
      const err: string[] = [];
      const code = await main(argv, { out: () => {}, err: (l) => err.push(l), env: {} });
      expect(code).toBe(2);
      expect(err.join("\n")).toContain(message);
    });
  }

  test("a bad environment value names the variable", async () => {
    const err: string[] = [];
    const code = await main(["migrate"], { out: () => {}, err: (l) => err.push(l), env: { COLONY_LOG_LEVEL: "chatty" } });
    expect(code).toBe(2);
    expect(err.join("\n")).toContain("COLONY_LOG_LEVEL must be one of");
  });

  test("a flag wins over the environment, which wins over the default", () => {
    const p = parse("serve", "--port", "9001");
    if (p.kind !== "run") throw new Error("expected a command");
    expect(loadConfig({ COLONY_PORT: "9000" }, p.flags).port).toBe(9001);
    expect(loadConfig({ COLONY_PORT: "9000" }, {}).port).toBe(9000);
    expect(loadConfig({}, {}).port).toBe(8080);
    expect(loadConfig({ COLONY_TRUST_PROXY: "on" }, { "trust-proxy": false }).trustProxy).toBe(false);
  });

  test("notarisation: on with the public calendars by default; a list of calendars, trailing slashes dropped", () => {
    expect(loadConfig({}, {}).notarisation).toEqual({ enabled: true, calendars: PUBLIC_OTS_CALENDARS, timeoutMs: 5000, allowPrivate: false });
    const c = loadConfig({ COLONY_NOTARISATION: "off", COLONY_OTS_CALENDARS: "https://a.example/, http://127.0.0.1:9000", COLONY_OTS_TIMEOUT_MS: "800" }, {});
    expect(c.notarisation).toEqual({ enabled: false, calendars: ["https://a.example", "http://127.0.0.1:9000"], timeoutMs: 800, allowPrivate: false });
  });

  test("a data folder that is a file is refused before anything runs", async () => {
    const err: string[] = [];
    const code = await main(["migrate", "--data-dir", import.meta.path], { out: () => {}, err: (l) => err.push(l), env: {} });
    expect(code).toBe(2);
    expect(err.join("\n")).toContain("is not a directory");
  });
});

describe("help", () => {
  test("every command's help lists every flag it takes", () => {
    for (const cmd of COMMANDS) {
      const text = commandHelp(cmd);
      expect(text).toContain(`Usage: colony ${cmd.name}`);
      for (const flag of Object.keys(commandOptions(cmd))) expect(text).toMatch(new RegExp(`--(\\[no-\\])?${flag}\\b`));
    }
  });

  test("serve's help lists every setting that has a flag", () => {
    const text = commandHelp(COMMANDS.find((c) => c.name === "serve")!);
    for (const s of Object.values(SETTINGS) as { flag?: string; env: readonly string[] }[]) {
      if (!s.flag) continue;
      expect(text).toMatch(new RegExp(`--(\\[no-\\])?${s.flag}\\b`));
      expect(text).toContain(s.env[0]);
    }
  });

  test("the global help lists every command", () => {
    const text = globalHelp(COMMANDS, "1.2.3");
    for (const cmd of COMMANDS) expect(text).toContain(`colony ${cmd.name}`);
    expect(text).toContain("-v, --version");
  });

  test("main prints help and the version and exits 0", async () => {
    for (const argv of [["--help"], ["backup", "--help"], ["-v"]]) {
      const out: string[] = [];
      expect(await main(argv, { out: (l) => out.push(l), err: () => {}, env: {} })).toBe(0);
      expect(out.join("\n").length).toBeGreaterThan(0);
    }
  });

  test("suggestions only for close words", () => {
    expect(suggest("serv", ["serve", "restore"])).toBe("serve");
    expect(suggest("zzzzzz", ["serve", "restore"])).toBeNull();
  });
});
