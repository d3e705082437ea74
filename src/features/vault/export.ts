// GET /vault/export (spec Part 3 §4.7; docs/decisions.md §101): the caller's files, or those under
// a literal prefix, as one zip streamed with fflate. The list of files is taken when the request
// arrives; each file is read from disk, deflated and handed to the response only when the client
// has taken the previous one (ReadableStream pull), so a full 10 MiB vault is never held in
// memory at once: at most one file (1 MiB) and its compressed form.
import { Zip, ZipDeflate } from "fflate";
import type { Ctx } from "../../core/context";
import type { Caller } from "../auth/caller";
import { agent, findFile, list, type VaultFileRow } from "./service";
import { readContent } from "./store";

/** Deflate level: 6 is zlib's default, about 4 to 1 on prose and code for a few ms per 100 KiB. */
const LEVEL = 6;

/**
 * Names inside the zip. Stored names are already confined (relative, no `..`, no backslash:
 * docs/decisions.md §69), so each is its own name, except where extracting would lose a file on a
 * case-insensitive file system or where a file's name is also a folder of another file
 * (`a.md` beside `a.md/b.md`): that file is renamed `name (2).ext`, `(3)` … so no file is dropped.
 */
export function zipNames(names: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const n of names) {
    const key = n.toLowerCase();
    for (let i = key.indexOf("/"); i >= 0; i = key.indexOf("/", i + 1)) folders.add(key.slice(0, i));
  }
  const taken = new Set<string>();
  return names.map((name) => {
    let out = name;
    for (let n = 2; taken.has(out.toLowerCase()) || folders.has(out.toLowerCase()); n++) out = numbered(name, n);
    taken.add(out.toLowerCase());
    return out;
  });
}

/** `dir/name (n).ext` (the extension is what follows the last dot of the last segment). */
function numbered(name: string, n: number): string {
  const slash = name.lastIndexOf("/");
  const dot = name.lastIndexOf(".");
  const cut = dot > slash + 1 ? dot : name.length;
  return `${name.slice(0, cut)} (${n})${name.slice(cut)}`;
}

export interface VaultExport {
  /** The zip, produced as it is read. */
  stream: ReadableStream<Uint8Array>;
  /** How many files it holds. */
  files: number;
}

/** The zip of the caller's files whose names start with `prefix` (literal, as GET /vault/files). */
export function exportZip(ctx: Ctx, caller: Caller, prefix?: string | null): VaultExport {
  agent(caller);
  const rows = list(ctx, caller, prefix);
  const names = zipNames(rows.map((r) => r.filename));
  let next = 0;
  let chunks: Uint8Array[] = [];
  let done = false;
  let failure: Error | null = null;
  const zip = new Zip((err, chunk, final) => {
    if (err) failure = err;
    else chunks.push(chunk);
    if (final) done = true;
  });

  /** Adds the next file, or ends the archive after the last one. */
  function addNext(): void {
    if (next >= rows.length) {
      zip.end();
      return;
    }
    const i = next++;
    const content = contentOf(ctx, caller, rows[i]!);
    if (content === null) return;
    const entry = new ZipDeflate(names[i]!, { level: LEVEL });
    entry.mtime = rows[i]!.updatedAt;
    zip.add(entry);
    entry.push(content, true);
  }

  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      while (!chunks.length && !done && !failure) addNext();
      if (failure) {
        ctx.log.error("vault export failed", { user_id: caller.id, error: String(failure) });
        controller.error(failure);
        return;
      }
      for (const c of chunks) controller.enqueue(c);
      chunks = [];
      if (done) controller.close();
    },
    cancel() {
      // The client went away: nothing more is read.
      next = rows.length;
      chunks = [];
    },
  });
  return { stream, files: rows.length };
}

/**
 * A listed file's content as it is now: replaced since the list was taken, the current content;
 * deleted since, null (left out).
 */
function contentOf(ctx: Ctx, caller: Caller, row: VaultFileRow): Uint8Array | null {
  try {
    return readContent(ctx.config.dataDir, caller.id, row.sha256);
  } catch {
    const now = findFile(ctx, caller.id, row.filename);
    return now ? readContent(ctx.config.dataDir, caller.id, now.sha256) : null;
  }
}
