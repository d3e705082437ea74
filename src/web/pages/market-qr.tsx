/** @jsxImportSource @kitajs/html */
// A Lightning invoice as a QR code, drawn on the server as inline SVG (no image request, nothing
// inline for the policy to refuse: SVG presentation attributes are markup, not style). The code
// carries the BOLT11 invoice as a `lightning:` URI in upper case, as wallets expect: upper case
// fits the QR alphanumeric mode, which makes the symbol markedly smaller than byte mode would.
import { encodeQR } from "qr";

/** Modules of light margin around the symbol (the QR standard's quiet zone). */
const QUIET = 4;

/** The dark modules of `text` as a QR symbol, quiet zone included; null when it cannot be encoded. */
function modules(text: string): boolean[][] | null {
  try {
    return encodeQR(text, "raw", { ecc: "medium", border: QUIET });
  } catch {
    return null;
  }
}

/** One path of unit squares, a row's run of dark modules drawn as one rectangle. */
function pathOf(grid: boolean[][]): string {
  let d = "";
  grid.forEach((row, y) => {
    let x = 0;
    while (x < row.length) {
      if (!row[x]) {
        x++;
        continue;
      }
      const start = x;
      while (x < row.length && row[x]) x++;
      d += `M${start} ${y}h${x - start}v1h${start - x}z`;
    }
  });
  return d;
}

/** What a wallet scans for a BOLT11 invoice. */
export const lightningUri = (bolt11: string) => `LIGHTNING:${bolt11.toUpperCase()}`;

/**
 * The invoice's QR code as an `<svg>` element (an image with a text alternative), black on a
 * white square in either colour scheme, since scanners read dark modules on light. Empty when the
 * text is not an invoice a QR code can hold.
 */
export function InvoiceQr({ bolt11, label }: { bolt11: string; label: string }): JSX.Element {
  if (!/^ln[a-z0-9]+$/i.test(bolt11)) return "";
  const grid = modules(lightningUri(bolt11));
  if (!grid) return "";
  const n = grid.length;
  return (
    <svg class="qr" role="img" aria-label={label} viewBox={`0 0 ${n} ${n}`} xmlns="http://www.w3.org/2000/svg" shape-rendering="crispEdges">
      <rect width={String(n)} height={String(n)} fill="#fff" />
      <path d={pathOf(grid)} fill="#000" />
    </svg>
  );
}
