// Profiles: GET/PUT /api/v1/users/me, GET /api/v1/users/{user_id}, GET /api/v1/users/by-username/{username}
// (spec Part 1 §2.1, §4.3; docs/decisions.md §7; ARCHITECTURE rule 5: anonymous, stranger, owner).
import { beforeEach, describe, expect, test } from "bun:test";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { DAY } from "../../core/clock";
import { npubOf } from "./views";

// One instance for the file: each test has its own owner and stranger. A test that moves the
// clock by days has an instance of its own.
const shared = setup();
let h: Harness;
let owner: TestUser;
let stranger: TestUser;

async function use(harness: Harness) {
  h = harness;
  owner = await h.user();
  stranger = await h.user();
}

beforeEach(() => use(shared));

const getMe = (token = owner.token) => h.req("GET", "/api/v1/users/me", { token });
const putMe = (body: unknown, token = owner.token) => h.req("PUT", "/api/v1/users/me", { token, body });

// NIP-19's published test vector.
const NOSTR_HEX = "7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e";
const NOSTR_NPUB = "npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg";

describe("GET /users/me", () => {
  test("the caller's own full record", async () => {
    const res = await getMe();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: owner.id,
      username: owner.username,
      display_name: owner.username,
      user_type: "agent",
      bio: null,
      lightning_address: null,
      nostr_pubkey: null,
      npub: null,
      evm_address: null,
      capabilities: null,
      social_links: null,
      karma: 0,
      team_role: null,
      current_model: null,
      harness: null,
      created_at: new Date(h.clock.now()).toISOString(),
      avatar_url: `http://localhost/u/${owner.username}/avatar`,
    });
    expect(res.body.trust_level).toEqual({ name: "Newcomer", min_karma: 0, icon: expect.any(String), rate_multiplier: 1 });
  });

  test("401 AUTH_INVALID_TOKEN anonymously", async () => {
    const res = await h.req("GET", "/api/v1/users/me");
    expect(res.status).toBe(401);
    expect(res.body.detail.code).toBe("AUTH_INVALID_TOKEN");
  });

  test("an admin's record carries team_role admin", async () => {
    const admin = await h.user({ admin: true });
    expect((await getMe(admin.token)).body.team_role).toBe("admin");
  });

  test("trust level follows karma", async () => {
    const vet = await h.user({ karma: 250 });
    expect((await getMe(vet.token)).body).toMatchObject({ karma: 250, trust_level: { name: "Veteran", min_karma: 200, rate_multiplier: 3 } });
    const neg = await h.user({ karma: -5 });
    expect((await getMe(neg.token)).body).toMatchObject({ karma: -5, trust_level: { name: "Newcomer", min_karma: 0 } });
  });
});

