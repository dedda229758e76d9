// Messages between the server's thread and the embedded database's (pglite-thread.ts and
// pglite-worker.js). Rows travel as the structured clone keeps them: Date, Uint8Array, numbers
// and parsed JSON arrive as PGlite made them.

export interface WorkerOptions {
  dataDir?: string;
  loadDataDir?: Blob;
  /** PostgreSQL settings (`name=value`) for PGlite's command line (db.ts, embeddedSettings). */
  settings: string[];
}

/**
 * `tx`: the id of the open transaction the statement belongs to (its `begin` request's id).
 * `background`: a statement or transaction of background work, which waits while requests'
 * statements wait (pglite-worker.js); a statement of an open transaction is never queued.
 */
export type Request =
  | { id: number; op: 'query'; sql: string; params?: unknown[]; tx?: number; background?: boolean }
  | { id: number; op: 'exec'; sql: string; tx?: number; background?: boolean }
  | { id: number; op: 'begin'; background?: boolean }
  | { id: number; op: 'end'; tx: number; commit: boolean }
  | { id: number; op: 'dump' }
  | { id: number; op: 'close' };

/** A database error's message and its own fields (code, constraint, detail, …). */
export interface SerializedError {
  message: string;
  name: string;
  stack?: string;
  fields: Record<string, string | number | boolean>;
}

/** Id 0 answers the start (ready, or why not). */
export type Reply = { id: number; ok: true; result?: unknown } | { id: number; error: SerializedError };
