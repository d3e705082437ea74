// Server secrets generated into the data folder on first start (mode 0600) and reused after.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createCipheriv, createDecipheriv, createHmac, generateKeyPair, generateKeyPairSync, randomBytes, type KeyObject } from "node:crypto";

export interface Secrets {
  /** HS256 key signing access tokens. */
  jwtKey: Uint8Array;
  /** 256-bit key for data that must be usable later (AES-256-GCM at rest, e.g. TOTP secrets) and keyed hashes. */
  dataKey: Uint8Array;
  /**
   * PKCS#8 PEM of the identity provider's RS256 signing key. Read (or, when the data folder has
   * none yet, generated) on first use: see prepareSigningKey.
   */
  readonly oidcSigningKeyPem: string;
}

/** Writes a new secret file (0600); false when one already exists (another process was first). */
function writeNewSecret(path: string, value: Buffer): boolean {
  try {
    writeFileSync(path, value, { mode: 0o600, flag: "wx" });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
  chmodSync(path, 0o600);
  return true;
}

/** The secret in `dir/name`, made with `make` and written there (0600) when there is none; a file written meanwhile by another process wins. */
export function loadOrCreateSecret(dir: string, name: string, make: () => Buffer): Buffer {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, name);
  if (existsSync(path)) return readFileSync(path);
  const value = make();
  return writeNewSecret(path, value) ? value : readFileSync(path);
}

export const OIDC_KEY_FILE = "oidc-rs256.pem";
const pemOf = (key: KeyObject) => key.export({ type: "pkcs8", format: "pem" }).toString();
const newRsaPem = () => pemOf(generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey);

export function loadSecrets(dataDir: string): Secrets {
  const dir = join(dataDir, "secrets");
  let pem: string | undefined;
  return {
    jwtKey: new Uint8Array(loadOrCreateSecret(dir, "jwt.key", () => randomBytes(64))),
    dataKey: new Uint8Array(loadOrCreateSecret(dir, "data.key", () => randomBytes(32))),
    // Generating a 2048-bit RSA key would be most of a fresh data folder's start; only the
    // identity provider's id_tokens and JWKS need it, so it is made when first asked for.
    get oidcSigningKeyPem() {
      return (pem ??= loadOrCreateSecret(dir, OIDC_KEY_FILE, () => Buffer.from(newRsaPem())).toString());
    },
  };
}

/**
 * Generates the RS256 signing key of a data folder that has none, on a thread of the runtime's
 * pool (the event loop goes on serving), and writes it (0600). The server calls this once it is
 * listening, so the key exists from the first start on as before, without the start waiting for
 * it; whoever needs the key earlier generates it on the spot, and the first file written wins.
 * Resolves to whether this call wrote the file.
 */
export async function prepareSigningKey(dataDir: string): Promise<boolean> {
  const dir = join(dataDir, "secrets");
  const path = join(dir, OIDC_KEY_FILE);
  if (existsSync(path)) return false;
  const key = await new Promise<KeyObject>((resolve, reject) =>
    generateKeyPair("rsa", { modulusLength: 2048 }, (err, _publicKey, privateKey) => (err ? reject(err) : resolve(privateKey))),
  );
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return writeNewSecret(path, Buffer.from(pemOf(key)));
}

// One RSA key per test process: generating 2048-bit keys costs tens of milliseconds each.
let ephemeralRsa: string | null = null;

export const ephemeralSecrets = (): Secrets => ({
  jwtKey: new Uint8Array(randomBytes(64)),
  dataKey: new Uint8Array(randomBytes(32)),
  oidcSigningKeyPem: (ephemeralRsa ??= newRsaPem()),
});

const SEAL_VERSION = "v1";

/** AES-256-GCM encryption: "v1.<base64url(iv | ciphertext | tag)>". `aad` binds the value to its context. */
export function seal(key: Uint8Array, plaintext: string, aad = ""): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(aad));
  const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return `${SEAL_VERSION}.${Buffer.concat([iv, ct, cipher.getAuthTag()]).toString("base64url")}`;
}

/** Decrypts a value made by `seal`; throws if it was altered or sealed with another key or aad. */
export function unseal(key: Uint8Array, sealed: string, aad = ""): string {
  const [version, body] = sealed.split(".");
  if (version !== SEAL_VERSION || !body) throw new Error("unknown sealed value format");
  const raw = Buffer.from(body, "base64url");
  if (raw.length < 28) throw new Error("sealed value too short");
  const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString("utf8");
}

/** HMAC-SHA256 (hex) under a server key: a hash of a low-entropy secret that is useless without the key. */
export const keyedHash = (key: Uint8Array, purpose: string, value: string) => createHmac("sha256", key).update(purpose).update("\0").update(value).digest("hex");
