// Loaded before every test file (bunfig.toml).
import { setDefaultTimeout } from "bun:test";
import { setPasswordHashing } from "../src/features/sessions/passwords";
import { TEST_HASHING } from "./hashing";

process.env.COLONY_LOG_LEVEL ??= "silent";

// bun test reads no default timeout from bunfig.toml: a test or hook may take 20 s on a busy
// machine before it fails. Hooks that start processes or a browser set their own, longer ones.
setDefaultTimeout(20_000);

// Test people's passwords are hashed with argon2id's cheapest parameters; the production ones are
// checked in src/features/sessions/account.test.ts.
setPasswordHashing(TEST_HASHING);
