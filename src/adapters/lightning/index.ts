// The wallet chosen by configuration (COLONY_WALLET). Each backend's module is loaded on first
// use, so a server that never takes a payment never loads secp256k1 or the Nostr client (cold
// start). A backend missing its settings, or the development wallet under NODE_ENV=production
// without COLONY_ALLOW_DEVELOPMENT_WALLET, is refused at start-up.
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, type Config } from "../../config";
import type { Clock } from "../../core/clock";
import type { Db } from "../../db/client";
import type { LnurlOptions } from "./lnurl";
import type { CreatedInvoice, InvoiceRequest, InvoiceStatus, PaymentStatus, Wallet, WalletName } from "./types";

export * from "./types";

/** A wallet setting that cannot work: a usage error of the command, like any bad setting. */
export class WalletConfigError extends ConfigError {}

interface WalletDeps {
  db: Db;
  clock: Clock;
  /** The development wallet's key file; null keeps the key in memory (tests). */
  devKeyPath: string | null;
  /** Overrides for paying Lightning addresses (tests point them at local servers). */
  lnurl?: Partial<LnurlOptions>;
}

/** A wallet whose backend is built on its first call. */
export class LazyWallet implements Wallet {
  private loaded: Promise<Wallet> | null = null;

  constructor(
    readonly name: WalletName,
    private load: () => Promise<Wallet>,
  ) {}

  /** The backend itself (the development wallet's settle and ledger). */
  backend(): Promise<Wallet> {
    return (this.loaded ??= this.load());
  }
  async createInvoice(req: InvoiceRequest): Promise<CreatedInvoice> {
    return (await this.backend()).createInvoice(req);
  }
  async lookupInvoice(paymentHash: string): Promise<InvoiceStatus> {
    return (await this.backend()).lookupInvoice(paymentHash);
  }
  async payInvoice(paymentRequest: string, opts: { maxFeeSats: number }): Promise<PaymentStatus> {
    return (await this.backend()).payInvoice(paymentRequest, opts);
  }
  async lookupPayment(paymentHash: string): Promise<PaymentStatus> {
    return (await this.backend()).lookupPayment(paymentHash);
  }
  async payLightningAddress(address: string, amountSats: number, comment: string, record: (paymentHash: string) => void): Promise<PaymentStatus> {
    return (await this.backend()).payLightningAddress!(address, amountSats, comment, record);
  }
}

const need = (value: string | null, variable: string, backend: string): string => {
  if (!value) throw new WalletConfigError(`COLONY_WALLET=${backend} needs ${variable}`);
  return value;
};

/** The macaroon as hex: the value itself, or the file it names. */
function macaroonHex(value: string): string {
  if (/^[0-9a-fA-F]+$/.test(value)) return value.toLowerCase();
  if (!existsSync(value)) throw new WalletConfigError(`COLONY_LND_MACAROON is neither hex nor an existing file: ${value}`);
  return readFileSync(value).toString("hex");
}

export function createWallet(config: Config, deps: WalletDeps): LazyWallet {
  const w = config.wallet;
  const lnurl = { allowPrivate: config.allowPrivateWebhooks, timeoutMs: w.timeoutMs, ...deps.lnurl };
  switch (w.backend) {
    case "development":
      if (config.production && !w.allowDevelopment)
        throw new WalletConfigError("NODE_ENV=production with the development wallet, whose invoices nobody can pay: set COLONY_WALLET (lnbits, nwc or lnd), or COLONY_ALLOW_DEVELOPMENT_WALLET=1 for a demo");
      return new LazyWallet("development", async () => {
        const { DevelopmentWallet, loadDevKey } = await import("./dev-wallet");
        return new DevelopmentWallet(deps.db, deps.clock, loadDevKey(deps.devKeyPath));
      });
    case "lnbits": {
      const settings = { url: need(w.lnbits.url, "COLONY_LNBITS_URL", "lnbits"), adminKey: need(w.lnbits.adminKey, "COLONY_LNBITS_ADMIN_KEY", "lnbits"), invoiceKey: w.lnbits.invoiceKey, timeoutMs: w.timeoutMs };
      return new LazyWallet("lnbits", async () => new (await import("./lnbits")).LnbitsWallet(settings, lnurl, () => deps.clock.now()));
    }
    case "nwc": {
      const url = need(w.nwcUrl, "COLONY_NWC_URL", "nwc");
      if (!url.startsWith("nostr+walletconnect://")) throw new WalletConfigError("COLONY_NWC_URL must be a nostr+walletconnect:// connection string");
      return new LazyWallet("nwc", async () => (await import("./nwc")).NwcWallet.fromUrl(url, lnurl));
    }
    case "lnd": {
      const settings = {
        url: need(w.lnd.url, "COLONY_LND_REST_URL", "lnd"),
        macaroonHex: macaroonHex(need(w.lnd.macaroon, "COLONY_LND_MACAROON", "lnd")),
        tlsCertPem: w.lnd.tlsCert ? readFileSync(w.lnd.tlsCert, "utf8") : null,
        timeoutMs: w.timeoutMs,
      };
      return new LazyWallet("lnd", async () => new (await import("./lnd")).LndWallet(settings, lnurl));
    }
  }
}

/** The development wallet's key, among the server's secrets (so `colony backup` carries it). */
export const devKeyPath = (dataDir: string) => join(dataDir, "secrets", "dev-wallet.key");
