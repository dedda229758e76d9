// Errors of the database layer that callers branch on, in a module of their own so that a
// caller (the CLI) can recognise them without loading the database drivers.

/** The embedded database directory is held by another process. */
export class DatabaseInUseError extends Error {}
