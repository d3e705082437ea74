// GET /vault/export (spec Part 3 §4.7; docs/decisions.md §120): the caller's files, or those under
// a literal prefix, as one zip streamed with fflate's Zip. The list of files is taken when the
// request arrives; each file is read from disk, deflated and handed to the response only when the
// client has taken what came before (ReadableStream pull), so a full 10 MiB vault is never in
// memory: one file (1 MiB at most) and its compressed form. The deflating is the platform's zlib
// (node:zlib on its worker threads, native memory reused from call to call) rather than fflate's
// own deflater, which runs on the request thread and leaves its streaming state and per-window
// buffers to the collector, where they pile up over the files of an export (docs/decisions.md
// §120).
import type * as Fflate from "fflate";
import type { ZipInputFile } from "fflate";
import { closeSync, openSync, readSync } from "node:fs";
import { promisify } from "node:util";
import { deflateRaw } from "node:zlib";
import type { Ctx } from "../../core/context";
import type { Caller } from "../auth/caller";
import { agent, findFile, list, type VaultFileRow } from "./service";
import { contentPath } from "./store";

/** Deflate level: zlib's default balance of size and time. */
const LEVEL = 6;
/** node:zlib's deflate on its worker threads: the request thread goes on serving meanwhile. */
const deflate = promisify(deflateRaw);

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
  /** How many files were listed for it. */
  files: number;
}

/**
 * The zip of the caller's files whose names start with `prefix` (literal, as GET /vault/files).
 * fflate's Zip writes the archive; each entry is read into one buffer the size of the largest
 * file and deflated by the platform's zlib on its worker threads (native memory, reused from call
 * to call), so a whole export leaves little behind for the collector, the compressed pieces handed
 * to the response, and never holds the request thread for more than a file's read.
 */
/** fflate, loaded on the first export rather than at start-up (cold start). */
let fflateLib: typeof Fflate | null = null;
const fflate = () => (fflateLib ??= require("fflate") as typeof Fflate);

export function exportZip(ctx: Ctx, caller: Caller, prefix?: string | null): VaultExport {
  agent(caller);
  const rows = list(ctx, caller, prefix);
  const names = zipNames(rows.map((r) => r.filename));
  const buffer = Buffer.allocUnsafe(Math.max(0, ...rows.map((r) => r.size)));
  let next = 0;
  let chunks: Uint8Array[] = [];
  let done = false;
  let cancelled = false;
  let failure: Error | null = null;
  const zip = new (fflate().Zip)((err, chunk, final) => {
    if (err) failure = err;
    else chunks.push(chunk);
    if (final) done = true;
  });

  /** Adds the next file, or ends the archive after the last one. */
  async function addNext(): Promise<void> {
    if (next >= rows.length) {
      zip.end();
      return;
    }
    const i = next++;
    const content = readInto(ctx, caller, rows[i]!, buffer);
    if (content === null) return;
    const crc = Bun.hash.crc32(content);
    // The buffer is read again only once this resolves (one file at a time).
    const compressed = await deflate(content, { level: LEVEL });
    if (cancelled) return;
    const entry: ZipInputFile = { filename: names[i]!, mtime: rows[i]!.updatedAt, compression: 8, size: content.length, crc };
    zip.add(entry);
    entry.ondata!(null, compressed, true);
  }

  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          while (!chunks.length && !done && !failure && !cancelled) await addNext();
        } catch (err) {
          failure = err as Error;
        }
        if (cancelled) return;
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
        cancelled = true;
        chunks = [];
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, files: rows.length };
}

/**
 * A listed file's content read into `buffer` (a view of it): replaced since the list was taken,
 * the current content; deleted since, null (left out).
 */
function readInto(ctx: Ctx, caller: Caller, row: VaultFileRow, buffer: Buffer): Buffer | null {
  let fd: number;
  let size = row.size;
  try {
    fd = openSync(contentPath(ctx.config.dataDir, caller.id, row.sha256), "r");
  } catch {
    const now = findFile(ctx, caller.id, row.filename);
    if (!now) return null;
    fd = openSync(contentPath(ctx.config.dataDir, caller.id, now.sha256), "r");
    size = now.size;
  }
  try {
    const view = size <= buffer.length ? buffer.subarray(0, size) : Buffer.allocUnsafe(size);
    let off = 0;
    while (off < view.length) {
      const n = readSync(fd, view, off, view.length - off, off);
      if (n === 0) break;
      off += n;
    }
    return view.subarray(0, off);
  } finally {
    closeSync(fd);
  }
}
