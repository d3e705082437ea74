// Avatars: procedural settings, uploaded photos (three WebP renditions in the data folder) and
// what /u/{username}/avatar answers. The avatar columns live on the users table and are written
// through the users service.
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ImageError, probe, toWebpSquare } from "../../adapters/images";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import { isUuid } from "../../core/ids";
import * as users from "../users/service";
import type { AvatarSettings, UserRow } from "../users/service";
import { resolve, renderSvg, type AvatarUserType } from "./svg";

/** 2 MB, where MB means MiB (docs/decisions.md §12). */
export const MAX_UPLOAD_BYTES = 2 * 1024 * 1024;
export const MIN_DIMENSION = 64;
export const MAX_DIMENSION = 1024;
/** The renditions written for every upload, by the name the API gives them. */
export const RENDITIONS = { sm: 32, md: 96, lg: 256 } as const;
const RENDITION_SIZES = Object.values(RENDITIONS);

type UploadFormat = "png" | "jpeg" | "webp";

/** The image format from the first bytes of a file, whatever its name or declared type says. */
export function sniffFormat(b: Uint8Array): UploadFormat | null {
  if (b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47 && b[4] === 0x0d && b[5] === 0x0a && b[6] === 0x1a && b[7] === 0x0a) return "png";
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "jpeg";
  if (b.length >= 12 && ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 4) === "WEBP") return "webp";
  return null;
}

const ascii = (b: Uint8Array, at: number, len: number) => String.fromCharCode(...b.subarray(at, at + len));

/**
 * Whether the container itself declares an animation: an APNG's acTL chunk (before the first
 * IDAT), or the animation flag of a WebP's VP8X header. libvips reads only the first frame of an
 * APNG, so the frame count alone would miss it.
 */
export function declaresAnimation(b: Uint8Array, format: UploadFormat): boolean {
  if (format === "png") {
    const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    for (let at = 8; at + 8 <= b.length; ) {
      const len = view.getUint32(at);
      const type = ascii(b, at + 4, 4);
      if (type === "acTL") return true;
      if (type === "IDAT" || type === "IEND") return false;
      at += 12 + len;
    }
    return false;
  }
  if (format === "webp") return b.length >= 21 && ascii(b, 12, 4) === "VP8X" && (b[20] & 0x02) !== 0;
  return false;
}

// ---------------------------------------------------------------------------------------------
// Procedural settings

/** Replaces the caller's procedural settings; an empty object resets them to the hash defaults. */
export function updateSettings(ctx: Ctx, user: UserRow, input: AvatarSettings): UserRow {
  const settings: AvatarSettings = {};
  for (const key of ["bg", "accent", "eyes", "mouth", "head", "ears"] as const) {
    if (input[key] !== undefined && input[key] !== null) (settings as Record<string, unknown>)[key] = input[key];
  }
  return users.setAvatar(ctx, user.id, { settings: Object.keys(settings).length ? settings : null });
}

interface PreviewInput extends AvatarSettings {
  username?: string;
  user_type?: AvatarUserType;
  size: number;
}

/** The SVG for arbitrary choices over a username's defaults; nothing is read or stored. */
export function previewSvg(input: PreviewInput): string {
  const username = input.username ?? "";
  const { username: _u, user_type, size, ...settings } = input;
  return renderSvg({ username, userType: user_type ?? "agent", size, avatar: resolve(username, settings) });
}

// ---------------------------------------------------------------------------------------------
// Uploads

const userDir = (userId: string) => join("avatars", userId);
const renditionFile = (ctx: Ctx, userId: string, size: number) => join(ctx.config.dataDir, userDir(userId), `${size}.webp`);

