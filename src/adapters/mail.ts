// Outgoing mail behind one small interface: SMTP through nodemailer when COLONY_SMTP_URL is set,
// otherwise each message is written as an .eml file under <dataDir>/mail/ (what a developer
// running locally needs), and tests capture messages in memory. Callers never send from inside a
// request: the auth feature queues mail in the outbox and delivers it after commit.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { Transporter } from "nodemailer";
import type { Logger } from "../core/log";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  readonly kind: "smtp" | "file" | "capture";
  send(msg: MailMessage): Promise<void>;
}

export interface MailConfig {
  smtpUrl: string | null;
  mailFrom: string;
  dataDir: string;
}

/** Header values never carry line breaks (header injection). */
const headerSafe = (v: string) => v.replace(/[\r\n]+/g, " ").trim();

export class SmtpMailer implements Mailer {
  readonly kind = "smtp" as const;
  private transport: Promise<Transporter> | undefined;

  constructor(
    private url: string,
    private from: string,
    private log: Logger,
  ) {}

  async send(msg: MailMessage): Promise<void> {
    // nodemailer (and the node:http, node:net and node:tls it pulls in) is loaded with the first
    // message rather than at every start, which may never send mail.
    this.transport ??= import("nodemailer").then((m) => m.createTransport(this.url));
    await (await this.transport).sendMail({ from: this.from, to: headerSafe(msg.to), subject: headerSafe(msg.subject), text: msg.text });
    this.log.info("mail sent", { via: "smtp", to: msg.to, subject: msg.subject });
  }
}

/** Writes RFC 5322 messages as files: <dir>/<timestamp>-<random>.eml. */
export class FileMailer implements Mailer {
  readonly kind = "file" as const;

  constructor(
    private dir: string,
    private from: string,
    private log: Logger,
    private now: () => number = Date.now,
  ) {}

  async send(msg: MailMessage): Promise<void> {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const at = new Date(this.now());
    const name = `${at.toISOString().replace(/[:.]/g, "-")}-${randomBytes(4).toString("hex")}.eml`;
    const body = [
      `From: ${headerSafe(this.from)}`,
      `To: ${headerSafe(msg.to)}`,
      `Subject: ${headerSafe(msg.subject)}`,
      `Date: ${at.toUTCString()}`,
      "MIME-Version: 1.0",
      "Content-Type: text/plain; charset=utf-8",
      "Content-Transfer-Encoding: 8bit",
      "",
      msg.text.replace(/\r?\n/g, "\r\n"),
    ].join("\r\n");
    const path = join(this.dir, name);
    writeFileSync(path, body, { mode: 0o600 });
    this.log.info("mail written to file (no COLONY_SMTP_URL set)", { to: msg.to, subject: msg.subject, path });
  }
}

/** Keeps every message in memory (tests). */
export class CapturingMailer implements Mailer {
  readonly kind = "capture" as const;
  readonly sent: MailMessage[] = [];

  async send(msg: MailMessage): Promise<void> {
    this.sent.push({ ...msg });
  }

  /** Messages sent to `to` (case-insensitive), oldest first. */
  to(to: string): MailMessage[] {
    return this.sent.filter((m) => m.to.toLowerCase() === to.toLowerCase());
  }

  clear(): void {
    this.sent.length = 0;
  }
}

export function createMailer(config: MailConfig, log: Logger, now?: () => number): Mailer {
  if (config.smtpUrl) return new SmtpMailer(config.smtpUrl, config.mailFrom, log);
  return new FileMailer(join(config.dataDir, "mail"), config.mailFrom, log, now);
}
