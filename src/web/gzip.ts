// Gzip for pages. A page rendered for one answer is compressed whole; a page whose bulk is kept
// for many readers (a post's comment list) is sent as one gzip member whose middle was compressed
// once: deflate streams can be joined where one of them ends on a sync flush (an empty stored
// block, byte-aligned, not final), so the head and tail are compressed per answer around the
// kept middle, and the trailer's CRC-32 runs over all three (docs/decisions.md §181).
import { constants, crc32, deflateRawSync } from "node:zlib";

/**
 * A page rendered for one answer is compressed at level 1: that one answer pays for it, so speed
 * counts for more than a few kilobytes. What is kept for many answers is compressed at level 6:
 * paid once, its smaller size is sent every time.
 */
const ONCE = 1;
const KEPT = 6;
const encoder = new TextEncoder();
/** Magic, deflate, no flags, no time, no extra flags, unknown OS (RFC 1952 §2.3). */
const HEADER = Uint8Array.of(0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff);

/** A page kept in the page cache (level 4: nearly level 6's size in less time, since any forum write drops the cache and pages are compressed again). */
const PAGE = 4;

export const gzipOnce = (html: string): Uint8Array => Bun.gzipSync(html, { level: ONCE });
export const gzipPage = (html: string): Uint8Array => Bun.gzipSync(html, { level: PAGE });

/** A page whose middle is markup kept for many answers: the answer compresses only its ends. */
export class Spliced {
  constructor(
    readonly head: string,
    readonly middle: { readonly html: string; piece(): KeptPiece },
    readonly tail: string,
  ) {}

  get html(): string {
    return this.head + this.middle.html + this.tail;
  }
}

/** Markup compressed once to be sent inside many answers. */
export interface KeptPiece {
  /** The markup as UTF-8, for the answer's CRC-32. */
  readonly raw: Uint8Array;
  /** Raw deflate of `raw` ending on a sync flush: it joins whatever deflate stream comes next. */
  readonly deflated: Uint8Array;
}

export function keptPiece(html: string): KeptPiece {
  const raw = encoder.encode(html);
  return { raw, deflated: deflateRawSync(raw, { level: KEPT, finishFlush: constants.Z_SYNC_FLUSH }) };
}

/** What keeping `html` as a piece costs in memory, roughly: its UTF-8 and its deflate stream. */
export const keptPieceBytes = (html: string) => Math.ceil(html.length * 1.2);

/** One gzip member of `head`, the kept `middle` and `tail`, compressed per answer only at the ends. */
export function gzipAround(head: string, middle: KeptPiece, tail: string): Uint8Array<ArrayBuffer> {
  const h = encoder.encode(head);
  const t = encoder.encode(tail);
  const dh = deflateRawSync(h, { level: ONCE, finishFlush: constants.Z_SYNC_FLUSH });
  const dt = deflateRawSync(t, { level: ONCE });
  const out = new Uint8Array(HEADER.length + dh.length + middle.deflated.length + dt.length + 8);
  let at = 0;
  for (const part of [HEADER, dh, middle.deflated, dt]) {
    out.set(part, at);
    at += part.length;
  }
  const view = new DataView(out.buffer, out.byteOffset);
  view.setUint32(at, crc32(t, crc32(middle.raw, crc32(h))) >>> 0, true);
  view.setUint32(at + 4, (h.length + middle.raw.length + t.length) >>> 0, true);
  return out;
}
