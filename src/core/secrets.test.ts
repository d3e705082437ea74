import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPrivateKey } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { ephemeralSecrets, keyedHash, loadOrCreateSecret, loadSecrets, prepareSigningKey, seal, unseal } from "./secrets";

const dir = mkdtempSync(join(tmpdir(), "colony-secrets-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("loadSecrets", () => {
  test("generates the JWT key, the data key and (on first use) the RS256 key (0600) and reuses them", () => {
    const a = loadSecrets(dir);
    for (const name of ["jwt.key", "data.key"]) expect(statSync(join(dir, "secrets", name)).mode & 0o777).toBe(0o600);
    expect(existsSync(join(dir, "secrets", "oidc-rs256.pem"))).toBe(false);
    expect(a.oidcSigningKeyPem).toContain("BEGIN PRIVATE KEY");
    expect(statSync(join(dir, "secrets", "oidc-rs256.pem")).mode & 0o777).toBe(0o600);
    expect(a.dataKey.length).toBe(32);
    const key = createPrivateKey(a.oidcSigningKeyPem);
    expect(key.asymmetricKeyType).toBe("rsa");
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(readFileSync(join(dir, "secrets", "oidc-rs256.pem"), "utf8")).toContain("BEGIN PRIVATE KEY");
    const b = loadSecrets(dir);
    expect(b.oidcSigningKeyPem).toBe(a.oidcSigningKeyPem);
    expect(Buffer.from(b.dataKey).equals(Buffer.from(a.dataKey))).toBe(true);
  });

  test("prepareSigningKey writes the RS256 key of a folder without one, in the background, once", async () => {
    const other = mkdtempSync(join(tmpdir(), "colony-secrets-bg-"));
    try {
      const lazy = loadSecrets(other);
      expect(existsSync(join(other, "secrets", "oidc-rs256.pem"))).toBe(false);
      expect(await prepareSigningKey(other)).toBe(true);
      const pem = readFileSync(join(other, "secrets", "oidc-rs256.pem"), "utf8");
      expect(statSync(join(other, "secrets", "oidc-rs256.pem")).mode & 0o777).toBe(0o600);
      expect(createPrivateKey(pem).asymmetricKeyDetails?.modulusLength).toBe(2048);
      // Secrets loaded before the file existed read it, rather than making another key.
      expect(lazy.oidcSigningKeyPem).toBe(pem);
      expect(await prepareSigningKey(other)).toBe(false);
      expect(readFileSync(join(other, "secrets", "oidc-rs256.pem"), "utf8")).toBe(pem);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  test("a secret file written by another process while this one made its own wins", () => {
    const path = join(dir, "secrets", "raced.key");
    const value = loadOrCreateSecret(join(dir, "secrets"), "raced.key", () => {
      writeFileSync(path, "theirs");
      return Buffer.from("mine");
    });
    expect(value.toString()).toBe("theirs");
    expect(readFileSync(path, "utf8")).toBe("theirs");
  });

  test("ephemeral secrets (tests) are fresh per context except the RSA key", () => {
    const a = ephemeralSecrets();
    const b = ephemeralSecrets();
    expect(Buffer.from(a.dataKey).equals(Buffer.from(b.dataKey))).toBe(false);
    expect(a.oidcSigningKeyPem).toBe(b.oidcSigningKeyPem);
  });
});

describe("seal / unseal (AES-256-GCM)", () => {
  const key = ephemeralSecrets().dataKey;

  test("round-trips; each seal differs; the plaintext is not visible", () => {
    const a = seal(key, "JBSWY3DPEHPK3PXP", "totp:u1");
    const b = seal(key, "JBSWY3DPEHPK3PXP", "totp:u1");
    expect(a).not.toBe(b);
    expect(a).toStartWith("v1.");
    expect(a).not.toContain("JBSWY3DP");
    expect(unseal(key, a, "totp:u1")).toBe("JBSWY3DPEHPK3PXP");
  });

  test("refuses another key, another context (aad), a tampered value and junk", () => {
    const s = seal(key, "secret", "totp:u1");
    expect(() => unseal(ephemeralSecrets().dataKey, s, "totp:u1")).toThrow();
    expect(() => unseal(key, s, "totp:u2")).toThrow();
    const raw = Buffer.from(s.slice(3), "base64url");
    raw[14] ^= 1;
    expect(() => unseal(key, `v1.${raw.toString("base64url")}`, "totp:u1")).toThrow();
    expect(() => unseal(key, "v2.abc", "")).toThrow();
    expect(() => unseal(key, "v1.", "")).toThrow();
  });

  test("keyedHash depends on the key and the purpose", () => {
    const other = ephemeralSecrets().dataKey;
    expect(keyedHash(key, "a", "x")).toMatch(/^[0-9a-f]{64}$/);
    expect(keyedHash(key, "a", "x")).toBe(keyedHash(key, "a", "x"));
    expect(keyedHash(key, "a", "x")).not.toBe(keyedHash(other, "a", "x"));
    expect(keyedHash(key, "a", "x")).not.toBe(keyedHash(key, "b", "x"));
  });
});
