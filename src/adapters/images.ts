// Image processing over sharp. This is the only module that imports sharp.
//
// Run from source, sharp uses its native libvips binding. Inside the compiled executable the
// build plugin in scripts/build.ts swaps in sharp's official WebAssembly build
// (@img/sharp-wasm32), because a single-file executable cannot load a native addon.
// Both expose the same API; only speed differs.
//
// sharp is loaded lazily on first use, so commands and server start-up that never touch an
// image do not pay for loading libvips (compiling the WebAssembly module takes a moment).
import type { SharpOptions } from "sharp";

type SharpModule = typeof import("sharp").default;

let loading: Promise<SharpModule> | undefined;

function loadSharp(): Promise<SharpModule> {
  loading ??= import("sharp").then((m) => {
    const sharp = m.default;
    // Don't keep decoded images around between requests; the server converts few, small images.
    sharp.cache(false);
    return sharp;
  });
  return loading;
}

/** Refuse to decode anything larger than this many pixels (a decompression-bomb guard). */
export const MAX_INPUT_PIXELS = 40_000_000;

/** Formats accepted as input for avatars and other user images (sharp reports AVIF as "heif"). */
const ACCEPTED_FORMATS = ["jpeg", "png", "webp", "gif", "heif"] as const;

/** Thrown when the bytes are not a decodable image, or one too large to decode. */
export class ImageError extends Error {
  constructor(
    public readonly code: "UNSUPPORTED_IMAGE" | "IMAGE_TOO_LARGE",
    message: string,
  ) {
    super(message);
    this.name = "ImageError";
  }
}

export interface ImageInfo {
  format: string;
  width: number;
  height: number;
  /** Number of frames (1 for still images). */
  pages: number;
  animated: boolean;
  /** EXIF orientation tag (1-8) when present; width/height are as stored, before orientation. */
  orientation?: number;
}

interface BackendInfo {
  /** "native": prebuilt libvips addon; "wasm": @img/sharp-wasm32; "global": system libvips. */
  kind: "native" | "wasm" | "global";
  sharp: string;
  vips: string;
}

const inputOptions = (extra: SharpOptions = {}): SharpOptions => ({ limitInputPixels: MAX_INPUT_PIXELS, ...extra });

// Errors that mean "these bytes are not an image we can decode", as opposed to a bug in how
// sharp is called: sharp's input checks ("Input buffer has corrupt header: ...") and libvips
// decoder failures ("VipsJpeg: premature end of JPEG image", "vipspng: libpng read error").
const UNDECODABLE = /^Input (buffer|Bit Array|file)\b|unsupported image format|corrupt header|premature end|^vips\w*: |^\w+load(_buffer)?: /i;

function wrap(err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err);
  if (/exceeds pixel limit/i.test(message)) return new ImageError("IMAGE_TOO_LARGE", `Image is larger than ${MAX_INPUT_PIXELS} pixels`);
  if (UNDECODABLE.test(message)) return new ImageError("UNSUPPORTED_IMAGE", "File is not a supported image");
  return err instanceof Error ? err : new Error(message);
}

/** Reads the header of an image: format, dimensions and frame count. Throws ImageError. */
export async function probe(input: Uint8Array): Promise<ImageInfo> {
  const sharp = await loadSharp();
  try {
    const meta = await sharp(input, inputOptions()).metadata();
    // The gate is the same for every build: the native one also reads SVG, PDF and more, the
    // WebAssembly one does not, and user uploads need neither.
    if (!meta.format || !(ACCEPTED_FORMATS as readonly string[]).includes(meta.format) || !meta.width || !meta.height) {
      throw new ImageError("UNSUPPORTED_IMAGE", "File is not a supported image");
    }
    if (meta.width * meta.height > MAX_INPUT_PIXELS) throw new ImageError("IMAGE_TOO_LARGE", `Image is larger than ${MAX_INPUT_PIXELS} pixels`);
    const pages = meta.pages ?? 1;
    return {
      format: meta.format,
      width: meta.width,
      height: meta.height,
      pages,
      animated: pages > 1,
      ...(meta.orientation ? { orientation: meta.orientation } : {}),
    };
  } catch (err) {
    throw err instanceof ImageError ? err : wrap(err);
  }
}

interface WebpOptions {
  /** WebP quality, 1-100. */
  quality?: number;
}

/**
 * Converts an image into a size×size WebP: the first frame of animations, EXIF orientation
 * applied, centre-cropped to a square. The output carries no metadata (EXIF, GPS, XMP, ICC):
 * sharp drops it unless asked to keep it, and this module never asks. Throws ImageError for
 * input that probe() would refuse.
 */
