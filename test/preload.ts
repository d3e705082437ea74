// Loaded before every test file (bunfig.toml). The suite's timeout is on the command line of
// `bun run test` (package.json): bun test reads it from nowhere else, and a setDefaultTimeout here
// would hold for the first file of each process only.
import { setPasswordHashing } from "../src/features/sessions/passwords";
import { TEST_HASHING } from "./hashing";

process.env.COLONY_LOG_LEVEL ??= "silent";

// Test people's passwords are hashed with argon2id's cheapest parameters; the production ones are
// checked in src/features/sessions/account.test.ts.
setPasswordHashing(TEST_HASHING);
