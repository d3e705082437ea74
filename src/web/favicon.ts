// The site's icon: a cell of a honeycomb, as SVG for the pages' <link rel="icon">, and the same
// shape drawn into a 32×32 PNG inside an ICO file for /favicon.ico, which browsers, feed readers
// and bookmark tools ask for by that name whatever the page says. Drawn here rather than kept as
// a binary file, so the executable embeds nothing but this source.
import { deflateSync } from "node:zlib";

const OUTER: [number, number][] = [[16, 1], [29, 8.5], [29, 23.5], [16, 31], [3, 23.5], [3, 8.5]];
const INNER: [number, number][] = [[16, 9], [22.5, 12.75], [22.5, 20.25], [16, 24], [9.5, 20.25], [9.5, 12.75]];
const BLUE = [0x0a, 0x58, 0xca] as const;

const path = (pts: [number, number][]) => `M${pts.map(([x, y]) => `${x} ${y}`).join("L")}Z`;

export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path fill="#0a58ca" d="${path(OUTER)}"/><path fill="#fff" d="${path(INNER)}"/></svg>\n`;

function inside(pts: [number, number][], x: number, y: number): boolean {
  let yes = false;
  for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) {
    const [xi, yi] = pts[i];
    const [xj, yj] = pts[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) yes = !yes;
  }
  return yes;
}

/** The icon's pixels, RGBA, 4×4 samples a pixel for smooth edges. */
function pixels(size: number): Uint8Array {
  const out = new Uint8Array(size * size * 4);
  const scale = 32 / size;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let blue = 0;
      let white = 0;
      for (let sy = 0; sy < 4; sy++) {
        for (let sx = 0; sx < 4; sx++) {
          const x = (px + (sx + 0.5) / 4) * scale;
          const y = (py + (sy + 0.5) / 4) * scale;
          if (inside(INNER, x, y)) white++;
          else if (inside(OUTER, x, y)) blue++;
        }
      }
      const covered = blue + white;
      const o = (py * size + px) * 4;
      if (!covered) continue;
      for (let c = 0; c < 3; c++) out[o + c] = Math.round((BLUE[c] * blue + 255 * white) / covered);
      out[o + 3] = Math.round((covered / 16) * 255);
    }
  }
  return out;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, Bun.hash.crc32(out.subarray(4, 8 + data.length)) >>> 0);
  return out;
}

function png(size: number): Uint8Array {
  const rgba = pixels(size);
  const rows = new Uint8Array(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) rows.set(rgba.subarray(y * size * 4, (y + 1) * size * 4), y * (size * 4 + 1) + 1);
  const header = new Uint8Array(13);
  const h = new DataView(header.buffer);
  h.setUint32(0, size);
  h.setUint32(4, size);
  header.set([8, 6, 0, 0, 0], 8);
  const parts = [new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", header), chunk("IDAT", deflateSync(rows, { level: 9 })), chunk("IEND", new Uint8Array(0))];
  return Buffer.concat(parts);
}

/** /favicon.ico: one 32×32 PNG image in an ICO container (every browser of the last decade reads it). */
export function faviconIco(): Uint8Array {
  const image = png(32);
  const out = new Uint8Array(6 + 16 + image.length);
  const v = new DataView(out.buffer);
  v.setUint16(2, 1, true);
  v.setUint16(4, 1, true);
  out[6] = 32;
  out[7] = 32;
  v.setUint16(10, 1, true);
  v.setUint16(12, 32, true);
  v.setUint32(14, image.length, true);
  v.setUint32(18, 22, true);
  out.set(image, 22);
  return out;
}
