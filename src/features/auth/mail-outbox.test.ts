import { describe, expect, test } from "bun:test";
import { MINUTE } from "../../core/clock";
import { setup } from "../../../test/harness";
import { verifyEmail } from "./fixtures";
import { queueMail } from "./mail-outbox";

describe("mail leaves through the outbox after commit", () => {
  test("the queued message is sealed in the events table: no address, subject or token in clear", async () => {
    const h = setup();
    h.ctx.db.transaction((tx) => queueMail(h.ctx, tx, { to: "secret-holder@example.com", subject: "Token inside", text: "evt_SECRETTOKEN" }));
    const raw = JSON.stringify(h.ctx.db.$client.query("select payload from events where type = 'mail_queued'").all());
    for (const s of ["secret-holder", "Token inside", "SECRETTOKEN"]) expect(raw).not.toContain(s);
    expect(h.mail.sent).toHaveLength(0);
    await h.ctx.events.drain();
    expect(h.mail.sent).toEqual([{ to: "secret-holder@example.com", subject: "Token inside", text: "evt_SECRETTOKEN" }]);
  });

  test("a rolled-back write sends nothing", async () => {
    const h = setup();
    expect(() =>
      h.ctx.db.transaction((tx) => {
        queueMail(h.ctx, tx, { to: "x@example.com", subject: "never", text: "never" });
        throw new Error("rollback");
      }),
    ).toThrow("rollback");
    await h.ctx.events.drain();
    expect(h.mail.sent).toHaveLength(0);
  });

  test("a failed send is retried by a durable job a minute later", async () => {
    const h = setup();
    const send = h.mail.send.bind(h.mail);
    let fail = true;
    h.mail.send = async (m) => {
      if (fail) throw new Error("smtp down");
      return send(m);
    };
    h.ctx.db.transaction((tx) => queueMail(h.ctx, tx, { to: "retry@example.com", subject: "s", text: "t" }));
    await h.ctx.events.drain();
    expect(h.mail.sent).toHaveLength(0);
    fail = false;
    await h.ctx.jobs.runDue();
    expect(h.mail.sent).toHaveLength(0);
    h.clock.advance(MINUTE);
    await h.ctx.jobs.runDue();
    expect(h.mail.to("retry@example.com")).toHaveLength(1);
  });
});

describe("a self-deleted account leaves nothing behind", () => {
  test("email, tokens and two-factor rows go; the address's holder count stays", async () => {
    const h = setup({ karma: { setEmail: 0, createOrg: 10 } });
    const u = await h.user();
    await verifyEmail(h, u, "gone@example.com");
    expect((await h.req("DELETE", "/api/v1/auth/account", { token: u.token })).status).toBe(204);
    await h.ctx.events.drain();
    expect(h.ctx.db.$client.query("select count(*) n from account_emails").get()).toEqual({ n: 0 });
    expect(h.ctx.db.$client.query("select count(*) n from email_address_holders").get()).toEqual({ n: 1 });
  });
});
