// The version of the server and its API (the package version). A module of its own so that
// `colony version` loads nothing else.
export const API_VERSION = "0.1.0";