describe("PUT /users/me", () => {
  test("401 AUTH_INVALID_TOKEN anonymously; nothing changes", async () => {
    const res = await h.req("PUT", "/api/v1/users/me", { body: { bio: "hijack" } });
    expect(res.status).toBe(401);
    expect(res.body.detail.code).toBe("AUTH_INVALID_TOKEN");
    expect((await getMe()).body.bio).toBeNull();
  });

  test("partial update: omitted fields are unchanged", async () => {
    const first = await putMe({ display_name: "Owner", bio: "I write tests", current_model: "model-x", harness: "harness-y" });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ display_name: "Owner", bio: "I write tests", current_model: "model-x", harness: "harness-y" });
    const second = await putMe({ bio: "Still testing" });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ display_name: "Owner", bio: "Still testing", current_model: "model-x", harness: "harness-y" });
    expect((await getMe()).body).toMatchObject({ display_name: "Owner", bio: "Still testing" });
  });

  test("an empty body changes nothing and answers the profile", async () => {
    await putMe({ bio: "keep" });
    const res = await putMe({});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: owner.id, bio: "keep" });
  });

  test("null clears a field", async () => {
    await putMe({ bio: "b", capabilities: { specialties: ["rust"] }, current_model: "m", harness: "x", evm_address: "0x" + "a".repeat(40) });
    const res = await putMe({ bio: null, capabilities: null, current_model: null, harness: null, evm_address: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ bio: null, capabilities: null, current_model: null, harness: null, evm_address: null });
  });

  test("display_name cannot be cleared: null leaves it unchanged, blank is 400 INVALID_INPUT", async () => {
    await putMe({ display_name: "Named" });
    expect((await putMe({ display_name: null })).body.display_name).toBe("Named");
    const blank = await putMe({ display_name: "   " });
    expect(blank.status).toBe(400);
    expect(blank.body.detail.code).toBe("INVALID_INPUT");
    expect((await getMe()).body.display_name).toBe("Named");
  });

  test("display_name is trimmed", async () => {
    expect((await putMe({ display_name: "  Spaced  " })).body.display_name).toBe("Spaced");
  });

  test("bio: 1000 characters is accepted, 1001 is 422", async () => {
    const ok = await putMe({ bio: "b".repeat(1000) });
    expect(ok.status).toBe(200);
    expect(ok.body.bio).toHaveLength(1000);
    const long = await putMe({ bio: "c".repeat(1001) });
    expect(long.status).toBe(422);
    expect(long.body.detail[0].loc).toEqual(["body", "bio"]);
    expect((await getMe()).body.bio).toBe("b".repeat(1000));
  });

  test("capabilities is replaced as a whole", async () => {
    await putMe({ capabilities: { specialties: ["rust"], languages: ["en"] } });
    const res = await putMe({ capabilities: { specialties: ["go"] } });
    expect(res.body.capabilities).toEqual({ specialties: ["go"] });
  });

  test("capabilities that is not an object is 422", async () => {
    for (const capabilities of ["lots", [1, 2], 5]) {
      const res = await putMe({ capabilities });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(["body", "capabilities"]);
    }
    expect((await getMe()).body.capabilities).toBeNull();
  });

  test("unknown fields are ignored, including privileged ones", async () => {
    const res = await putMe({ bio: "x", karma: 9999, username: "renamed", user_type: "human", is_admin: true, id: stranger.id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: owner.id, username: owner.username, karma: 0, user_type: "agent", team_role: null, bio: "x" });
  });

  test("changes only the caller's record", async () => {
    await putMe({ bio: "mine" }, stranger.token);
    expect((await getMe()).body.bio).toBeNull();
    expect((await h.req("GET", `/api/v1/users/${stranger.id}`)).body.bio).toBe("mine");
  });

  describe("lightning_address", () => {
    test.each([["alice@getalby.com"], ["a.b-c+d_e@sub.example.org"], ["Bob@Example.COM"]])("accepts %s (stored lower-case)", async (addr) => {
      const res = await putMe({ lightning_address: addr });
      expect(res.status).toBe(200);
      expect(res.body.lightning_address).toBe(addr.toLowerCase());
    });

    test.each([["no-at-sign"], ["@example.com"], ["alice@"], ["alice@localhost"], ["alice@exa mple.com"], ["a@b@c.com"], ["lnurl1dp68gurn8ghj7"]])(
      "rejects %s with 422",
      async (addr) => {
        await putMe({ lightning_address: "keep@example.com" });
        const res = await putMe({ lightning_address: addr });
        expect(res.status).toBe(422);
        expect(res.body.detail[0].loc).toEqual(["body", "lightning_address"]);
        expect((await getMe()).body.lightning_address).toBe("keep@example.com");
      },
    );

    test("null or blank clears it", async () => {
      await putMe({ lightning_address: "alice@example.com" });
      expect((await putMe({ lightning_address: null })).body.lightning_address).toBeNull();
      await putMe({ lightning_address: "alice@example.com" });
      expect((await putMe({ lightning_address: "  " })).body.lightning_address).toBeNull();
    });
  });

  describe("nostr_pubkey", () => {
    test("a 64-hex key is stored and its NIP-19 npub is derived", async () => {
      const res = await putMe({ nostr_pubkey: NOSTR_HEX });
      expect(res.status).toBe(200);
      expect(res.body.nostr_pubkey).toBe(NOSTR_HEX);
      expect(res.body.npub).toBe(NOSTR_NPUB);
      expect(npubOf(NOSTR_HEX)).toBe(NOSTR_NPUB);
      // Visible to others too.
      expect((await h.req("GET", `/api/v1/users/${owner.id}`)).body).toMatchObject({ nostr_pubkey: NOSTR_HEX, npub: NOSTR_NPUB });
    });

    test("upper-case hex is normalised", async () => {
      const res = await putMe({ nostr_pubkey: NOSTR_HEX.toUpperCase() });
      expect(res.body).toMatchObject({ nostr_pubkey: NOSTR_HEX, npub: NOSTR_NPUB });
    });

    test.each([["too short", "ab".repeat(31)], ["not hex", "g".repeat(64)], ["an npub", NOSTR_NPUB.slice(0, 64)]])("rejects %s with 422", async (_why, key) => {
      const res = await putMe({ nostr_pubkey: key });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(["body", "nostr_pubkey"]);
    });

    test("over 64 characters is 422", async () => {
      const res = await putMe({ nostr_pubkey: NOSTR_HEX + "0" });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(["body", "nostr_pubkey"]);
    });

    test("null clears both nostr_pubkey and npub", async () => {
      await putMe({ nostr_pubkey: NOSTR_HEX });
      expect((await putMe({ nostr_pubkey: null })).body).toMatchObject({ nostr_pubkey: null, npub: null });
    });
  });

  describe("evm_address", () => {
    test("0x plus 40 hex characters is accepted as sent", async () => {
      const addr = "0x52908400098527886E0F7030069857D2E4169EE7";
      const res = await putMe({ evm_address: addr });
      expect(res.status).toBe(200);
      expect(res.body.evm_address).toBe(addr);
    });

    test.each([["no 0x prefix", "52908400098527886E0F7030069857D2E4169EE7"], ["39 hex", "0x" + "a".repeat(39)], ["not hex", "0x" + "z".repeat(40)], ["43 chars", "0x" + "a".repeat(41)]])(
      "rejects %s with 422",
      async (_why, addr) => {
        const res = await putMe({ evm_address: addr });
        expect(res.status).toBe(422);
        expect(res.body.detail[0].loc).toEqual(["body", "evm_address"]);
      },
    );
  });

  describe("social_links", () => {
    test("updates merge into the stored links", async () => {
      expect((await putMe({ social_links: { github: "owner" } })).body.social_links).toEqual({ github: "owner" });
      expect((await putMe({ social_links: { x: "owner_x" } })).body.social_links).toEqual({ github: "owner", x: "owner_x" });
      expect((await putMe({ social_links: { website: "https://owner.example" } })).body.social_links).toEqual({
        github: "owner",
        x: "owner_x",
        website: "https://owner.example",
      });
      // A link left out of an update is kept; other fields do not touch the links.
      expect((await putMe({ bio: "b" })).body.social_links).toEqual({ github: "owner", x: "owner_x", website: "https://owner.example" });
    });

    test("null or blank removes one link; null for the whole object clears all", async () => {
      await putMe({ social_links: { github: "owner", x: "owner_x" } });
      expect((await putMe({ social_links: { github: null } })).body.social_links).toEqual({ x: "owner_x" });
      expect((await putMe({ social_links: { x: "" } })).body.social_links).toBeNull();
      await putMe({ social_links: { github: "owner", x: "owner_x" } });
      expect((await putMe({ social_links: null })).body.social_links).toBeNull();
    });

    test("values are trimmed and unknown link names are dropped", async () => {
      const res = await putMe({ social_links: { github: "  owner  ", mastodon: "@owner@example.social" } });
      expect(res.status).toBe(200);
      expect(res.body.social_links).toEqual({ github: "owner" });
    });

    test.each([["javascript:alert(1)"], ["owner.example"], ["ftp://owner.example"]])("website %s is 422", async (website) => {
      await putMe({ social_links: { github: "owner" } });
      const res = await putMe({ social_links: { website } });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(["body", "social_links", "website"]);
      expect((await getMe()).body.social_links).toEqual({ github: "owner" });
    });

    test("over-long values are 422", async () => {
      const res = await putMe({ social_links: { github: "g".repeat(101) } });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc.slice(0, 2)).toEqual(["body", "social_links"]);
    });
  });

  test("a failed update changes nothing, even fields that were valid", async () => {
    await putMe({ bio: "before", display_name: "Before" });
    const res = await putMe({ bio: "after", display_name: "After", lightning_address: "bad" });
    expect(res.status).toBe(422);
    expect((await getMe()).body).toMatchObject({ bio: "before", display_name: "Before" });
  });

  test.each([
    ["bio not a string", { bio: 5 }, ["body", "bio"]],
    ["display_name over 100", { display_name: "d".repeat(101) }, ["body", "display_name"]],
    ["current_model over 100", { current_model: "m".repeat(101) }, ["body", "current_model"]],
    ["lightning_address over 255", { lightning_address: "a".repeat(250) + "@example.com" }, ["body", "lightning_address"]],
  ])("422 HTTPValidationError: %s", async (_why, body, loc) => {
    const res = await putMe(body);
    expect(res.status).toBe(422);
    expect(Array.isArray(res.body.detail)).toBe(true);
    expect(res.body.detail.some((d: any) => JSON.stringify(d.loc) === JSON.stringify(loc) && typeof d.msg === "string" && typeof d.type === "string")).toBe(true);
  });
});

