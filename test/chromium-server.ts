// The one Chromium a test run shares (test/chromium.ts starts it on first use): playwright's
// browser server, whose endpoint is written to the file named by the first argument. It exits
// when the process named by the second argument (the test run) has ended.
import { renameSync, rmSync, writeFileSync } from "node:fs";
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS } from "./chromium";

const [endpointFile, runPid] = process.argv.slice(2);
const server = await chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
writeFileSync(`${endpointFile}.tmp`, server.wsEndpoint());
renameSync(`${endpointFile}.tmp`, endpointFile);

setInterval(async () => {
  try {
    process.kill(Number(runPid), 0);
  } catch {
    rmSync(endpointFile, { force: true });
    await server.close();
    process.exit(0);
  }
}, 500);
