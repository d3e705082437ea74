// The development wallet: the embedded default so that a server runs offline. It writes
// well-formed BOLT11 invoices (regtest, signed with a key kept in the data folder) that no real
// payment can settle: an invoice is paid only when the operator says so (`colony admin settle
// <payment_hash>`, or a test). Payouts are booked in a local ledger. Every memo says it is a
// development wallet, and the server refuses it in production unless explicitly allowed.
import { sha256 } from "@noble/hashes/sha2.js";
import { decodeInvoice } from "@getalby/lightning-tools/bolt11";
import { randomBytes } from "node:crypto";
import { basename, dirname } from "node:path";
import { eq } from "drizzle-orm";
import type { Clock } from "../../core/clock";
import { loadOrCreateSecret } from "../../core/secrets";
import type { Db } from "../../db/client";
import { encodeInvoice, nodeIdOf } from "./bolt11";
import { devWalletInvoices, devWalletPayments } from "./tables";
import { WalletError, type CreatedInvoice, type InvoiceRequest, type InvoiceStatus, type PaymentStatus, type Wallet } from "./types";

const DEV_MEMO_PREFIX = "[development wallet: not real money] ";
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

/** The wallet's secret key: a server secret like the others (core/secrets.ts), made on first use. Null path: a key for this process only. */
export function loadDevKey(path: string | null): Uint8Array {
  if (path === null) return new Uint8Array(randomBytes(32));
  return new Uint8Array(loadOrCreateSecret(dirname(path), basename(path), () => randomBytes(32)));
}

export class DevelopmentWallet implements Wallet {
  readonly name = "development" as const;
  readonly nodeId: string;

  constructor(
    private db: Db,
    private clock: Clock,
    private key: Uint8Array,
  ) {
    this.nodeId = nodeIdOf(key);
  }

  async createInvoice(req: InvoiceRequest): Promise<CreatedInvoice> {
    const now = this.clock.now();
    const preimage = new Uint8Array(randomBytes(32));
    const paymentHash = sha256(preimage);
    const memo = DEV_MEMO_PREFIX + req.memo;
    const paymentRequest = encodeInvoice(
      { amountMsat: req.amountSats * 1000, paymentHash, paymentSecret: new Uint8Array(randomBytes(32)), description: memo, expirySeconds: req.expirySeconds, timestamp: Math.floor(now / 1000) },
      this.key,
    );
    const expiresAt = now + req.expirySeconds * 1000;
    this.db.insert(devWalletInvoices).values({ paymentHash: hex(paymentHash), preimage: hex(preimage), paymentRequest, amountSats: req.amountSats, memo, expiresAt, createdAt: now }).run();
    return { paymentRequest, paymentHash: hex(paymentHash), expiresAt };
  }

  async lookupInvoice(paymentHash: string): Promise<InvoiceStatus> {
    const row = this.db.select().from(devWalletInvoices).where(eq(devWalletInvoices.paymentHash, paymentHash)).get();
    if (!row) throw new WalletError(`The development wallet has no invoice ${paymentHash}`);
    if (row.settledAt !== null) return { state: "paid", preimage: row.preimage, paidAt: row.settledAt };
    return row.expiresAt <= this.clock.now() ? { state: "expired" } : { state: "pending" };
  }

  /**
   * Marks an invoice paid, as a real payment would: the operator's `colony admin settle`, or a
   * test. An expired one cannot be settled; settling twice changes nothing.
   */
  settle(paymentHash: string): { settled: boolean; reason?: string } {
    const row = this.db.select().from(devWalletInvoices).where(eq(devWalletInvoices.paymentHash, paymentHash)).get();
    if (!row) return { settled: false, reason: "no such invoice" };
    if (row.settledAt !== null) return { settled: true };
    if (row.expiresAt <= this.clock.now()) return { settled: false, reason: "the invoice has expired" };
    this.db.update(devWalletInvoices).set({ settledAt: this.clock.now() }).where(eq(devWalletInvoices.paymentHash, paymentHash)).run();
    return { settled: true };
  }

  async payInvoice(paymentRequest: string): Promise<PaymentStatus> {
    const decoded = decodeInvoice(paymentRequest);
    if (!decoded) return { state: "failed", reason: "not a BOLT11 invoice" };
    return this.book(decoded.paymentHash, `invoice:${paymentRequest.slice(0, 40)}…`, decoded.satoshi, null);
  }

  async lookupPayment(paymentHash: string): Promise<PaymentStatus> {
    const row = this.db.select().from(devWalletPayments).where(eq(devWalletPayments.paymentHash, paymentHash)).get();
    return row ? { state: "succeeded", preimage: row.preimage, feeSats: 0 } : { state: "unknown" };
  }

  /** Books the payout in the ledger under a fresh payment hash, recorded by the caller first. */
  async payLightningAddress(address: string, amountSats: number, comment: string, record: (paymentHash: string) => void): Promise<PaymentStatus> {
    const preimage = new Uint8Array(randomBytes(32));
    const paymentHash = hex(sha256(preimage));
    record(paymentHash);
    return this.book(paymentHash, address, amountSats, comment, hex(preimage));
  }

  /** The ledger's entries, newest first (the admin command shows them). */
  ledger() {
    return this.db.select().from(devWalletPayments).all().sort((a, b) => b.createdAt - a.createdAt);
  }

  private book(paymentHash: string, destination: string, amountSats: number, comment: string | null, preimage = hex(randomBytes(32))): PaymentStatus {
    const done = this.db.select().from(devWalletPayments).where(eq(devWalletPayments.paymentHash, paymentHash)).get();
    if (done) return { state: "succeeded", preimage: done.preimage, feeSats: 0 };
    this.db.insert(devWalletPayments).values({ paymentHash, destination, amountSats, comment, preimage, createdAt: this.clock.now() }).run();
    return { state: "succeeded", preimage, feeSats: 0 };
  }
}
