// PGlite on the calling thread (EMBEDDED_DATABASE_THREAD=off), in a module of its own so that
// the server's thread loads PGlite's modules (its Emscripten code, some megabytes of heap) only
// when it runs the database itself; on the database's own thread (the default) it never does.
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { WorkerOptions } from './pglite-protocol.ts';
import type { ThreadedPglite } from './pglite-thread.ts';

const INT8_OID = 20;

/** PGlite on the calling thread: every statement runs on it (EMBEDDED_DATABASE_THREAD=off). */
export async function openPgliteHere(options: WorkerOptions): Promise<ThreadedPglite> {
  const lite = await PGlite.create({
    dataDir: options.dataDir,
    loadDataDir: options.loadDataDir,
    parsers: { [INT8_OID]: (value: string) => Number(value) },
    // Trigram indexes serve the inbox's search (migration 0086), as on PostgreSQL.
    extensions: { pg_trgm },
    // On the command line, not in postgresql.conf, which PGlite would rewrite whole.
    startParams: [...PGlite.defaultStartParams, ...options.settings.flatMap((setting) => ['-c', setting])],
  });
  return { ...pgliteStatements(lite), dump: async () => (await lite.dumpDataDir('none')) as Blob };
}

/**
 * One PGlite instance behind the seam, on the calling thread: statements, transactions and close
 * (the benchmarks wrap their own instance with it, to measure what the service runs).
 */
export function pgliteStatements(lite: PGlite): Omit<ThreadedPglite, 'dump'> {
  // PGlite reports affectedRows 0 for a SELECT; pg's rowCount counts the rows returned there.
  const shape = <T>(result: { rows: unknown[]; affectedRows?: number }) => ({
    rows: result.rows as T[],
    rowCount: Math.max(result.affectedRows ?? 0, result.rows.length),
  });
  const here: ThreadedPglite['background'] = {
    query: async (sql, params) => shape(await lite.query(sql, params as unknown[])),
    transaction: (fn) =>
      lite.transaction((tx) =>
        fn({
          query: async (sql, params) => shape(await tx.query(sql, params as unknown[])),
          exec: async (sql) => {
            await tx.exec(sql);
          },
        }),
      ),
    async exec(sql) {
      await lite.exec(sql);
    },
  };
  return {
    ...here,
    // On one thread PGlite's own queue decides, first come first served: no priority here.
    background: here,
    close: () => lite.close(),
  };
}