describe("GET /users/{user_id} and /users/by-username/{username}", () => {
  beforeEach(async () => {
    await putMe({ bio: "public bio", lightning_address: "owner@example.com", social_links: { github: "owner" } });
  });

  const paths = () => [`/api/v1/users/${owner.id}`, `/api/v1/users/${owner.username}`, `/api/v1/users/by-username/${owner.username}`];

  test("by id, by username in the id slot, and by-username give the same record", async () => {
    const bodies = [];
    for (const path of paths()) {
      const res = await h.req("GET", path);
      expect(res.status).toBe(200);
      bodies.push(res.body);
    }
    expect(bodies[0]).toMatchObject({ id: owner.id, username: owner.username, bio: "public bio", social_links: { github: "owner" } });
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);
  });

  test("the username is matched case-insensitively, the id too", async () => {
    const mixed = [...owner.username].map((ch, i) => (i % 2 ? ch : ch.toUpperCase())).join("");
    for (const path of [`/api/v1/users/${owner.username.toUpperCase()}`, `/api/v1/users/by-username/${mixed}`, `/api/v1/users/${owner.id.toUpperCase()}`]) {
      const res = await h.req("GET", path);
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(owner.id);
    }
  });

  test("the record has the same shape as /users/me", async () => {
    const pub = (await h.req("GET", `/api/v1/users/${owner.id}`)).body;
    const mine = (await getMe()).body;
    expect(Object.keys(pub).sort()).toEqual(Object.keys(mine).sort());
  });

  test.each([
    ["an unknown id", "/api/v1/users/019b0000-0000-7000-8000-000000000000"],
    ["an unknown username", "/api/v1/users/nobody-here"],
    ["an unknown by-username", "/api/v1/users/by-username/nobody-here"],
  ])("404 USER_NOT_FOUND for %s", async (_why, path) => {
    const res = await h.req("GET", path);
    expect(res.status).toBe(404);
    expect(res.body.detail.code).toBe("USER_NOT_FOUND");
  });

  test("user_id longer than 64 characters is 422", async () => {
    const res = await h.req("GET", `/api/v1/users/${"x".repeat(65)}`);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(["path", "user_id"]);
  });

  test("a pending registration is invisible (404)", async () => {
    const p = await h.req("POST", "/api/v1/auth/register/begin", { body: { username: "pending-one", display_name: "P" } });
    expect(p.status).toBe(201);
    for (const path of [`/api/v1/users/${p.body.id}`, "/api/v1/users/pending-one", "/api/v1/users/by-username/pending-one"]) {
      const res = await h.req("GET", path, { token: stranger.token });
      expect(res.status).toBe(404);
      expect(res.body.detail.code).toBe("USER_NOT_FOUND");
    }
  });

  test("a self-deleted account is 404", async () => {
    const gone = await h.user({ username: "gone-agent" });
    expect((await h.req("DELETE", "/api/v1/auth/account", { token: gone.token })).status).toBe(204);
    for (const path of [`/api/v1/users/${gone.id}`, "/api/v1/users/by-username/gone-agent"]) {
      const res = await h.req("GET", path);
      expect(res.status).toBe(404);
      expect(res.body.detail.code).toBe("USER_NOT_FOUND");
    }
  });

  describe("anonymous, stranger and owner views", () => {
    const viewers = () =>
      [
        ["anonymous", null, null],
        ["stranger", stranger.token, null],
        ["owner", owner.token, "owner@example.com"],
      ] as const;

    test("lightning_address is shown only to its owner", async () => {
      for (const path of paths()) {
        for (const [who, token, expected] of viewers()) {
          const res = await h.req("GET", path, { token });
          expect({ who, path, status: res.status }).toEqual({ who, path, status: 200 });
          expect({ who, path, lightning_address: res.body.lightning_address }).toEqual({ who, path, lightning_address: expected });
          // Everything else is the same for everyone.
          expect(res.body).toMatchObject({ id: owner.id, bio: "public bio", social_links: { github: "owner" } });
        }
      }
    });

    test("the API key and its hash never appear", async () => {
      for (const path of [...paths(), "/api/v1/users/me"]) {
        for (const [, token] of viewers()) {
          if (path.endsWith("/me") && !token) continue;
          const res = await h.req("GET", path, { token });
          expect(res.text).not.toContain(owner.apiKey);
          expect(res.text).not.toContain(stranger.apiKey);
          expect(res.text).not.toContain("api_key");
        }
      }
    });

    test("a bad token on these optional-auth routes is 401 AUTH_INVALID_TOKEN, not an anonymous view", async () => {
      for (const path of paths()) {
        const res = await h.req("GET", path, { token: "garbage" });
        expect(res.status).toBe(401);
        expect(res.body.detail.code).toBe("AUTH_INVALID_TOKEN");
      }
    });
  });

  test("/users/me is the caller, never a user named 'me'", async () => {
    const res = await h.req("GET", "/api/v1/users/me", { token: stranger.token });
    expect(res.body.id).toBe(stranger.id);
    const reserved = await h.req("GET", "/api/v1/auth/check-username", { query: { username: "me" } });
    expect(reserved.body.valid).toBe(false);
  });
});

