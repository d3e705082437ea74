// The part of the `macaroon` package (go-macaroon/js-macaroon) the L402 downloads use; the
// package ships no types.
declare module "macaroon" {
  export interface Macaroon {
    readonly identifier: Uint8Array;
    readonly location: string;
    readonly signature: Uint8Array;
    readonly caveats: { identifier: Uint8Array; location?: string }[];
    addFirstPartyCaveat(caveat: string | Uint8Array): void;
    /** Throws when the signature or a caveat does not verify; `check` answers null or an error string. */
    verify(rootKey: Uint8Array, check: (condition: string) => string | null, discharges?: Macaroon[]): void;
    /** Avoided: the package's byte buffer doubles on every append (features/documents/l402.ts encodes instead). */
    exportBinary(): Uint8Array;
    exportJSON(): Record<string, unknown>;
  }
  export function newMacaroon(opts: { identifier: string | Uint8Array; location?: string; rootKey: string | Uint8Array; version?: 1 | 2 }): Macaroon;
  export function importMacaroon(obj: string | Uint8Array | Record<string, unknown>): Macaroon | Macaroon[];
  export function bytesToBase64(bytes: Uint8Array): string;
  export function base64ToBytes(s: string): Uint8Array;
}
