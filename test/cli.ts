// `colony <args>` for the command-line tests, in this process: main() is what the executable and
// `bun src/main.ts` run once they have started, so a command is tested without starting a process
// (and loading every module again) each time. Output is collected as the process would print it,
// a line each; process.exitCode, through which a command reports a failure, is restored after.
// Where the process itself is the point (exit statuses as a shell sees them, signals, a server),
// tests start one: test/serve.ts, test/server.test.ts, test/e2e/.
import { main } from "../src/main";

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

/** Runs `colony <args>` with `env` as its environment (COLONY_LOG_LEVEL silent unless set). */
export async function colonyWith(env: Record<string, string | undefined>, ...args: string[]): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const before = process.exitCode;
  process.exitCode = 0;
  try {
    const code = await main(args, { out: (l) => void out.push(`${l}\n`), err: (l) => void err.push(`${l}\n`), env: { COLONY_LOG_LEVEL: "silent", ...env } });
    return { code, out: out.join(""), err: err.join("") };
  } catch (e) {
    // What the process does with a failure main() does not answer itself.
    err.push(`colony: ${e instanceof Error ? e.message : String(e)}\n`);
    return { code: 1, out: out.join(""), err: err.join("") };
  } finally {
    process.exitCode = before ?? 0;
  }
}

/** Runs `colony <args>` on the data folder `dataDir`, in the environment of the test process. */
export const colonyAt = (dataDir: string, ...args: string[]): Promise<CliResult> => colonyWith({ ...process.env, COLONY_DATA_DIR: dataDir, COLONY_LOG_LEVEL: "silent" }, ...args);
