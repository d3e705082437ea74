// A colony's icon and header image (spec Part 2 §2.1, §4.1, §7, §8; docs/decisions.md §12, §36).
// Both are re-encoded through the image adapter the avatars use (adapters/images.ts: WebP, EXIF
// and every other metadata block removed) and written under colony-media/<colony id>/ in the data
// folder (core/data-folders.ts, so backups carry them), then served at
// /colony-media/<colony id>/<file> like the avatar renditions.
//
// Icon: moderators holding can_manage_settings; the avatar rules (PNG, JPEG or WebP of at most
// 2 MB, 64-1024 px a side, still) and the avatar error codes, as the reference does; three square
// renditions of 32, 96 and 256 px. Header: the same key and 100 karma; PNG, JPEG or WebP of at
// most 5 MB, 600x100 to 8000x8000 px, at least as wide as it is tall, still; one WebP that fits in
// 1920x960; errors HEADER_*.
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ImageError, probe, toWebpFit, toWebpSquare, type ImageInfo } from "../../adapters/images";
import type { Ctx } from "../../core/context";
import { ApiError, forbidden, notFound } from "../../core/errors";
import { isUuid } from "../../core/ids";
import type { Caller } from "../auth/service";
import { declaresAnimation, MAX_DIMENSION, MAX_UPLOAD_BYTES as ICON_MAX_BYTES, MIN_DIMENSION, sniffFormat } from "../avatars/service";
import { recordModAction } from "../colonies/audit";
import { setColonyImages, type ColonyImages } from "../colonies/governance";
import { requireModPower } from "../colonies/permissions";
import * as colonies from "../colonies/service";
import type { ColonyRow } from "../colonies/service";

export const MEDIA_FOLDER = "colony-media";
const ICON_SIZES = [32, 96, 256] as const;
/** 5 MB, where MB means MiB (docs/decisions.md §12). */
export const HEADER_MAX_BYTES = 5 * 1024 * 1024;
const HEADER_MIN_KARMA = 100;
const HEADER_MIN = { width: 600, height: 100 };
const HEADER_MAX_SIDE = 8000;
const HEADER_OUT = { width: 1920, height: 960 };

const colonyDir = (ctx: Ctx, colonyId: string) => join(ctx.config.dataDir, MEDIA_FOLDER, colonyId);
const fileUrl = (ctx: Ctx, colonyId: string, file: string, version: number) => `${ctx.config.publicUrl}/${MEDIA_FOLDER}/${colonyId}/${file}?v=${version}`;
const iconFile = (size: number) => `icon-${size}.webp`;
const HEADER_FILE = "header.webp";

/** The colony an image route names (404 when unreadable) and the can_manage_settings check (403). */
function settingsColony(ctx: Ctx, caller: Caller, colonyId: string): ColonyRow {
  const colony = colonies.getReadableColony(ctx, caller, colonyId);
  requireModPower(ctx, colony, caller, "can_manage_settings");
  return colony;
}

function headerColony(ctx: Ctx, caller: Caller, colonyId: string): ColonyRow {
  const colony = settingsColony(ctx, caller, colonyId);
  if (!caller.isAdmin && caller.karma < HEADER_MIN_KARMA) {
    throw forbidden(`Changing a colony header needs at least ${HEADER_MIN_KARMA} karma (you have ${caller.karma})`, "KARMA_TOO_LOW");
  }
  return colony;
}

/** Writes files atomically (a reader never sees half an image). */
async function writeFiles(dir: string, files: { name: string; data: Buffer }[]): Promise<void> {
  await mkdir(dir, { recursive: true });
  const tag = `${process.pid}-${Math.random().toString(36).slice(2)}`;
  await Promise.all(
    files.map(async (f) => {
      const tmp = join(dir, `.${f.name}.${tag}`);
      await writeFile(tmp, f.data);
      await rename(tmp, join(dir, f.name));
    }),
  );
}

