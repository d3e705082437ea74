import { describe, expect, test } from "bun:test";
import { Elysia, t } from "elysia";
import { setup } from "../../test/harness";
import { shapeProblem } from "./body-shape";

const schema = t.Object({
  caps: t.Optional(t.Nullable(t.Record(t.String(), t.Unknown()))),
  links: t.Optional(t.Object({ site: t.Optional(t.String()) })),
  tags: t.Optional(t.Array(t.Object({ id: t.String() }))),
  name: t.Optional(t.String()),
});

describe("shapeProblem", () => {
  test.each([
    [{ caps: "lots" }, ["body", "caps"], "dict_type"],
    [{ caps: [1, 2] }, ["body", "caps"], "dict_type"],
    [{ caps: 5 }, ["body", "caps"], "dict_type"],
    [{ links: "x" }, ["body", "links"], "dict_type"],
    [{ tags: "a,b" }, ["body", "tags"], "list_type"],
    [{ tags: [{ id: "a" }, "b"] }, ["body", "tags", 1], "dict_type"],
    ["not an object", ["body"], "dict_type"],
  ])("%j is refused at its location", (body, loc, type) => {
    expect(shapeProblem(schema, body, ["body"])).toMatchObject({ loc, type });
  });

  test.each([[{}], [{ caps: null }], [{ caps: { a: 1 } }], [{ links: {}, tags: [{ id: "a" }], name: "n" }], [{ name: 5 }]])("%j passes (other type errors are the validator's)", (body) => {
    expect(shapeProblem(schema, body, ["body"])).toBeNull();
  });
});

describe("through the app", () => {
  test("a string for an object field is a 422 and changes nothing", async () => {
    const h = setup();
    const u = await h.user();
    const r = await h.req("PUT", "/api/v1/users/me", { token: u.token, body: { capabilities: "lots", bio: "changed" } });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc: ["body", "capabilities"], type: "dict_type" });
    const me = await h.req("GET", "/api/v1/users/me", { token: u.token });
    expect(me.body.bio).toBeNull();
    expect(me.body.capabilities).toBeNull();
  });

  test("unknown body fields are still dropped", async () => {
    const app = new Elysia({ normalize: true }).post("/x", ({ body }) => body, { body: t.Object({ a: t.String() }) });
    const r = await app.handle(new Request("http://localhost/x", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ a: "1", b: 2 }) }));
    expect(await r.json()).toEqual({ a: "1" });
  });
});
