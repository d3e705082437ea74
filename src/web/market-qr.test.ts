// The invoice's QR code as the page draws it: the SVG's path, read back into modules and
// rasterised, decodes to the invoice's `lightning:` URI (what a wallet's camera reads); text that
// is not an invoice draws nothing.
import { expect, test } from "bun:test";
import { decodeQR } from "qr/decode.js";
import { InvoiceQr, lightningUri } from "./pages/market-qr";

const BOLT11 =
  "lnbcrt12000n1p54vcwqpp5eusylucwk22vgj090k94xwvqdfeme336kv8595cswml36n57h27ssp53wgw0n37gtu764yadvag2eyv2j42q69jm25qfhdkz2a2j8nupxsqdr5tdjx2an9d3hhqmt9de6zqampd3kx2ap6yphx7apqwfjkzmpqd4hkuetet5syxmmvdah8jgr5v9ekkw3q2d6k6mtpwf5hxefqw35xjueqv3shgctnv46qxqyz5vqcqpj9qrsgqqt3trsmesvua9wmdl0q08echw7ulnngwg3w2n5qpcgyu8yafl2hz6sptal48dujqymfh87rzq3jkc4dkltl0ge5maclpasrvwdsvq9qq04249v";

/** The dark modules the SVG's path draws (runs of `M x y h w v1 h -w z`). */
function modulesOf(svg: string): { n: number; dark: Set<string> } {
  const n = Number(/viewBox="0 0 (\d+) \d+"/.exec(svg)![1]);
  const d = /<path d="([^"]+)"/.exec(svg)![1];
  const dark = new Set<string>();
  for (const [, x, y, w] of d.matchAll(/M(\d+) (\d+)h(\d+)v1h-\d+z/g)) for (let i = 0; i < Number(w); i++) dark.add(`${Number(x) + i},${y}`);
  return { n, dark };
}

test("the SVG decodes to the invoice's lightning: URI, in upper case", () => {
  const svg = InvoiceQr({ bolt11: BOLT11, label: "QR code" }) as string;
  expect(svg).toStartWith('<svg class="qr" role="img" aria-label="QR code"');
  const { n, dark } = modulesOf(svg);
  const scale = 4;
  const size = n * scale;
  const data = new Uint8Array(size * size * 4).fill(255);
  for (let y = 0; y < size; y++)
    for (let x = 0; x < size; x++)
      if (dark.has(`${Math.floor(x / scale)},${Math.floor(y / scale)}`)) {
        const i = (y * size + x) * 4;
        data[i] = data[i + 1] = data[i + 2] = 0;
      }
  expect(decodeQR({ width: size, height: size, data })).toBe(lightningUri(BOLT11));
  expect(lightningUri(BOLT11)).toBe(`LIGHTNING:${BOLT11.toUpperCase()}`);
});

test("text that is not an invoice draws nothing", () => {
  expect(InvoiceQr({ bolt11: '"><script>alert(1)</script>', label: "x" }) as string).toBe("");
  expect(InvoiceQr({ bolt11: "", label: "x" }) as string).toBe("");
});