/** Reads and checks an upload: size, the format from its bytes, the decoder's agreement, animation. */
async function inspect(file: Blob, rules: { maxBytes: number; codes: { tooLarge: string; format: string; animated: string; dimensions: string } }): Promise<{ bytes: Uint8Array; info: ImageInfo }> {
  if (file.size > rules.maxBytes) throw new ApiError(413, rules.codes.tooLarge, `The file is over the ${rules.maxBytes / 1024 / 1024} MB limit (${rules.maxBytes} bytes)`);
  const bytes = new Uint8Array(await file.arrayBuffer());
  const badFormat = () => new ApiError(400, rules.codes.format, "The image must be a PNG, JPEG or WebP file");
  const format = sniffFormat(bytes);
  if (!format) throw badFormat();
  let info: ImageInfo;
  try {
    info = await probe(bytes);
  } catch (err) {
    if (err instanceof ImageError && err.code === "IMAGE_TOO_LARGE") throw new ApiError(400, rules.codes.dimensions, "The image has too many pixels");
    if (err instanceof ImageError) throw badFormat();
    throw err;
  }
  if (info.format !== format) throw badFormat();
  if (info.animated || declaresAnimation(bytes, format)) throw new ApiError(400, rules.codes.animated, "Animated images are not accepted");
  return { bytes, info };
}

async function encode<T>(work: Promise<T>, code: string): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof ImageError) throw new ApiError(400, code, "The image could not be decoded");
    throw err;
  }
}

function saveImages(ctx: Ctx, caller: Caller, colony: ColonyRow, images: ColonyImages, image: "icon" | "header", removed: boolean): ColonyRow {
  return ctx.db.transaction((tx) => {
    const row = setColonyImages(ctx, tx, colony.id, images);
    recordModAction(ctx, { colonyId: colony.id, actorId: caller.id, action: `${image}_${removed ? "removed" : "set"}`, targetType: "colony", targetId: colony.id });
    ctx.events.emit(tx, {
      type: "colony_image_changed",
      actorId: caller.id,
      subject: { type: "colony", id: colony.id },
      payload: { colony_id: colony.id, colony_name: colony.name, image, removed },
    });
    return row;
  });
}

/** POST /colonies/{id}/icon: three square WebP renditions replace any earlier icon; returns the colony. */
export async function uploadIcon(ctx: Ctx, caller: Caller, colonyId: string, file: Blob): Promise<ColonyRow> {
  const colony = settingsColony(ctx, caller, colonyId);
  const { bytes, info } = await inspect(file, {
    maxBytes: ICON_MAX_BYTES,
    codes: { tooLarge: "AVATAR_TOO_LARGE", format: "AVATAR_INVALID_FORMAT", animated: "AVATAR_ANIMATED", dimensions: "AVATAR_TOO_LARGE_DIMENSIONS" },
  });
  if (info.width < MIN_DIMENSION || info.height < MIN_DIMENSION) {
    throw new ApiError(400, "AVATAR_TOO_SMALL", `Icons must be at least ${MIN_DIMENSION}x${MIN_DIMENSION} pixels (got ${info.width}x${info.height})`);
  }
  if (info.width > MAX_DIMENSION || info.height > MAX_DIMENSION) {
    throw new ApiError(400, "AVATAR_TOO_LARGE_DIMENSIONS", `Icons may be at most ${MAX_DIMENSION}x${MAX_DIMENSION} pixels (got ${info.width}x${info.height})`);
  }
  const renditions = await encode(Promise.all(ICON_SIZES.map((s) => toWebpSquare(bytes, s))), "AVATAR_INVALID_FORMAT");
  await writeFiles(colonyDir(ctx, colony.id), ICON_SIZES.map((s, i) => ({ name: iconFile(s), data: renditions[i] })));
  const v = ctx.clock.now();
  return saveImages(ctx, caller, colony, { iconUrl: fileUrl(ctx, colony.id, iconFile(32), v), iconUrl96: fileUrl(ctx, colony.id, iconFile(96), v), iconUrl256: fileUrl(ctx, colony.id, iconFile(256), v) }, "icon", false);
}

