// Message attachments (spec Part 2 §2.8, §4.7): image uploads sniffed from their bytes, stored
// without metadata as two variants in the data folder (`thumb`, a 320 px square WebP, and
// `full`, the image re-encoded in its own format), served only to the uploader and the
// participants of the conversation they were sent in.
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { and, eq, isNull, lt } from "drizzle-orm";
import { ImageError, reencodeClean, toWebpSquare } from "../../adapters/images";
import { DAY } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import { isUuid, uuidv7 } from "../../core/ids";
import type { Caller } from "../auth/service";
import { participant, type AttachmentRow } from "./service";
import { messageAttachments, messages } from "./tables";

/** 10 MB, where MB means MiB (docs/decisions.md §12). */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
const THUMB_SIZE = 320;
/** The full variant is scaled down to fit this many pixels on a side. */
const FULL_MAX_DIMENSION = 4096;
/** Uploads never attached to a message are removed after this long. */
const ORPHAN_TTL_MS = DAY;
const VARIANTS = ["thumb", "full"] as const;

type AttachmentFormat = "jpeg" | "png" | "webp" | "gif";
const MIME: Record<AttachmentFormat, string> = { jpeg: "image/jpeg", png: "image/png", webp: "image/webp", gif: "image/gif" };
const EXT: Record<AttachmentFormat, string> = { jpeg: "jpg", png: "png", webp: "webp", gif: "gif" };

const ascii = (b: Uint8Array, at: number, len: number) => String.fromCharCode(...b.subarray(at, at + len));

/** The image format from the first bytes, whatever the file's name or declared type says. */
export function sniffAttachment(b: Uint8Array): AttachmentFormat | null {
  if (b.length >= 8 && b[0] === 0x89 && ascii(b, 1, 3) === "PNG" && b[4] === 0x0d && b[5] === 0x0a && b[6] === 0x1a && b[7] === 0x0a) return "png";
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "jpeg";
  if (b.length >= 12 && ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 4) === "WEBP") return "webp";
  if (b.length >= 6 && (ascii(b, 0, 6) === "GIF87a" || ascii(b, 0, 6) === "GIF89a")) return "gif";
  return null;
}

const folderOf = (id: string) => join("attachments", id);

const invalidImage = () => new ApiError(400, "INVALID_INPUT", "Attachments must be JPEG, PNG, WebP or GIF images");

/**
 * POST /messages/attachments/upload: 413 ATTACHMENT_TOO_LARGE over 10 MB, 400 INVALID_INPUT for
 * anything that is not a decodable JPEG, PNG, WebP or GIF (judged by the bytes, and the decoder
 * must agree with them). Writes both variants, then the row.
 */
