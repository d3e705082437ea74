// Start-up reconciliation of the vault's rows and content files (docs/decisions.md §74). Runs once
// before the server listens. Writes make the content file durable before the row that names it
// commits and remove it only after the last row naming it is gone, so after a crash the only
// expected leftovers are unnamed content files and dot work files of interrupted writes; a row
// whose file is missing (lost or removed by hand) is deleted too, so that every listed file reads
// and the quota counts what is on disk. Then the full-text index (fts.ts, in its own file:
// docs/decisions.md §177): what the queue holds is sent, then every entry is compared with its
// row (the content and name it was made from) and whatever differs is queued again — a file
// without its entry or with an older one, an entry without its file — and sent. The rows and files
// are reconciled before the returned promise's first wait (so before the server listens); the
// index after, while the server serves (a search sends its caller's queued files first). Each fix
// is logged.
import { eq } from "drizzle-orm";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Ctx } from "../../core/context";
import { drainIndexQueue, indexEntries, indexReady, queuedCount, requeue } from "./fts";
import type { IndexEntry } from "./index-db";
import { contentPath, VAULT_FOLDER } from "./store";
import { vaultFiles } from "./tables";

interface VaultRepair {
  rowsWithoutFile: number;
  filesWithoutRow: number;
  workFiles: number;
  /** Files whose index entry was missing or made from another content or name (queued again and indexed). */
  reindexed: number;
  /** Index entries without their file (removed). */
  staleEntries: number;
  /** Files queued for the index when reconciliation began (a crash, or an index made anew): indexed now. */
  queued: number;
}

export function reconcileVault(ctx: Ctx): Promise<VaultRepair> {
  const repair: VaultRepair = { rowsWithoutFile: 0, filesWithoutRow: 0, workFiles: 0, reindexed: 0, staleEntries: 0, queued: 0 };
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
  reconcileFolders(ctx, root, named, repair);
  return reconcileIndex(ctx, repair);
}

function reconcileFolders(ctx: Ctx, root: string, named: Set<string>, repair: VaultRepair): void {
  if (!existsSync(root)) return;
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
}

/** Rows and entries compared per page. */
const COMPARE_PAGE = 1000;

/**
 * Sends what the queue holds, then walks the rows and the index's entries side by side in file id
 * order, a page at a time (nothing of either is held whole), queues every file whose entry is
 * missing or was made from other content or another name and every entry without its file, and
 * sends those.
 */
async function reconcileIndex(ctx: Ctx, repair: VaultRepair): Promise<VaultRepair> {
  await indexReady(ctx);
  repair.queued = queuedCount(ctx);
  await drainIndexQueue(ctx);
  const rowsAfter = ctx.db.$client.prepare<IndexEntry, [string, number]>(
    "select id as file_id, user_id, sha256, filename from vault_files where id > ? order by id limit ?",
  );
  const rows = walk((after) => Promise.resolve(rowsAfter.all(after, COMPARE_PAGE)));
  const entries = walk((after) => indexEntries(ctx, after, COMPARE_PAGE));
  const differ: { fileId: string; userId: string }[] = [];
  let row = await rows.next();
  let entry = await entries.next();
  while (row || entry) {
    if (row && (!entry || row.file_id < entry.file_id)) {
      differ.push({ fileId: row.file_id, userId: row.user_id });
      repair.reindexed++;
      row = await rows.next();
    } else if (entry && (!row || entry.file_id < row.file_id)) {
      differ.push({ fileId: entry.file_id, userId: entry.user_id });
      repair.staleEntries++;
      entry = await entries.next();
    } else {
      if (row!.sha256 !== entry!.sha256 || row!.filename !== entry!.filename || row!.user_id !== entry!.user_id) {
        differ.push({ fileId: row!.file_id, userId: row!.user_id });
        repair.reindexed++;
      }
      row = await rows.next();
      entry = await entries.next();
    }
    if (differ.length >= COMPARE_PAGE) requeue(ctx, differ.splice(0));
  }
  requeue(ctx, differ);
  if (repair.reindexed || repair.staleEntries) {
    await drainIndexQueue(ctx);
    ctx.log.info("vault: search index brought in step with the files", { reindexed: repair.reindexed, stale_entries_removed: repair.staleEntries });
  }
  return repair;
}

/** One item at a time from pages fetched by the key of the last item (file ids, ascending); null at the end. */
function walk(page: (after: string) => Promise<IndexEntry[]>): { next(): Promise<IndexEntry | null> } {
  let buffer: IndexEntry[] = [];
  let i = 0;
  let after = "";
  let done = false;
  return {
    async next() {
      if (i >= buffer.length) {
        if (done) return null;
        buffer = await page(after);
        i = 0;
        if (buffer.length < COMPARE_PAGE) done = true;
        if (!buffer.length) return null;
        after = buffer[buffer.length - 1]!.file_id;
      }
      return buffer[i++]!;
    },
  };
}
