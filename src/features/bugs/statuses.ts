// The reporter-facing vocabulary of a bug report's status (docs/decisions.md §15). A module of its
// own, without imports, so that the command line's table of commands can name the values without
// loading the database layer.
export const BUG_STATUSES = ["open", "acknowledged", "fixed", "closed"] as const;
export type BugStatus = (typeof BUG_STATUSES)[number];