/** Checks an upload in the order the errors are documented, then writes its renditions. */
export async function upload(ctx: Ctx, user: UserRow, file: Blob): Promise<UserRow> {
  // Refuse by size before reading the bytes into anything that decodes them.
  if (file.size > MAX_UPLOAD_BYTES) throw new ApiError(413, "AVATAR_TOO_LARGE", `Avatar files are limited to ${MAX_UPLOAD_BYTES} bytes (2 MB)`);
  const bytes = new Uint8Array(await file.arrayBuffer());
  const format = sniffFormat(bytes);
  if (!format) throw invalidFormat();
  let info;
  try {
    info = await probe(bytes);
  } catch (err) {
    if (err instanceof ImageError && err.code === "IMAGE_TOO_LARGE") throw tooLargeDimensions();
    if (err instanceof ImageError) throw invalidFormat();
    throw err;
  }
  // The decoder must agree with the magic bytes (a PNG signature in front of a JPEG is refused).
  if (info.format !== format) throw invalidFormat();
  if (info.animated || declaresAnimation(bytes, format)) throw new ApiError(400, "AVATAR_ANIMATED", "Animated images are not accepted as avatars");
  if (info.width < MIN_DIMENSION || info.height < MIN_DIMENSION) {
    throw new ApiError(400, "AVATAR_TOO_SMALL", `Avatars must be at least ${MIN_DIMENSION}x${MIN_DIMENSION} pixels (got ${info.width}x${info.height})`);
  }
  if (info.width > MAX_DIMENSION || info.height > MAX_DIMENSION) throw tooLargeDimensions(info.width, info.height);

  let renditions: Buffer[];
  try {
    renditions = await Promise.all(RENDITION_SIZES.map((size) => toWebpSquare(bytes, size)));
  } catch (err) {
    if (err instanceof ImageError) throw invalidFormat();
    throw err;
  }
  const dir = join(ctx.config.dataDir, userDir(user.id));
  await mkdir(dir, { recursive: true });
  // Each file is replaced atomically, so a reader never sees half an image.
  const tag = `${process.pid}-${Math.random().toString(36).slice(2)}`;
  await Promise.all(
    RENDITION_SIZES.map(async (size, i) => {
      const tmp = join(dir, `.${size}.webp.${tag}`);
      await writeFile(tmp, renditions[i]);
      await rename(tmp, join(dir, `${size}.webp`));
    }),
  );
  return users.setAvatar(ctx, user.id, { path: userDir(user.id), uploadedAt: ctx.clock.now() });
}

const invalidFormat = () => new ApiError(400, "AVATAR_INVALID_FORMAT", "Avatars must be PNG, JPEG or WebP images");
const tooLargeDimensions = (w?: number, h?: number) =>
  new ApiError(400, "AVATAR_TOO_LARGE_DIMENSIONS", `Avatars may be at most ${MAX_DIMENSION}x${MAX_DIMENSION} pixels${w ? ` (got ${w}x${h})` : ""}`);

/** Removes the uploaded photo; the procedural avatar (and its settings) takes over again. */
export async function removeUpload(ctx: Ctx, user: UserRow): Promise<void> {
  if (!user.avatarPath) throw new ApiError(404, "AVATAR_NOT_FOUND", "You have no uploaded avatar");
  users.setAvatar(ctx, user.id, { path: null, uploadedAt: null });
  await rm(join(ctx.config.dataDir, userDir(user.id)), { recursive: true, force: true });
}

/** Removes the uploaded files of an account (self-deleted: nothing of it stays). */
export async function removeUserFiles(ctx: Ctx, userId: string): Promise<void> {
  if (isUuid(userId)) await rm(join(ctx.config.dataDir, userDir(userId)), { recursive: true, force: true });
}

/** The rendition closest to a requested size (ties go to the larger one, which scales down well). */
export function closestRendition(size: number): number {
  let best: number = RENDITION_SIZES[0];
  for (const r of RENDITION_SIZES) if (Math.abs(r - size) <= Math.abs(best - size)) best = r;
  return best;
}

/** The path an uploaded rendition is served at. */
const renditionAddress = (user: Pick<UserRow, "id" | "avatarUploadedAt">, size: number) => `/avatars/${user.id}/${size}.webp?v=${user.avatarUploadedAt ?? 0}`;

/** Where an uploaded rendition is served, absolute under the public URL (the API's `urls`). */
export const renditionUrl = (ctx: Ctx, user: Pick<UserRow, "id" | "avatarUploadedAt">, size: number) => `${ctx.config.publicUrl}${renditionAddress(user, size)}`;

type AvatarAnswer = { redirect: string } | { svg: string };

/**
 * What /u/{username}/avatar answers: the closest uploaded rendition, or the procedural SVG from
 * the account's settings. A name with no live account still gets a picture (never a 404). The
 * redirect is to a path on the same host the picture was asked of, so a page opened at another
 * address than the public URL (a LAN name, a port) still shows it under `img-src 'self'`.
 */
export function avatarFor(ctx: Ctx, rawUsername: string, size: number): AvatarAnswer {
  const username = users.normaliseUsername(rawUsername);
  const row = users.findByUsername(ctx, username);
  const user = users.isActive(row) ? row : null;
  if (user?.avatarPath && user.avatarUploadedAt) return { redirect: renditionAddress(user, closestRendition(size)) };
  const userType: AvatarUserType = user?.userType === "human" ? "human" : "agent";
  return { svg: renderSvg({ username: user?.username ?? username, userType, size, avatar: resolve(username, user?.avatarSettings) }) };
}

/** The file of an uploaded rendition, or 404 when the account has none. */
export function renditionPath(ctx: Ctx, userId: string, size: number): string {
  const notFound = new ApiError(404, "AVATAR_NOT_FOUND", "Avatar not found");
  if (!isUuid(userId) || !(RENDITION_SIZES as number[]).includes(size)) throw notFound;
  const user = users.findById(ctx, userId.toLowerCase());
  if (!users.isActive(user) || !user.avatarPath) throw notFound;
  return renditionFile(ctx, user.id, size);
}
