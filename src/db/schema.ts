// drizzle-kit's input: every table of every feature.
export * from "../core/tables";
export * from "../features/users/tables";
export * from "../features/auth/tables";
