import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../core/log";
import { CapturingMailer, FileMailer, SmtpMailer, createMailer } from "./mail";

const log = createLogger("silent", () => 0);
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "colony-mail-"));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("FileMailer (no COLONY_SMTP_URL)", () => {
  test("writes one .eml per message under <dataDir>/mail/, mode 0600, headers without line breaks", async () => {
    const dataDir = tmp();
    const mailer = createMailer({ smtpUrl: null, mailFrom: "Colony <no-reply@colony.test>", dataDir }, log, () => Date.UTC(2026, 0, 2, 3, 4, 5));
    expect(mailer.kind).toBe("file");
    await mailer.send({ to: "op@example.com", subject: "Hello\r\nBcc: victim@example.com", text: "line one\nline two" });
    await mailer.send({ to: "op@example.com", subject: "Second", text: "x" });
    const files = readdirSync(join(dataDir, "mail"));
    expect(files).toHaveLength(2);
    for (const f of files) expect(f).toMatch(/^2026-01-02T03-04-05-000Z-[0-9a-f]{8}\.eml$/);
    const first = files.map((f) => readFileSync(join(dataDir, "mail", f), "utf8")).find((t) => t.includes("Hello"))!;
    expect(first).toContain("From: Colony <no-reply@colony.test>\r\nTo: op@example.com\r\nSubject: Hello Bcc: victim@example.com\r\n");
    expect(first).not.toMatch(/^Bcc:/m);
    expect(first.endsWith("\r\n\r\nline one\r\nline two")).toBe(true);
    expect(statSync(join(dataDir, "mail", files[0])).mode & 0o777).toBe(0o600);
  });
});

describe("CapturingMailer", () => {
  test("keeps messages and filters by recipient", async () => {
    const m = new CapturingMailer();
    await m.send({ to: "A@example.com", subject: "s", text: "t" });
    await m.send({ to: "b@example.com", subject: "s2", text: "t2" });
    expect(m.to("a@example.com").map((x) => x.subject)).toEqual(["s"]);
    m.clear();
    expect(m.sent).toEqual([]);
  });
});

describe("SmtpMailer (COLONY_SMTP_URL)", () => {
  test("delivers through an SMTP server on 127.0.0.1", async () => {
    const received: { from?: string; to: string[]; data: string } = { to: [], data: "" };
    let inData = false;
    const server = Bun.listen<{ buf: string }>({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        open(s) {
          s.data = { buf: "" };
          s.write("220 test ESMTP\r\n");
        },
        data(s, chunk) {
          s.data.buf += chunk.toString();
          let i: number;
          while ((i = s.data.buf.indexOf("\r\n")) >= 0) {
            const line = s.data.buf.slice(0, i);
            s.data.buf = s.data.buf.slice(i + 2);
            if (inData) {
              if (line === ".") {
                inData = false;
                s.write("250 queued\r\n");
              } else received.data += line + "\n";
              continue;
            }
            const cmd = line.slice(0, 4).toUpperCase();
            if (cmd === "EHLO" || cmd === "HELO") s.write("250 test\r\n");
            else if (cmd === "MAIL") (received.from = line), s.write("250 ok\r\n");
            else if (cmd === "RCPT") received.to.push(line), s.write("250 ok\r\n");
            else if (cmd === "DATA") (inData = true), s.write("354 go\r\n");
            else if (cmd === "QUIT") s.write("221 bye\r\n"), s.end();
            else s.write("250 ok\r\n");
          }
        },
      },
    });
    try {
      const mailer = createMailer({ smtpUrl: `smtp://127.0.0.1:${server.port}/?ignoreTLS=true`, mailFrom: "Colony <no-reply@colony.test>", dataDir: tmp() }, log);
      expect(mailer).toBeInstanceOf(SmtpMailer);
      await mailer.send({ to: "op@example.com", subject: "Via SMTP", text: "hello over smtp" });
      expect(received.from).toContain("no-reply@colony.test");
      expect(received.to.join()).toContain("op@example.com");
      expect(received.data).toContain("Subject: Via SMTP");
      expect(received.data).toContain("hello over smtp");
    } finally {
      server.stop(true);
    }
  });
});

test("FileMailer is what createMailer builds without an SMTP URL", () => {
  expect(createMailer({ smtpUrl: null, mailFrom: "x@y", dataDir: tmp() }, log)).toBeInstanceOf(FileMailer);
});
