// A 100-update help-sync request end to end over HTTP (keep-alive client, real socket, JSON,
// authentication, validation, locking, writes of state, timeline and events), against a
// baseline measured in the same run: the same 100 status updates as one bare SQL UPDATE.
// Every row of every measured request changes its request (resolve with a note and an
// external_ref, then reopen), which is the most writing a request can do.
// Also measured: the isolation path, where the batch statement fails because of one request
// and the rows are rewritten request by request in savepoints.

import { randomBytes } from 'node:crypto';
import { Agent, request } from 'undici';
import { buildApp } from '../src/app/app.ts';
import { loadConfig } from '../src/config.ts';
import type { Db } from '../src/db/db.ts';
import { createHelpRequest } from '../src/domain/helpdesk/requests.ts';
import { createCohort, createInstitution } from '../src/domain/institutions/institutions.ts';
import { issueSyncSecret } from '../src/domain/secrets/help-sync-secrets.ts';
import { createRuntime } from '../src/runtime.ts';
import { openScratchPglite, openScratchPostgres } from '../test/helpers/scratch-db.ts';
import { percentile } from './bench-app.ts';
import type { BenchOptions } from './run.ts';
import { size } from './size.ts';

const UPDATES = size(100, 5);
const WARMUP = size(5, 1);
const ITERATIONS = size(40, 2, 'BENCH_ITERATIONS');
const BACKGROUND_INSTITUTIONS = size(50, 2);
const BACKGROUND_REQUESTS_EACH = 400;

async function openDb(kind: 'pglite' | 'postgres', databaseUrl?: string) {
  const db =
    kind === 'pglite'
      ? await openScratchPglite()
      : await openScratchPostgres(databaseUrl!, { prefix: 'bench' });
  return { db, drop: () => db.close() };
}

async function seedBackground(db: Db) {
  // Other institutions' requests, so indexes and the planner see a realistic table.
  await db.exec(`
    INSERT INTO institutions (slug, name)
      SELECT 'bg-' || g, 'Background ' || g FROM generate_series(1, ${BACKGROUND_INSTITUTIONS}) g;
    INSERT INTO cohorts (institution_id, name) SELECT id, 'c' FROM institutions WHERE slug LIKE 'bg-%';
    INSERT INTO students (institution_id, cohort_id, email, student_id_ext)
      SELECT c.institution_id, c.id, 's' || g || '@' || c.institution_id || '.edu', 'e' || g
      FROM cohorts c CROSS JOIN generate_series(1, 20) g
      WHERE c.institution_id IN (SELECT id FROM institutions WHERE slug LIKE 'bg-%');
    INSERT INTO help_requests (institution_id, student_id, priority)
      SELECT s.institution_id, s.id, (ARRAY['low','normal','high','crisis'])[1 + g % 4]
      FROM students s CROSS JOIN generate_series(1, ${BACKGROUND_REQUESTS_EACH / 20}) g;
    ANALYZE;`);
}

