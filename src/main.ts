#!/usr/bin/env bun
// The command line: `colony [command] [options]`. The commands are listed in cli/commands.ts;
// `colony --help` and `colony <command> --help` describe them.
import { existsSync, statSync } from "node:fs";
import { asUsageError, commandHelp, globalHelp, parseCommandLine, UsageError } from "./cli/args";
import { COMMANDS, configFor } from "./cli/commands";
import { API_VERSION } from "./core/version";

/** Exit status of a usage error (as BSD's sysexits EX_USAGE is to shells: 2 by convention). */
const USAGE_EXIT = 2;

interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  env: Record<string, string | undefined>;
}

const processIo: Io = { out: (l) => console.log(l), err: (l) => console.error(l), env: process.env };

/** Runs one command line; resolves to the exit status (serve resolves once it is listening). */
export async function main(argv: string[], io: Io = processIo): Promise<number> {
  let parsed: ReturnType<typeof parseCommandLine<(typeof COMMANDS)[number]>>;
  let config;
  try {
    parsed = parseCommandLine(argv, COMMANDS);
    if (parsed.kind === "help") {
      io.out(parsed.command ? commandHelp(parsed.command) : globalHelp(COMMANDS, API_VERSION, parsed.group));
      return 0;
    }
    if (parsed.kind === "version") {
      io.out(API_VERSION);
      return 0;
    }
    try {
      config = configFor(io.env, parsed.flags);
    } catch (err) {
      throw asUsageError(err, parsed.command.name);
    }
    if (parsed.command.settings.includes("dataDir") && existsSync(config.dataDir) && !statSync(config.dataDir).isDirectory()) {
      throw new UsageError(`colony ${parsed.command.name}: the data folder ${config.dataDir} is not a directory`, parsed.command.name);
    }
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(err.message.startsWith("colony ") ? err.message : `colony: ${err.message}`);
    io.err(`Run 'colony ${err.command ? `${err.command} ` : ""}--help' for usage.`);
    return USAGE_EXIT;
  }
  try {
    await parsed.command.run({ config, positionals: parsed.positionals, options: parsed.options, print: io.out });
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof UsageError) {
      // A command that checks its own options after parsing (e.g. a value from a fixed list).
      io.err(err.message);
      io.err(`Run 'colony ${parsed.command.name} --help' for usage.`);
      return USAGE_EXIT;
    }
    io.err(`colony ${parsed.command.name}: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}

if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => {
      // serve keeps running until a signal; every other command ends here.
      if (code !== 0) process.exit(code);
    },
    (err) => {
      console.error(`colony: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      process.exit(1);
    },
  );
}
