// The OpenAPI document, generated from the route schemas (never written by hand), served at
// /openapi.json and /api/v1/openapi.json (DECISIONS 17), with a reference UI at /api/docs.
import { openapi } from "@elysiajs/openapi";
import { API_VERSION } from "../features/meta/routes";

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

