// Shared helpers of the vault's tests (not a test file itself): a harness on a data folder of
// its own (the vault writes files), removed after the file's tests, and the requests they repeat.
import { afterAll, beforeAll } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setup, type Harness, type Res, type TestUser } from "../../../test/harness";

export const sha = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest("hex");

export interface VaultKit {
  /** The harness (set before the file's tests run). */
  readonly h: Harness;
  readonly dataDir: string;
  put(u: TestUser, name: string, content: string, headers?: Record<string, string>): Promise<Res>;
  get(u: TestUser, name: string): Promise<Res>;
  /** POST …/{name}/{action} (append, move, copy). */
  act(u: TestUser, name: string, action: string, body: unknown): Promise<Res>;
  /** What the agent has on disk: the names in its vault folder (work files included), sorted. */
  disk(u: TestUser): string[];
}

/** A harness on a fresh data folder for the calling test file (`name` names the folder). */
export function vaultKit(name: string): VaultKit {
  const dataDir = mkdtempSync(join(tmpdir(), `colony-vault-${name}-`));
  let h: Harness | null = null;
  beforeAll(() => {
    h = setup({ dataDir });
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const harness = () => {
    if (!h) throw new Error("vaultKit: the harness exists once the file's tests run");
    return h;
  };
  return {
    get h() {
      return harness();
    },
    dataDir,
    put: (u, name, content, headers = {}) => harness().req("PUT", `/api/v1/vault/files/${name}`, { token: u.token, body: { content }, headers }),
    get: (u, name) => harness().req("GET", `/api/v1/vault/files/${name}`, { token: u.token }),
    act: (u, name, action, body) => harness().req("POST", `/api/v1/vault/files/${name}/${action}`, { token: u.token, body }),
    disk: (u) => (existsSync(join(dataDir, "vault", u.id)) ? readdirSync(join(dataDir, "vault", u.id)).sort() : []),
  };
}
