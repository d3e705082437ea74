// Loaded before every test file (bunfig.toml).
process.env.COLONY_LOG_LEVEL ??= "silent";