describe("last_active", () => {
  test("is null before any authenticated request", async () => {
    const fresh = await h.user(); // the harness mints its token through the service, not a request
    const res = await h.req("GET", `/api/v1/users/${fresh.id}`);
    expect(res.body.last_active).toBeNull();
  });

  test("is a coarse bucket, never the exact last-seen time", async () => {
    await use(setup());
    await getMe(); // authenticated use records activity
    const at = (ms: number) => {
      h.clock.advance(ms);
      return h.req("GET", `/api/v1/users/${owner.id}`);
    };
    const buckets = [
      [0, "recently"],
      [7 * DAY, "recently"],
      [1, "this_month"],
      [23 * DAY - 1, "this_month"],
      [1, "earlier"],
      [365 * DAY, "earlier"],
    ] as const;
    for (const [ms, bucket] of buckets) {
      const res = await at(ms);
      expect(res.status).toBe(200);
      expect(res.body.last_active).toBe(bucket);
    }
    // Authenticated use (with a fresh token: the old one expired long ago) moves it back to
    // "recently", for every viewer.
    const token = (await h.req("POST", "/api/v1/auth/token", { body: { api_key: owner.apiKey } })).body.access_token;
    expect((await getMe(token)).status).toBe(200);
    const strangerToken = (await h.req("POST", "/api/v1/auth/token", { body: { api_key: stranger.apiKey } })).body.access_token;
    for (const viewer of [null, strangerToken, token]) {
      expect((await h.req("GET", `/api/v1/users/${owner.id}`, { token: viewer })).body.last_active).toBe("recently");
    }
  });
});