async function benchKind(kind: 'pglite' | 'postgres', databaseUrl?: string) {
  const { db, drop } = await openDb(kind, databaseUrl);
  const operatorToken = `ssp_op_${randomBytes(16).toString('hex')}`;
  const config = {
    ...loadConfig({ OPERATOR_TOKEN: operatorToken, LOG_LEVEL: 'silent' }),
    helpSyncRateLimitPerMinute: 1_000_000,
    runWorkers: false,
  };
  const runtime = createRuntime({ db, config });
  const app = await buildApp(runtime, {
    logger: false,
    rateLimitNameSpace: `bench-${randomBytes(4).toString('hex')}:`,
  });
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 4 });
  try {
    await seedBackground(db);
    const institution = await createInstitution(runtime.db, { slug: 'bench-help-sync', name: 'Bench' });
    const cohort = await createCohort(runtime.db, institution.id, { name: 'c', clock: 'cohort' });
    const { rows: students } = await db.query<{ id: string }>(
      `INSERT INTO students (institution_id, cohort_id, email, student_id_ext)
       SELECT $1, $2, 'b' || g || '@bench.edu', 'b' || g FROM generate_series(1, $3::int) g RETURNING id`,
      [institution.id, cohort.id, UPDATES],
    );
    const ids: string[] = [];
    for (const student of students) {
      ids.push(
        (
          await createHelpRequest(runtime, institution.id, {
            studentId: student.id,
            priority: 'normal',
          })
        ).id,
      );
    }
    const { secret } = await issueSyncSecret(runtime.db, { id: institution.id, slug: institution.slug });
    await db.exec('ANALYZE');
    const url = await app.listen({ host: '127.0.0.1', port: 0 });

    let round = 0;
    const body = () => {
      const resolve = round++ % 2 === 0;
      return JSON.stringify({
        institution: institution.slug,
        actor: 'Bench Desk',
        updates: ids.map((id, i) =>
          resolve
            ? {
                help_request_id: id,
                action: 'resolve',
                note: `Resolved in ticket ${i}`,
                external_ref: `BENCH-${i}-${round}`,
              }
            : { help_request_id: id, action: 'reopen', external_ref: `BENCH-${i}-${round}` },
        ),
      });
    };
    const call = async () => {
      const payload = body();
      const started = performance.now();
      const res = await request(`${url}/api/integrations/help-sync`, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
        body: payload,
      });
      const json = (await res.body.json()) as { results: { ok: boolean; changed?: boolean }[] };
      const elapsed = performance.now() - started;
      if (res.statusCode !== 200) throw new Error(`help-sync answered ${res.statusCode}`);
      return { elapsed, json };
    };

    const measure = async (fn: () => Promise<number>) => {
      for (let i = 0; i < WARMUP; i++) await fn();
      const times: number[] = [];
      for (let i = 0; i < ITERATIONS; i++) times.push(await fn());
      return { p50: percentile(times, 50), p95: percentile(times, 95) };
    };

    const endToEnd = await measure(async () => {
      const { elapsed, json } = await call();
      if (!json.results.every((r) => r.ok && r.changed)) throw new Error('a row did not change');
      return elapsed;
    });

    let baselineRound = 0;
    const baseline = await measure(async () => {
      const resolve = baselineRound++ % 2 === 0;
      const rows = ids.map((id, i) => ({
        id,
        status: resolve ? 'resolved' : 'in_progress',
        resolved_at: resolve ? new Date().toISOString() : null,
        external_ref: `BASE-${i}-${baselineRound}`,
      }));
      const started = performance.now();
      await db.query(
        `UPDATE help_requests h SET status = u.status, resolved_at = u.resolved_at, external_ref = u.external_ref,
           version = h.version + 1, updated_at = now()
         FROM jsonb_to_recordset($2::jsonb) AS u(id uuid, status text, resolved_at timestamptz, external_ref text)
         WHERE h.institution_id = $1 AND h.id = u.id`,
        [institution.id, JSON.stringify(rows)],
      );
      return performance.now() - started;
    });

    // Isolation path: one request's update fails, so the batch is rewritten request by request.
    await db.exec(`CREATE FUNCTION bench_fail() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.id = '${ids[Math.floor(ids.length / 2)]}' THEN RAISE EXCEPTION 'injected'; END IF; RETURN NEW; END $$;
      CREATE TRIGGER bench_fail BEFORE UPDATE ON help_requests FOR EACH ROW EXECUTE FUNCTION bench_fail();`);
    const isolation = await measure(async () => {
      const { elapsed, json } = await call();
      const failed = json.results.filter((r) => !r.ok).length;
      if (failed !== 1) throw new Error(`expected one failed row, got ${failed}`);
      return elapsed;
    });
    await db.exec('DROP TRIGGER bench_fail ON help_requests; DROP FUNCTION bench_fail();');

    const fmt = (n: number) => n.toFixed(1).padStart(7);
    process.stdout.write(
      `${kind}: ${UPDATES} updates per request, ${ITERATIONS} iterations, ` +
        `${BACKGROUND_INSTITUTIONS * BACKGROUND_REQUESTS_EACH} background requests\n` +
        `  help-sync over HTTP          p50 ${fmt(endToEnd.p50)} ms   p95 ${fmt(endToEnd.p95)} ms\n` +
        `  baseline: one bare UPDATE    p50 ${fmt(baseline.p50)} ms   p95 ${fmt(baseline.p95)} ms\n` +
        `  ratio (p50)                  ${(endToEnd.p50 / baseline.p50).toFixed(1)}x\n` +
        `  isolation path (1 failing)   p50 ${fmt(isolation.p50)} ms   p95 ${fmt(isolation.p95)} ms\n` +
        (kind === 'postgres' ? `  target p50 < 60 ms: ${endToEnd.p50 < 60 ? 'met' : 'NOT met'}\n` : ''),
    );
  } finally {
    await app.close();
    await agent.close();
    await runtime.close();
    await drop();
  }
}

export async function run(options: BenchOptions): Promise<void> {
  await benchKind('pglite');
  if (options.databaseUrl) await benchKind('postgres', options.databaseUrl);
}