export async function upload(ctx: Ctx, caller: Caller, file: Blob): Promise<AttachmentRow> {
  if (file.size > MAX_ATTACHMENT_BYTES) throw new ApiError(413, "ATTACHMENT_TOO_LARGE", `Attachments are limited to ${MAX_ATTACHMENT_BYTES} bytes (10 MB)`);
  const bytes = new Uint8Array(await file.arrayBuffer());
  if (bytes.length > MAX_ATTACHMENT_BYTES) throw new ApiError(413, "ATTACHMENT_TOO_LARGE", `Attachments are limited to ${MAX_ATTACHMENT_BYTES} bytes (10 MB)`);
  const format = sniffAttachment(bytes);
  if (!format) throw invalidImage();
  let full, thumb: Buffer;
  try {
    full = await reencodeClean(bytes, { maxDimension: FULL_MAX_DIMENSION });
    thumb = await toWebpSquare(bytes, THUMB_SIZE);
  } catch (err) {
    if (err instanceof ImageError) throw invalidImage();
    throw err;
  }
  if (full.format !== format) throw invalidImage();
  const now = ctx.clock.now();
  const id = uuidv7(now);
  const folder = folderOf(id);
  const dir = join(ctx.config.dataDir, folder);
  await mkdir(dir, { recursive: true });
  const variants = { thumb: "thumb.webp", full: `full.${EXT[format]}` };
  const tag = `${process.pid}-${Math.random().toString(36).slice(2)}`;
  await Promise.all(
    [
      [variants.thumb, thumb],
      [variants.full, full.data],
    ].map(async ([name, data]) => {
      const tmp = join(dir, `.${name}.${tag}`);
      await writeFile(tmp, data as Buffer);
      await rename(tmp, join(dir, name as string));
    }),
  );
  try {
    return ctx.db
      .insert(messageAttachments)
      .values({
        id,
        uploaderId: caller.id,
        conversationId: null,
        messageId: null,
        mimeType: MIME[format],
        sizeBytes: full.data.length,
        originalBytes: bytes.length,
        width: full.width,
        height: full.height,
        storagePath: folder,
        variants,
        createdAt: now,
        deletedAt: null,
      })
      .returning()
      .get();
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * Whether `userId` may fetch an attachment: its uploader, or a participant of the conversation
 * it was sent in while the message stands. Everyone else (and deleted attachments) get 404.
 */
function viewable(ctx: Ctx, userId: string, attachmentId: string): AttachmentRow {
  const notFound = new ApiError(404, "NOT_FOUND", "Attachment not found");
  if (!isUuid(attachmentId)) throw notFound;
  const a = ctx.db.select().from(messageAttachments).where(eq(messageAttachments.id, attachmentId.toLowerCase())).get();
  if (!a || a.deletedAt !== null) throw notFound;
  if (a.uploaderId === userId) return a;
  if (!a.conversationId || !a.messageId || !participant(ctx, a.conversationId, userId)) throw notFound;
  const msg = ctx.db.select({ deletedAt: messages.deletedAt }).from(messages).where(eq(messages.id, a.messageId)).get();
  if (!msg || msg.deletedAt !== null) throw notFound;
  return a;
}

/** GET /messages/attachments/{id}/{variant}: the file and its type, or 404. */
export function variantFile(ctx: Ctx, caller: Caller, attachmentId: string, variant: string): { path: string; type: string } {
  if (!(VARIANTS as readonly string[]).includes(variant)) throw new ApiError(404, "NOT_FOUND", "Attachment not found");
  const a = viewable(ctx, caller.id, attachmentId);
  const name = a.variants[variant];
  if (!name) throw new ApiError(404, "NOT_FOUND", "Attachment not found");
  return { path: join(ctx.config.dataDir, a.storagePath, name), type: variant === "thumb" ? "image/webp" : a.mimeType };
}

/** DELETE /messages/attachments/{id}: the uploader only (404 for everyone else); files removed. */
export async function remove(ctx: Ctx, caller: Caller, attachmentId: string): Promise<void> {
  const notFound = new ApiError(404, "NOT_FOUND", "Attachment not found");
  if (!isUuid(attachmentId)) throw notFound;
  const gone = ctx.db
    .update(messageAttachments)
    .set({ deletedAt: ctx.clock.now() })
    .where(and(eq(messageAttachments.id, attachmentId.toLowerCase()), eq(messageAttachments.uploaderId, caller.id), isNull(messageAttachments.deletedAt)))
    .returning()
    .get();
  if (!gone) throw notFound;
  await removeFiles(ctx, [gone.storagePath]);
}

/** Removes attachment folders (only ever `attachments/<uuid>` under the data folder). */
export async function removeFiles(ctx: Ctx, storagePaths: readonly string[]): Promise<void> {
  await Promise.all(
    storagePaths
      .filter((p) => /^attachments[\\/][0-9a-f-]{36}$/.test(p))
      .map((p) => rm(join(ctx.config.dataDir, p), { recursive: true, force: true })),
  );
}

/** Deletes uploads never attached to a message within a day (rows and files). */
export async function purgeOrphans(ctx: Ctx): Promise<number> {
  const cutoff = ctx.clock.now() - ORPHAN_TTL_MS;
  const rows = ctx.db
    .delete(messageAttachments)
    .where(and(isNull(messageAttachments.messageId), lt(messageAttachments.createdAt, cutoff)))
    .returning({ path: messageAttachments.storagePath })
    .all();
  await removeFiles(ctx, rows.map((r) => r.path));
  return rows.length;
}

/** Removes every upload of an account (self-deletion happens only before any activity). */
export async function purgeUserUploads(ctx: Ctx, userId: string): Promise<void> {
  const rows = ctx.db.delete(messageAttachments).where(eq(messageAttachments.uploaderId, userId)).returning({ path: messageAttachments.storagePath }).all();
  await removeFiles(ctx, rows.map((r) => r.path));
}
