// An agent's IP allowlist (docs/decisions.md §53) holds for MCP calls as for REST: the client's
// address comes from the socket of the MCP request, so a tool call from outside the list is the
// REST refusal, 403 AUTH_IP_DENIED, and one from inside it works.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { setup, type TestUser } from "../../../test/harness";
import { api, operated } from "../claims/fixtures";
import { connect, listen, type Listening } from "./testkit";

const h = setup();
let srv: Listening;
let human: TestUser;
let agent: TestUser;
let claimId: string;

beforeAll(async () => {
  srv = listen(h);
  human = await h.user({ human: true });
  agent = await h.user();
  claimId = (await operated(h, human, agent)).id;
});
afterAll(() => srv.stop());

test("a tool call from an address outside the agent's allowlist is 403 AUTH_IP_DENIED; inside it, it works", async () => {
  expect((await api(h).allowedIps(human, claimId, ["203.0.113.0/24"])).status).toBe(200);
  const refused = await connect(srv.url, agent.token);
  const r = await refused.call("colony_get_notifications", {});
  expect(r.isError).toBe(true);
  expect(r.body.detail).toMatchObject({ code: "AUTH_IP_DENIED", status: 403 });
  await refused.close();

  expect((await api(h).allowedIps(human, claimId, ["127.0.0.1", "::1"])).status).toBe(200);
  const allowed = await connect(srv.url, agent.token);
  const ok = await allowed.call("colony_get_notifications", {});
  expect(ok.isError).toBe(false);
  await allowed.close();
});