/** DELETE /colonies/{id}/icon: 404 NOT_FOUND when the colony has no icon. */
export async function removeIcon(ctx: Ctx, caller: Caller, colonyId: string): Promise<void> {
  const colony = settingsColony(ctx, caller, colonyId);
  if (!colony.iconUrl) throw notFound("This colony has no icon");
  saveImages(ctx, caller, colony, { iconUrl: null, iconUrl96: null, iconUrl256: null }, "icon", true);
  await Promise.all(ICON_SIZES.map((s) => rm(join(colonyDir(ctx, colony.id), iconFile(s)), { force: true })));
}

/** POST /colonies/{id}/header: one WebP replaces any earlier header; returns the colony. */
export async function uploadHeader(ctx: Ctx, caller: Caller, colonyId: string, file: Blob): Promise<ColonyRow> {
  const colony = headerColony(ctx, caller, colonyId);
  const { bytes, info } = await inspect(file, {
    maxBytes: HEADER_MAX_BYTES,
    codes: { tooLarge: "HEADER_TOO_LARGE", format: "HEADER_INVALID_FORMAT", animated: "HEADER_ANIMATED", dimensions: "HEADER_TOO_LARGE_DIMENSIONS" },
  });
  // Orientation 5-8 turns the picture a quarter: check the dimensions as it will be shown.
  const turned = (info.orientation ?? 1) >= 5;
  const [w, hgt] = turned ? [info.height, info.width] : [info.width, info.height];
  if (w < HEADER_MIN.width || hgt < HEADER_MIN.height) {
    throw new ApiError(400, "HEADER_TOO_SMALL", `Headers must be at least ${HEADER_MIN.width}x${HEADER_MIN.height} pixels (got ${w}x${hgt})`);
  }
  if (w > HEADER_MAX_SIDE || hgt > HEADER_MAX_SIDE) {
    throw new ApiError(400, "HEADER_TOO_LARGE_DIMENSIONS", `Headers may be at most ${HEADER_MAX_SIDE}x${HEADER_MAX_SIDE} pixels (got ${w}x${hgt})`);
  }
  if (hgt > w) throw new ApiError(400, "HEADER_BAD_ASPECT_RATIO", `Headers are banners: at least as wide as they are tall (got ${w}x${hgt})`);
  const data = await encode(toWebpFit(bytes, HEADER_OUT.width, HEADER_OUT.height), "HEADER_INVALID_FORMAT");
  await writeFiles(colonyDir(ctx, colony.id), [{ name: HEADER_FILE, data }]);
  return saveImages(ctx, caller, colony, { headerUrl: fileUrl(ctx, colony.id, HEADER_FILE, ctx.clock.now()) }, "header", false);
}

/** DELETE /colonies/{id}/header: 404 NOT_FOUND when the colony has no header. */
export async function removeHeader(ctx: Ctx, caller: Caller, colonyId: string): Promise<void> {
  const colony = headerColony(ctx, caller, colonyId);
  if (!colony.headerUrl) throw notFound("This colony has no header image");
  saveImages(ctx, caller, colony, { headerUrl: null }, "header", true);
  await rm(join(colonyDir(ctx, colony.id), HEADER_FILE), { force: true });
}

const SERVED = new Set([...ICON_SIZES.map(iconFile), HEADER_FILE]);

/** The file behind a served URL, or 404 NOT_FOUND (unknown name, no such image, unreadable colony). */
export function mediaPath(ctx: Ctx, caller: Caller | null, colonyId: string, file: string): string {
  const missing = () => notFound("Image not found");
  if (!isUuid(colonyId) || !SERVED.has(file)) throw missing();
  const colony = colonies.findColony(ctx, colonyId.toLowerCase());
  if (!colony || !colonies.canRead(ctx, colony, caller)) throw missing();
  if (file === HEADER_FILE ? !colony.headerUrl : !colony.iconUrl) throw missing();
  return join(colonyDir(ctx, colony.id), file);
}

