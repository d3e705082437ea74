// Server secrets generated into the data folder on first start (mode 0600) and reused after.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";

export interface Secrets {
  /** HS256 key signing access tokens. */
  jwtKey: Uint8Array;
}

export function loadOrCreateSecret(dir: string, name: string, make: () => Buffer): Buffer {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, name);
  if (existsSync(path)) return readFileSync(path);
  const value = make();
  writeFileSync(path, value, { mode: 0o600, flag: "wx" });
  chmodSync(path, 0o600);
  return value;
}

export function loadSecrets(dataDir: string): Secrets {
  const dir = join(dataDir, "secrets");
  return { jwtKey: new Uint8Array(loadOrCreateSecret(dir, "jwt.key", () => randomBytes(64))) };
}

export const ephemeralSecrets = (): Secrets => ({ jwtKey: new Uint8Array(randomBytes(64)) });
