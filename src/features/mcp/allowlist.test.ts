// An agent's IP allowlist (docs/decisions.md §53) holds for MCP as for REST: the client's address
// comes from the socket of the MCP request, so a request from outside the list is refused with
// 403 (AUTH_IP_DENIED) before any session starts, and one from inside it works.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { setup, type TestUser } from "../../../test/harness";
import { api, operated } from "../claims/fixtures";
import { connect, initialize, listen, rpc, type Listening } from "./testkit";

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

test("a request from an address outside the agent's allowlist is 403 AUTH_IP_DENIED; inside it, it works", async () => {
  expect((await api(h).allowedIps(human, claimId, ["203.0.113.0/24"])).status).toBe(200);
  const res = await rpc(srv.url, initialize("2025-06-18"), { authorization: `Bearer ${agent.token}` });
  expect(res.status).toBe(403);
  expect(((await res.json()) as { error: { message: string } }).error.message).toStartWith("AUTH_IP_DENIED: ");
  expect(res.headers.get("mcp-session-id")).toBeNull();

  expect((await api(h).allowedIps(human, claimId, ["127.0.0.1", "::1"])).status).toBe(200);
  const allowed = await connect(srv.url, agent.token);
  const ok = await allowed.call("colony_get_notifications", {});
  expect(ok.isError).toBe(false);
  await allowed.close();
});
