// Group avatars (POST/GET /messages/groups/{id}/avatar): an admin uploads a square PNG, JPEG or
// WebP of at most 2 MB (2,097,152 bytes, docs/decisions.md §12); it is stored as one 256 px WebP without
// metadata in <dataDir>/group-avatars/<conv id>/. Members fetch it through the API (the group is
// private, so there is no public URL); without an upload they get a letter avatar (SVG).
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ImageError, probe, toWebpSquare } from "../../../adapters/images";
import type { Ctx } from "../../../core/context";
import { ApiError } from "../../../core/errors";
import type { Caller } from "../../auth/service";
import { declaresAnimation, sniffFormat } from "../../avatars/service";
import { escapeXml } from "../../avatars/svg";
import type { ConversationRow } from "../service";
import { conversations } from "../tables";
import { eq } from "drizzle-orm";
import { requireChangeable, requireMember } from "./access";
import { groupAvatarUrl } from "./views";

/** 2 MB, where MB means MiB (docs/decisions.md §12). */
export const MAX_GROUP_AVATAR_BYTES = 2 * 1024 * 1024;
/** Side of the stored rendition, in pixels. */
export const GROUP_AVATAR_SIZE = 256;
const FILE = `${GROUP_AVATAR_SIZE}.webp`;

const folderOf = (convId: string) => join("group-avatars", convId);
const badImage = (why: string) => new ApiError(400, "INVALID_INPUT", `Group avatars must be square PNG, JPEG or WebP images: ${why}`);

/**
 * Checks the upload (413 AVATAR_TOO_LARGE over 2 MB; 400 INVALID_INPUT for anything but a still,
 * square PNG/JPEG/WebP whose bytes agree with its type), writes the rendition atomically, then
 * records it on the conversation. Returns the URL members fetch it from.
 */
export async function uploadGroupAvatar(ctx: Ctx, caller: Caller, convId: string, file: Blob): Promise<{ avatar_url: string }> {
  const { conv } = requireChangeable(ctx, caller, convId, "admin");
  if (file.size > MAX_GROUP_AVATAR_BYTES) throw new ApiError(413, "AVATAR_TOO_LARGE", `Group avatars are limited to ${MAX_GROUP_AVATAR_BYTES} bytes (2 MB)`);
  const bytes = new Uint8Array(await file.arrayBuffer());
  if (bytes.length > MAX_GROUP_AVATAR_BYTES) throw new ApiError(413, "AVATAR_TOO_LARGE", `Group avatars are limited to ${MAX_GROUP_AVATAR_BYTES} bytes (2 MB)`);
  const format = sniffFormat(bytes);
  if (!format) throw badImage("unsupported file type");
  let info;
  try {
    info = await probe(bytes);
  } catch (err) {
    if (err instanceof ImageError) throw badImage(err.code === "IMAGE_TOO_LARGE" ? "too many pixels" : "not a decodable image");
    throw err;
  }
  if (info.format !== format) throw badImage("the file's content does not match its type");
  if (info.animated || declaresAnimation(bytes, format)) throw badImage("animated images are not accepted");
  if (info.width !== info.height) throw badImage(`the image is ${info.width}x${info.height}, not square`);
  let webp: Buffer;
  try {
    webp = await toWebpSquare(bytes, GROUP_AVATAR_SIZE);
  } catch (err) {
    if (err instanceof ImageError) throw badImage("not a decodable image");
    throw err;
  }
  const dir = join(ctx.config.dataDir, folderOf(conv.id));
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${FILE}.${process.pid}-${Math.random().toString(36).slice(2)}`);
  await writeFile(tmp, webp);
  await rename(tmp, join(dir, FILE));
  const uploadedAt = ctx.clock.now();
  // Still an admin of a live group after the (slow) image work?
  requireChangeable(ctx, caller, conv.id, "admin");
  ctx.db.transaction((tx) => {
    tx.update(conversations).set({ avatarPath: folderOf(conv.id), avatarUploadedAt: uploadedAt }).where(eq(conversations.id, conv.id)).run();
    ctx.events.emit(tx, {
      type: "group_avatar_changed",
      actorId: caller.id,
      subject: { type: "conversation", id: conv.id },
      payload: { conversation_id: conv.id, uploaded_at: uploadedAt },
    });
  });
  return { avatar_url: groupAvatarUrl(ctx, { id: conv.id, avatarUploadedAt: uploadedAt }) };
}

export type GroupAvatar = { file: string } | { svg: string };

/** What GET .../avatar serves a member: the uploaded rendition, else the letter avatar. */
export async function groupAvatar(ctx: Ctx, caller: Caller, convId: string): Promise<GroupAvatar> {
  const { conv } = requireMember(ctx, caller, convId);
  if (conv.avatarPath) {
    const path = join(ctx.config.dataDir, conv.avatarPath, FILE);
    if (await Bun.file(path).exists()) return { file: path };
  }
  return { svg: letterAvatar(conv) };
}

/** A square SVG: the first letter of the title on a colour derived from the group id. */
export function letterAvatar(conv: Pick<ConversationRow, "id" | "title">, size = GROUP_AVATAR_SIZE): string {
  const first = [...(conv.title ?? "").trim()][0] ?? "#";
  const letter = escapeXml(first.toLocaleUpperCase());
  let hash = 0;
  for (const c of conv.id) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
  const hue = hash % 360;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 100 100" role="img" aria-label="${letter}">` +
    `<rect width="100" height="100" fill="hsl(${hue}, 55%, 45%)"/>` +
    `<text x="50" y="50" dy="0.35em" text-anchor="middle" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" font-size="52" font-weight="600" fill="#ffffff">${letter}</text>` +
    `</svg>`
  );
}
