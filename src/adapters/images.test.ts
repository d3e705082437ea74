import { describe, expect, test } from "bun:test";
import { deflateSync } from "node:zlib";
import sharp from "sharp";
import { ImageError, MAX_INPUT_PIXELS, probe, selfTest, toWebpSquare } from "./images";

const solid = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: { r: 10, g: 120, b: 200 } } });

/** A valid PNG that claims the given size but holds almost no pixel data: cheap to make. */
function pngClaiming(width: number, height: number): Uint8Array {
  const chunk = (type: string, data: Uint8Array) => {
    const out = new Uint8Array(12 + data.length);
    const view = new DataView(out.buffer);
    view.setUint32(0, data.length);
    out.set(new TextEncoder().encode(type), 4);
    out.set(data, 8);
    view.setUint32(8 + data.length, Bun.hash.crc32(out.subarray(4, 8 + data.length)) >>> 0);
    return out;
  };
  const ihdr = new Uint8Array(13);
  new DataView(ihdr.buffer).setUint32(0, width);
  new DataView(ihdr.buffer).setUint32(4, height);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, default compression and filter, no interlace
  const signature = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return new Uint8Array([...signature, ...chunk("IHDR", ihdr), ...chunk("IDAT", deflateSync(new Uint8Array(64))), ...chunk("IEND", new Uint8Array(0))]);
}

async function imageError(p: Promise<unknown>): Promise<ImageError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ImageError);
  return err as ImageError;
}

describe("probe", () => {
  test("reads format, size and frame count", async () => {
    const png = await solid(30, 20).png().toBuffer();
    expect(await probe(png)).toEqual({ format: "png", width: 30, height: 20, pages: 1, animated: false });
  });

  test("reports animations", async () => {
    const frames = await Promise.all([solid(8, 8).png().toBuffer(), solid(8, 8).negate().png().toBuffer()]);
    const gif = await sharp(frames, { join: { animated: true } }).gif().toBuffer();
    expect(await probe(gif)).toMatchObject({ format: "gif", width: 8, height: 8, pages: 2, animated: true });
  });

  test("reports the EXIF orientation", async () => {
    const jpeg = await solid(40, 20).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    expect(await probe(jpeg)).toMatchObject({ format: "jpeg", width: 40, height: 20, orientation: 6 });
  });

  test.each([
    ["empty input", new Uint8Array(0)],
    ["text", new TextEncoder().encode("definitely not an image")],
    ["SVG (a format outside the accepted list)", new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>')],
  ])("refuses %s as UNSUPPORTED_IMAGE", async (_name, bytes) => {
    expect((await imageError(probe(bytes))).code).toBe("UNSUPPORTED_IMAGE");
  });

  test("refuses a truncated image", async () => {
    const gif = await solid(64, 64).gif().toBuffer();
    expect((await imageError(probe(gif.subarray(0, 20)))).code).toBe("UNSUPPORTED_IMAGE");
  });

  test("refuses images over the pixel limit without decoding them", async () => {
    const side = Math.ceil(Math.sqrt(MAX_INPUT_PIXELS)) + 1;
    expect((await imageError(probe(pngClaiming(side, side)))).code).toBe("IMAGE_TOO_LARGE");
  });
});

describe("toWebpSquare", () => {
  test("crops to a square WebP of the requested size", async () => {
    const out = await toWebpSquare(await solid(300, 120).png().toBuffer(), 64);
    const meta = await sharp(out).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["webp", 64, 64]);
  });

  test("strips EXIF, XMP and ICC metadata", async () => {
    const jpeg = await solid(50, 50)
      .jpeg()
      .withExif({ IFD0: { Copyright: "someone", ImageDescription: "GPS would be here" } })
      .withIccProfile("p3")
      .toBuffer();
    const inMeta = await sharp(jpeg).metadata();
    expect(Boolean(inMeta.exif && inMeta.icc)).toBe(true);
    const meta = await sharp(await toWebpSquare(jpeg, 32)).metadata();
    expect(meta.exif).toBeUndefined();
    expect(meta.xmp).toBeUndefined();
    expect(meta.icc).toBeUndefined();
    expect(meta.orientation).toBeUndefined();
  });

  test("keeps only the first frame of an animation", async () => {
    const frames = await Promise.all([solid(8, 8).png().toBuffer(), solid(8, 8).negate().png().toBuffer()]);
    const gif = await sharp(frames, { join: { animated: true } }).gif().toBuffer();
    const meta = await sharp(await toWebpSquare(gif, 8)).metadata();
    expect(meta.pages ?? 1).toBe(1);
  });

  test("refuses undecodable input and bad sizes", async () => {
    expect((await imageError(toWebpSquare(new TextEncoder().encode("nope"), 32))).code).toBe("UNSUPPORTED_IMAGE");
    const png = await solid(4, 4).png().toBuffer();
    for (const size of [0, -1, 1.5, 5000]) expect(toWebpSquare(png, size)).rejects.toThrow(RangeError);
  });
});

test("selfTest converts a PNG to WebP and names the sharp build", async () => {
  const r = await selfTest();
  expect(r.input).toMatchObject({ format: "png", width: 48, height: 32 });
  expect(r.output).toMatchObject({ format: "webp", width: 16, height: 16, hasExif: false });
  // From source, sharp runs its native binding; the compiled binary's test checks "wasm".
  expect(r.backend.kind).toBe("native");
  expect(r.backend.sharp).toMatch(/^\d+\.\d+\.\d+/);
});
