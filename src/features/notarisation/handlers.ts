// Background work of notarisation: the upgrade task asks the calendars for the rest of each
// pending proof (upgrade.ts).
import type { Ctx } from "../../core/context";
import { upgradeDue, UPGRADE_TASK } from "./upgrade";

export function register(ctx: Ctx): void {
  ctx.jobs.every(UPGRADE_TASK, "*/5 * * * *", () => upgradeDue(ctx));
}
