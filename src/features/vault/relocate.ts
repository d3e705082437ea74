// Append, move and copy of vault files (spec Part 3 §4.7; docs/decisions.md §72). Append writes
// content as PUT does (service.ts); move and copy write none and are synchronous from the first
// check to the commit (then the content a replaced file leaves is removed).
import { eq } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { conflict, invalid, notFound } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import { inTransaction } from "../../db/client";
import type { Caller } from "../auth/caller";
import { exclusive } from "../../core/exclusive";
import { agent, checkExtension, checkRoom, dropIfUnused, findFile, normaliseFilename, requireKarma, write, type VaultFileRow } from "./service";
import { scheduleIndexing } from "./fts";
import { readContent } from "./store";
import { vaultFiles } from "./tables";

/** POST …/append: the content added at the end (the file created if missing); every PUT gate runs on the result. */
export function append(ctx: Ctx, caller: Caller, rawName: string, content: string): Promise<VaultFileRow> {
  agent(caller);
  requireKarma(caller);
  const filename = normaliseFilename(rawName);
  checkExtension(filename);
  // Under the name's lock, so no other write of this name lands between the read and the commit.
  return exclusive(`vault:${caller.id}:${filename}`, () =>
    write(ctx, caller.id, filename, () => {
      const existing = findFile(ctx, caller.id, filename);
      return (existing ? readContent(ctx.config.dataDir, caller.id, existing.sha256).toString("utf8") : "") + content;
    }),
  );
}

interface Relocation {
  destination: string;
  overwrite?: boolean;
}

/** The source row and the normalised destination, after the checks move and copy share. */
function resolve(ctx: Ctx, caller: Caller, rawSource: string, to: Relocation): { source: VaultFileRow; destination: string; replaced: VaultFileRow | undefined } {
  const sourceName = normaliseFilename(rawSource);
  const destination = normaliseFilename(to.destination);
  checkExtension(destination);
  if (destination === sourceName) throw invalid("The destination is the source");
  const source = findFile(ctx, caller.id, sourceName);
  if (!source) throw notFound("No such file in your vault");
  const replaced = findFile(ctx, caller.id, destination);
  if (replaced && !to.overwrite) throw conflict("A file of that name exists; send overwrite: true to replace it");
  return { source, destination, replaced };
}

/**
 * POST …/move: the row takes the new name, keeping its created_at and content (so its ETag). Only
 * the destination's name and extension are checked (net zero bytes; no karma gate).
 */
export async function move(ctx: Ctx, caller: Caller, rawSource: string, to: Relocation): Promise<VaultFileRow> {
  agent(caller);
  const { source, destination, replaced } = resolve(ctx, caller, rawSource, to);
  // The index holds the name, so the entry is made again (the row's trigger queues it: fts.ts).
  const row = inTransaction(ctx.db, (tx) => {
    if (replaced) tx.delete(vaultFiles).where(eq(vaultFiles.id, replaced.id)).run();
    const moved = tx.update(vaultFiles).set({ filename: destination, updatedAt: ctx.clock.now() }).where(eq(vaultFiles.id, source.id)).returning().get();
    return moved;
  });
  if (replaced && replaced.sha256 !== source.sha256) await dropIfUnused(ctx, caller.id, replaced.sha256);
  scheduleIndexing(ctx);
  return row;
}

/** POST …/copy: a new file of the same content (sharing its file on disk) under every write gate; the source stays. */
export async function copy(ctx: Ctx, caller: Caller, rawSource: string, to: Relocation): Promise<VaultFileRow> {
  agent(caller);
  requireKarma(caller);
  const { source, destination, replaced } = resolve(ctx, caller, rawSource, to);
  checkRoom(ctx, caller.id, source.size, replaced);
  const now = ctx.clock.now();
  const row = inTransaction(ctx.db, (tx) => {
    const written = replaced
      ? tx.update(vaultFiles).set({ sha256: source.sha256, size: source.size, updatedAt: now }).where(eq(vaultFiles.id, replaced.id)).returning().get()
      : tx.insert(vaultFiles).values({ id: uuidv7(now), userId: caller.id, filename: destination, sha256: source.sha256, size: source.size, createdAt: now, updatedAt: now }).returning().get();
    return written;
  });
  if (replaced && replaced.sha256 !== source.sha256) await dropIfUnused(ctx, caller.id, replaced.sha256);
  scheduleIndexing(ctx);
  return row;
}
