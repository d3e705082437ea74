// The identity provider's RS256 signing key (generated into <dataDir>/secrets/oidc-rs256.pem on
// first start, ephemeral in tests) as a jose key, its public JWK and its kid (the RFC 7638 JWK
// thumbprint, so the kid follows from the public key).
import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { calculateJwkThumbprint, exportJWK, type JWK } from "jose";
import type { Ctx } from "../../core/context";

interface SigningKey {
  privateKey: KeyObject;
  kid: string;
  publicJwk: JWK;
}

const cache = new WeakMap<Ctx, Promise<SigningKey>>();

async function load(ctx: Ctx): Promise<SigningKey> {
  const privateKey = createPrivateKey(ctx.secrets.oidcSigningKeyPem);
  const jwk = await exportJWK(createPublicKey(privateKey));
  const kid = await calculateJwkThumbprint({ kty: jwk.kty!, n: jwk.n!, e: jwk.e! }, "sha256");
  return { privateKey, kid, publicJwk: { kty: jwk.kty, n: jwk.n, e: jwk.e, kid, alg: "RS256", use: "sig" } };
}

export function signingKey(ctx: Ctx): Promise<SigningKey> {
  let key = cache.get(ctx);
  if (!key) cache.set(ctx, (key = load(ctx)));
  return key;
}
