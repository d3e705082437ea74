// Start-up reconciliation of the vault's rows and content files (docs/decisions.md §74). Runs once
// before the server listens. Writes make the content file durable before the row that names it
// commits and remove it only after the last row naming it is gone, so after a crash the only
// expected leftovers are unnamed content files and dot work files of interrupted writes; a row
// whose file is missing (lost or removed by hand) is deleted too, so that every listed file reads
// and the quota counts what is on disk. Each fix is logged.
import { eq } from "drizzle-orm";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Ctx } from "../../core/context";
import { contentPath, VAULT_FOLDER } from "./store";
import { vaultFiles } from "./tables";

export interface VaultRepair {
  rowsWithoutFile: number;
  filesWithoutRow: number;
  workFiles: number;
}

export function reconcileVault(ctx: Ctx): VaultRepair {
  const repair: VaultRepair = { rowsWithoutFile: 0, filesWithoutRow: 0, workFiles: 0 };
  const root = join(ctx.config.dataDir, VAULT_FOLDER);
  const rows = ctx.db.select({ id: vaultFiles.id, userId: vaultFiles.userId, filename: vaultFiles.filename, sha256: vaultFiles.sha256 }).from(vaultFiles).all();
  const named = new Set<string>();
  for (const row of rows) {
    if (existsSync(contentPath(ctx.config.dataDir, row.userId, row.sha256))) {
      named.add(`${row.userId}/${row.sha256}`);
      continue;
    }
    ctx.db.delete(vaultFiles).where(eq(vaultFiles.id, row.id)).run();
    repair.rowsWithoutFile++;
    ctx.log.warn("vault: removed a file whose content is missing from the data folder", { user_id: row.userId, filename: row.filename, sha256: row.sha256 });
  }
  if (!existsSync(root)) return repair;
  for (const user of readdirSync(root)) {
    const dir = join(root, user);
    if (!statSync(dir).isDirectory()) continue;
    for (const entry of readdirSync(dir)) {
      if (entry.startsWith(".")) {
        rmSync(join(dir, entry), { force: true, recursive: true });
        repair.workFiles++;
        ctx.log.info("vault: removed the work file of an interrupted write", { user_id: user, file: entry });
      } else if (!named.has(`${user}/${entry}`)) {
        rmSync(join(dir, entry), { force: true, recursive: true });
        repair.filesWithoutRow++;
        ctx.log.info("vault: removed a content file no vault file names", { user_id: user, file: entry });
      }
    }
  }
  return repair;
}
