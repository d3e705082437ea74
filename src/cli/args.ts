// The command-line parser: node:util's parseArgs in strict mode, driven by the command table.
// It never guesses: an unknown command or flag, a missing or extra argument, a value on a
// switch or a missing value is a UsageError with a suggestion, and nothing runs.
import { parseArgs } from "node:util";
import { closest, distance } from "fastest-levenshtein";
import { ConfigError, SETTINGS, type Setting, type SettingName } from "../config";

interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  value?: string;
  help: string;
  /** Shown as --[no-]name: a switch whose default may be on. */
  negatable?: boolean;
}

interface PositionalSpec {
  name: string;
  /** Optional positionals are shown as [name]. */
  optional?: boolean;
  help?: string;
  /** Checks the value; returns an error message when it is not acceptable. */
  check?: (value: string) => string | null;
}

export interface CommandSpec<Run = unknown> {
  /** "serve", "admin create-user" … */
  name: string;
  summary: string;
  /** More lines for `<command> --help`. */
  description?: string;
  positionals: PositionalSpec[];
  /** The command's own flags. */
  options: Record<string, OptionSpec>;
  /** Settings it takes as flags (see config.ts SETTINGS). */
  settings: readonly SettingName[];
  run: Run;
}

export class UsageError extends Error {
  /** The command whose usage applies, for "run colony <command> --help". */
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
  }
}

type Parsed<C extends CommandSpec = CommandSpec> =
  | { kind: "help"; command?: C; group?: string }
  | { kind: "version" }
  | { kind: "run"; command: C; positionals: string[]; options: Record<string, string | boolean | undefined>; flags: Record<string, string | boolean | undefined> };

const HELP: OptionSpec = { type: "boolean", short: "h", help: "show this help" };

/** The suggestion for a mistyped word among `candidates`, or null when none is close. */
export function suggest(word: string, candidates: string[]): string | null {
  if (!candidates.length) return null;
  const best = closest(word, candidates);
  return distance(word, best) <= Math.max(2, Math.floor(best.length / 3)) ? best : null;
}

function settingOption(name: SettingName): OptionSpec & { flag: string } {
  const s: Setting = SETTINGS[name];
  const envs = s.env.join(", ");
  return { flag: s.flag!, type: s.kind.type === "bool" ? "boolean" : "string", negatable: s.kind.type === "bool", value: s.value, help: `${s.help} [${envs}; default ${s.shown}]` };
}

/** Every flag a command takes, including --help: its own, then its settings'. */
export function commandOptions(cmd: CommandSpec): Record<string, OptionSpec> {
  const out: Record<string, OptionSpec> = { ...cmd.options };
  for (const name of cmd.settings) {
    const { flag, ...opt } = settingOption(name);
    out[flag] = opt;
  }
  out.help = HELP;
  return out;
}

// A negative number is a value ("grant-karma bob -5"), not a short flag.
const NEGATIVE = /^-\d+(\.\d+)?$/;
const NEG_MARK = "\u0000neg:";

/**
 * Parses argv (without the executable and script) against the command table. The first word
 * picks the command (`serve` when argv is empty or starts with a flag); groups such as `admin`
 * take a second word.
 */
export function parseCommandLine<C extends CommandSpec>(argv: string[], commands: readonly C[]): Parsed<C> {
  const first = argv[0];
  if (first === "-h" || first === "--help") return { kind: "help" };
  if (first === "-v" || first === "--version") {
    if (argv.length > 1) throw new UsageError(`${first} takes no arguments`);
    return { kind: "version" };
  }
  if (first === "help") {
    const rest = argv.slice(1).filter((a) => !a.startsWith("-"));
    if (!rest.length) return { kind: "help" };
    return helpFor(rest.join(" "), commands);
  }

  const groups = new Set(commands.filter((c) => c.name.includes(" ")).map((c) => c.name.split(" ")[0]));
  let name: string;
  let rest: string[];
  if (first === undefined || first.startsWith("-")) {
    name = "serve";
    rest = argv;
  } else if (groups.has(first)) {
    const sub = argv[1];
    if (sub === undefined || sub === "-h" || sub === "--help") return { kind: "help", group: first };
    name = `${first} ${sub}`;
    rest = argv.slice(2);
  } else {
    name = first;
    rest = argv.slice(1);
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    const names = commands.map((c) => c.name).concat([...groups], ["help", "version"]);
    const guess = suggest(name, names);
    throw new UsageError(`unknown command "${name}"${guess ? `; did you mean "${guess}"?` : ""}`);
  }

  const options = commandOptions(command);
  const args = rest.map((a) => (NEGATIVE.test(a) ? NEG_MARK + a : a));
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args,
      options: Object.fromEntries(Object.entries(options).map(([k, o]) => [k, { type: o.type, ...(o.short ? { short: o.short } : {}) }])),
      strict: true,
      allowPositionals: true,
      allowNegative: true,
    } as Parameters<typeof parseArgs>[0]);
  } catch (err) {
    throw new UsageError(explainParseError(err, command, options), command.name);
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (values.help) return { kind: "help", command };
  const positionals = parsed.positionals.map((p) => (p.startsWith(NEG_MARK) ? p.slice(NEG_MARK.length) : p));

  const required = command.positionals.filter((p) => !p.optional).length;
  if (positionals.length < required) {
    const missing = command.positionals[positionals.length];
    throw new UsageError(`colony ${command.name}: missing <${missing.name}>`, command.name);
  }
  if (positionals.length > command.positionals.length) {
    const extra = positionals[command.positionals.length];
    throw new UsageError(`colony ${command.name}: unexpected argument "${extra}"`, command.name);
  }
  command.positionals.forEach((p, i) => {
    const v = positionals[i];
    if (v === undefined || !p.check) return;
    const problem = p.check(v);
    if (problem) throw new UsageError(`colony ${command.name}: <${p.name}> ${problem}`, command.name);
  });

  const own: Record<string, string | boolean | undefined> = {};
  const flags: Record<string, string | boolean | undefined> = {};
  for (const [k, v] of Object.entries(values)) {
    if (k === "help") continue;
    if (k in command.options) own[k] = v;
    else flags[k] = v;
  }
  // A negated switch that is a command's own (--no-x) is false; values of string flags must not be empty.
  for (const [k, v] of Object.entries({ ...own, ...flags })) {
    if (typeof v === "string" && v === "") throw new UsageError(`colony ${command.name}: --${k} needs a value`, command.name);
    if (typeof v === "string" && v.startsWith(NEG_MARK)) {
      (k in own ? own : flags)[k] = v.slice(NEG_MARK.length);
    }
  }
  return { kind: "run", command, positionals, options: own, flags };
}

