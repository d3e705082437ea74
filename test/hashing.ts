// The password hashing of test processes (test/preload.ts): argon2id with its cheapest parameters,
// well under a millisecond a hash instead of about 70 ms.
export const TEST_HASHING = { algorithm: "argon2id", memoryCost: 8, timeCost: 1 } as const;
