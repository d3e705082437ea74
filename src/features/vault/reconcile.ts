// Start-up reconciliation of the vault's rows and content files (docs/decisions.md §74). Runs once
// before the server listens. Writes make the content file durable before the row that names it
// commits and remove it only after the last row naming it is gone, so after a crash the only
// expected leftovers are unnamed content files and dot work files of interrupted writes; a row
// whose file is missing (lost or removed by hand) is deleted too, so that every listed file reads
// and the quota counts what is on disk. Then the full-text index (fts.ts): every row has one entry,
// made from the row's file as it now stands, and no entry outlives its row (after a restore, whose
// VACUUM INTO copy may renumber rowids, or with files from before the index existed). Each fix is
// logged.
import { eq } from "drizzle-orm";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Ctx } from "../../core/context";
import { inTransaction } from "../../db/client";
import { indexAllQueued, indexNow } from "./fts";
import { contentPath, readContent, VAULT_FOLDER } from "./store";
import { vaultFiles } from "./tables";

export interface VaultRepair {
  rowsWithoutFile: number;
  filesWithoutRow: number;
  workFiles: number;
  /** Files whose index entry was missing or made from another row or content. */
  reindexed: number;
  /** Index entries without their row. */
  staleEntries: number;
  /** Files written but not yet indexed when the server stopped (indexed now). */
  queued: number;
}

export function reconcileVault(ctx: Ctx): VaultRepair {
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
  // What a crash left queued first (fts.ts), then whatever else disagrees.
  repair.queued = indexAllQueued(ctx);
  reconcileIndex(ctx, repair);
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

/**
 * Drops index entries without their row (or made for another row), then re-indexes the rows whose
 * entry is missing or was made from other content, in batches walked by rowid: SQL joins by rowid
 * find both, so nothing of the index is held in memory.
 */
function reconcileIndex(ctx: Ctx, repair: VaultRepair): void {
  const client = ctx.db.$client;
  const stale = client
    .query<{ rid: number }, []>("select f.rowid as rid from vault_fts f left join vault_files v on v.rowid = f.rowid where v.id is null or v.id is not f.file_id")
    .all()
    .map((r) => r.rid);
  if (stale.length) {
    const drop = client.prepare<unknown, [number]>("delete from vault_fts where rowid = ?");
    inTransaction(ctx.db, () => {
      for (const rid of stale) drop.run(rid);
    });
    repair.staleEntries = stale.length;
  }
  const page = client.prepare<{ rid: number; id: string; user_id: string; sha256: string }, [number, number]>(
    `select v.rowid as rid, v.id, v.user_id, v.sha256 from vault_files v left join vault_fts f on f.rowid = v.rowid
     where v.rowid > ? and (f.file_id is null or f.file_id is not v.id or f.sha256 is not v.sha256) order by v.rowid limit ?`,
  );
  for (let after = 0; ; ) {
    const batch = page.all(after, REINDEX_BATCH);
    if (!batch.length) break;
    const files = batch.map((r) => ({ rid: r.rid, content: readContent(ctx.config.dataDir, r.user_id, r.sha256).toString("utf8") }));
    inTransaction(ctx.db, (tx) => {
      for (const f of files) indexNow(tx, f.rid, f.content);
    });
    repair.reindexed += batch.length;
    after = batch[batch.length - 1]!.rid;
  }
  if (repair.staleEntries || repair.reindexed) {
    ctx.log.info("vault: search index brought in step with the files", { reindexed: repair.reindexed, stale_entries_removed: repair.staleEntries });
  }
}

/** Files re-indexed per transaction at start-up (each up to 1 MiB of text read and tokenised). */
const REINDEX_BATCH = 50;
