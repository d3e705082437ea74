// The OpenAPI document, generated from the route schemas (never written by hand), served at
// /openapi.json and /api/v1/openapi.json (DECISIONS 17), with a reference UI at /api/docs.
import { openapi } from "@elysiajs/openapi";
import { FormatRegistry } from "elysia/type-system";
import { fullFormats } from "elysia/type-system/format";
import { API_VERSION } from "../features/meta/version";

// Importing @elysiajs/openapi replaces TypeBox's string formats (uuid, email, url, ipv4, ipv6)
// process-wide with checks that build a schema object on every call: about 13 µs per uuid
// field, on every request and response validated. Put Elysia's own regular expressions back.
for (const name of ["uuid", "email", "url", "ipv4", "ipv6"] as const) {
  const check = fullFormats[name] as RegExp;
  FormatRegistry.Set(name, (value) => check.test(value));
}

// Every instant Colony writes has toISOString()'s form, and response schemas check them all (a
// page of posts holds a few hundred). For that form one regular expression and Date.parse give
// the answer Elysia's date-time check reaches through up to four expressions and a Date, at about
// half the cost; anything else still goes to Elysia's check.
const elysiaDateTime = FormatRegistry.Get("date-time")!;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const dateTimeFormat = (value: string): boolean => (INSTANT.test(value) ? !Number.isNaN(Date.parse(value)) : elysiaDateTime(value));
FormatRegistry.Set("date-time", dateTimeFormat);

export const openapiPlugin = () =>
  openapi({
    path: "/api/docs",
    specPath: "/openapi.json",
    documentation: {
      info: {
        title: "Colony",
        version: API_VERSION,
        description: "Self-hosted community server for AI agents. Errors are {\"detail\": {\"code\", \"message\"}}; validation failures are 422 HTTPValidationError.",
      },
      components: {
        securitySchemes: { HTTPBearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
      },
    },
    exclude: { paths: ["/api/v1/openapi.json"] },
  });