function helpFor<C extends CommandSpec>(name: string, commands: readonly C[]): Parsed<C> {
  const command = commands.find((c) => c.name === name);
  if (command) return { kind: "help", command };
  if (commands.some((c) => c.name.startsWith(`${name} `))) return { kind: "help", group: name };
  const guess = suggest(name, commands.map((c) => c.name));
  throw new UsageError(`no help for "${name}": unknown command${guess ? `; did you mean "${guess}"?` : ""}`);
}

function explainParseError(err: unknown, command: CommandSpec, options: Record<string, OptionSpec>): string {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: string }).code;
  const prefix = `colony ${command.name}:`;
  const unknown = /Unknown option '([^']+)'/.exec(message)?.[1];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && unknown) {
    const bare = unknown.replace(/^-+/, "").replace(/^no-/, "");
    const guess = suggest(bare.replace(/_/g, "-"), Object.keys(options));
    return `${prefix} unknown option ${unknown}${guess ? `; did you mean --${guess}?` : ""}`;
  }
  const missing = /Option '(-\w, )?(--[\w-]+)[^']*' argument missing/.exec(message)?.[2];
  if (missing) return `${prefix} ${missing} needs a value`;
  const ambiguous = /Option '(--[\w-]+)' argument is ambiguous/.exec(message)?.[1];
  if (ambiguous) return `${prefix} ${ambiguous} needs a value (to pass a value that starts with a dash, write ${ambiguous}=<value>)`;
  const noArg = /Option '(--[\w-]+)' does not take an argument/.exec(message)?.[1];
  if (noArg) return `${prefix} ${noArg} is a switch and takes no value (use ${noArg} or --no-${noArg.slice(2)})`;
  return `${prefix} ${message.split("\n")[0]}`;
}

/** Turns a ConfigError from loadConfig into a usage error of the command. */
export function asUsageError(err: unknown, command: string): unknown {
  return err instanceof ConfigError ? new UsageError(`colony ${command}: ${err.message}`, command) : err;
}

// --- help text -----------------------------------------------------------------------------

function optionLines(options: Record<string, OptionSpec>): string[] {
  const entries = Object.entries(options).map(([name, o]) => {
    const flag = o.type === "boolean" && o.negatable ? `--[no-]${name}` : `--${name}`;
    const left = `${o.short ? `-${o.short}, ` : "    "}${flag}${o.type === "string" ? ` ${o.value ?? "<value>"}` : ""}`;
    return [left, o.help] as const;
  });
  const width = Math.min(34, Math.max(...entries.map(([l]) => l.length)));
  return entries.map(([l, h]) => (l.length > width ? `  ${l}\n  ${" ".repeat(width)}  ${h}` : `  ${l.padEnd(width)}  ${h}`));
}

function synopsis(cmd: CommandSpec): string {
  const pos = cmd.positionals.map((p) => (p.optional ? `[${p.name}]` : `<${p.name}>`)).join(" ");
  return `colony ${cmd.name}${pos ? ` ${pos}` : ""} [options]`;
}

export function commandHelp(cmd: CommandSpec): string {
  const lines = [`Usage: ${synopsis(cmd)}`, "", cmd.summary];
  if (cmd.description) lines.push("", cmd.description);
  const args = cmd.positionals.filter((p) => p.help);
  if (args.length) {
    lines.push("", "Arguments:");
    const width = Math.max(...args.map((p) => p.name.length + 2));
    for (const p of args) lines.push(`  ${`<${p.name}>`.padEnd(width)}  ${p.help}`);
  }
  lines.push("", "Options:", ...optionLines(commandOptions(cmd)));
  return lines.join("\n");
}

export function globalHelp(commands: readonly CommandSpec[], version: string, group?: string): string {
  const shown = group ? commands.filter((c) => c.name.startsWith(`${group} `)) : commands;
  const width = Math.max(...shown.map((c) => `colony ${c.name}`.length));
  const lines = [
    `colony ${version}: a self-hosted community server for AI agents`,
    "",
    `Usage: colony ${group ? `${group} <command>` : "[command]"} [options]`,
    "",
    "Commands:",
    ...shown.map((c) => `  ${`colony ${c.name}`.padEnd(width)}  ${c.summary}`),
  ];
  if (!group) lines.push("", "Options:", "  -h, --help     show this help (or `colony <command> --help` for a command's options)", "  -v, --version  print the version");
  lines.push("", `Run 'colony ${group ? `${group} ` : ""}<command> --help' for every option a command takes; each setting is also an environment variable (README, "Configuration").`);
  return lines.join("\n");
}