export async function toWebpSquare(input: Uint8Array, size: number, opts: WebpOptions = {}): Promise<Buffer> {
  if (!Number.isInteger(size) || size < 1 || size > 4096) throw new RangeError(`size must be an integer in 1..4096, got ${size}`);
  await probe(input);
  const sharp = await loadSharp();
  try {
    return await sharp(input, inputOptions({ animated: false }))
      .autoOrient()
      .resize(size, size, { fit: "cover", position: "centre" })
      .webp({ quality: opts.quality ?? 82, effort: 4 })
      .toBuffer();
  } catch (err) {
    throw wrap(err);
  }
}

/**
 * Converts a still image into a WebP that fits inside maxWidth×maxHeight (never enlarged, aspect
 * kept): EXIF orientation applied, no metadata carried over (as toWebpSquare). Throws ImageError
 * for input that probe() would refuse.
 */
export async function toWebpFit(input: Uint8Array, maxWidth: number, maxHeight: number, opts: WebpOptions = {}): Promise<Buffer> {
  await probe(input);
  const sharp = await loadSharp();
  try {
    return await sharp(input, inputOptions({ animated: false }))
      .autoOrient()
      .resize(maxWidth, maxHeight, { fit: "inside", withoutEnlargement: true })
      .webp({ quality: opts.quality ?? 85, effort: 4 })
      .toBuffer();
  } catch (err) {
    throw wrap(err);
  }
}

interface CleanImage {
  data: Buffer;
  /** jpeg, png, webp or gif: the input's own format. */
  format: "jpeg" | "png" | "webp" | "gif";
  width: number;
  height: number;
  animated: boolean;
}

/**
 * Re-encodes an image in its own format (JPEG, PNG, WebP or GIF) with every metadata block
 * removed (EXIF, GPS, XMP, ICC): EXIF orientation is applied to the pixels first, animations keep
 * their frames, and anything larger than `maxDimension` on a side is scaled down to fit. Throws
 * ImageError for input probe() refuses or that is another format.
 */
export async function reencodeClean(input: Uint8Array, opts: { maxDimension?: number; quality?: number } = {}): Promise<CleanImage> {
  const info = await probe(input);
  const format = info.format;
  if (format !== "jpeg" && format !== "png" && format !== "webp" && format !== "gif") throw new ImageError("UNSUPPORTED_IMAGE", "File is not a supported image");
  const sharp = await loadSharp();
  const max = opts.maxDimension ?? 4096;
  const quality = opts.quality ?? 90;
  try {
    let img = sharp(input, inputOptions({ animated: info.animated }));
    if (!info.animated) img = img.autoOrient();
    img = img.resize(max, max, { fit: "inside", withoutEnlargement: true });
    img =
      format === "jpeg" ? img.jpeg({ quality, mozjpeg: false })
      : format === "png" ? img.png({ compressionLevel: 9 })
      : format === "webp" ? img.webp({ quality })
      : img.gif();
    const { data, info: out } = await img.toBuffer({ resolveWithObject: true });
    const pageHeight = (out as { pageHeight?: number }).pageHeight;
    return { data, format, width: out.width, height: info.animated && pageHeight ? pageHeight : out.height, animated: info.animated };
  } catch (err) {
    throw wrap(err);
  }
}

/** Which build of sharp and libvips this process runs. */
async function backend(): Promise<BackendInfo> {
  const sharp = await loadSharp();
  const v = sharp.versions as Record<string, string | undefined>;
  // The WebAssembly package's versions.json lists the Emscripten toolchain; the native
  // packages list the libraries they bundle (cairo, pango, ...), a system libvips lists none.
  const kind = v.emscripten ? "wasm" : v.cairo || v.png ? "native" : "global";
  return { kind, sharp: v.sharp ?? "unknown", vips: v.vips ?? "unknown" };
}

interface SelfTestResult {
  backend: BackendInfo;
  input: { format: string; width: number; height: number; bytes: number };
  output: { format: string; width: number; height: number; bytes: number; hasExif: boolean };
}

/**
 * Makes a small PNG in memory (with an EXIF block attached), converts it with toWebpSquare and
 * reads the result back. Throws if any step fails or the output is not what it should be.
 */
export async function selfTest(): Promise<SelfTestResult> {
  const sharp = await loadSharp();
  const png = await sharp({ create: { width: 48, height: 32, channels: 3, background: { r: 200, g: 60, b: 20 } } })
    .png()
    .withExif({ IFD0: { Copyright: "colony self-test" } })
    .toBuffer();
  const inMeta = await probe(png);
  const webp = await toWebpSquare(png, 16);
  const outMeta = await sharp(webp).metadata();
  const output = { format: outMeta.format, width: outMeta.width, height: outMeta.height, bytes: webp.length, hasExif: Boolean(outMeta.exif) };
  if (output.format !== "webp" || output.width !== 16 || output.height !== 16) {
    throw new Error(`self-test produced ${output.format} ${output.width}x${output.height}, expected webp 16x16`);
  }
  if (output.hasExif) throw new Error("self-test output still carries EXIF metadata");
  return {
    backend: await backend(),
    input: { format: inMeta.format, width: inMeta.width, height: inMeta.height, bytes: png.length },
    output,
  };
}
