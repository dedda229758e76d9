// Erasure and retention at scale: erasing 1,000 students (each with a help request, its timeline
// and events) through the erasure the admin API runs, and one retention run over 100,000 resolved
// requests past their period (with their timelines and events), each timed; meanwhile a
// signed-in client asks for the inbox every 50 ms, and its response times during the work are
// printed beside those before it, to show that the server keeps answering. PGlite always;
// PostgreSQL as well when a database URL is given (BENCH_ONLY=postgres or pglite for one alone).
import type { Db } from '../src/db/db.ts';
import { startSession } from '../src/domain/people/sessions.ts';
import { eraseStudents } from '../src/domain/privacy/erasure.ts';
import { DEFAULT_RETENTION, runRetention } from '../src/domain/privacy/retention.ts';
import { type DatabaseKind, onEachDatabase, startBenchApp } from './bench-app.ts';
import type { BenchOptions } from './run.ts';
import { size } from './size.ts';

const ERASED = size(1_000, 20, 'BENCH_ERASED_STUDENTS');
const OLD_REQUESTS = size(100_000, 300, 'BENCH_RETENTION_REQUESTS');
/** How long the inbox is asked for with nothing else running (every 50 ms): the idle figures. */
const IDLE_MS = size(1500, 200);

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0;
};

/** Students, one request each (timeline of three, two events); plus old resolved requests. */
async function seed(db: Db) {
  const one = async <T>(sql: string, params: unknown[] = []) => (await db.query<T>(sql, params)).rows[0];
  const { id } = await one<{ id: string }>(
    "INSERT INTO institutions (slug, name) VALUES ('bench', 'Bench U') RETURNING id",
  );
  const { id: cohortId } = await one<{ id: string }>(
    "INSERT INTO cohorts (institution_id, name) VALUES ($1, 'All') RETURNING id",
    [id],
  );
  const total = ERASED + OLD_REQUESTS;
  await db.query(
    `INSERT INTO students (institution_id, cohort_id, email, student_id_ext, first_name, last_name)
     SELECT $1, $2, 'student' || g || '@bench.example.edu', 'ext-' || g, 'First' || g, 'Last' || g
     FROM generate_series(1, $3::int) g`,
    [id, cohortId, total],
  );
  // The first ERASED students' requests are open; the rest were resolved three years ago.
  await db.query(
    `INSERT INTO help_requests (institution_id, student_id, status, priority, summary, resolved_at, created_at)
     SELECT $1, s.id, CASE WHEN s.n <= $2 THEN 'new' ELSE 'resolved' END, 'normal', 'I need help, ' || s.email,
       CASE WHEN s.n <= $2 THEN NULL ELSE now() - interval '3 years' END, now() - interval '3 years'
     FROM (SELECT id, email, row_number() OVER (ORDER BY student_id_ext) AS n FROM students WHERE institution_id = $1) s`,
    [id, ERASED],
  );
  await db.query(
    `INSERT INTO help_request_timeline (institution_id, help_request_id, kind, action, actor, origin, note, version, created_at)
     SELECT $1, r.id, 'note', 'note', 'Dana Staff', 'platform', 'Spoke to the student ' || v, v, r.created_at
     FROM help_requests r, generate_series(1, 3) v WHERE r.institution_id = $1`,
    [id],
  );
  await db.query(
    `INSERT INTO events (institution_id, type, help_request_id, payload, occurred_at)
     SELECT $1, t, r.id, jsonb_build_object('type', t, 'data', jsonb_build_object('help_request_id', r.id, 'actor', 'First', 'note', 'words')), r.created_at
     FROM help_requests r, unnest(ARRAY['help_request.created', 'help_request.updated']) t WHERE r.institution_id = $1`,
    [id],
  );
  const { rows } = await db.query<{ id: string }>(
    `SELECT s.id FROM students s JOIN help_requests h ON h.student_id = s.id
     WHERE s.institution_id = $1 AND h.status = 'new'`,
    [id],
  );
  return { institutionId: id, erase: rows.map((r) => r.id) };
}

/** A client asking for the inbox every 50 ms until stopped: its response times. */
function poller(get: () => Promise<unknown>) {
  const times: number[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const start = performance.now();
      await get();
      times.push(performance.now() - start);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      return times;
    },
  };
}

const line = (kind: string, label: string, times: number[]) =>
  process.stdout.write(
    `[${kind}]   inbox while ${label}: ${times.length} answers, p50 ${pct(times, 50).toFixed(1)} ms, ` +
      `p95 ${pct(times, 95).toFixed(1)} ms, max ${Math.max(0, ...times).toFixed(1)} ms\n`,
  );

async function benchKind(kind: DatabaseKind, databaseUrl?: string) {
  const { db, runtime, app, close } = await startBenchApp(kind, databaseUrl);
  await app.ready();
  try {
    const seedStart = performance.now();
    const s = await seed(db);
    await db.exec('ANALYZE');
    process.stdout.write(
      `[${kind}] seeded ${ERASED + OLD_REQUESTS} students and requests in ${Math.round(performance.now() - seedStart)} ms\n`,
    );
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO people (institution_id, email, name, roles) VALUES ($1, 'admin@bench.example.edu', 'Admin', '{admin}') RETURNING id`,
      [s.institutionId],
    );
    const session = await startSession(runtime, {
      kind: 'person',
      personId: rows[0].id,
      institutionId: s.institutionId,
    });
    const get = () =>
      app.inject({
        method: 'GET',
        url: '/console/bench/inbox',
        headers: { cookie: `ssp_session=${session.token}` },
      });

    const quiet = poller(get);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    line(kind, 'idle', await quiet.stop());

    let busy = poller(get);
    let start = performance.now();
    const erased = await eraseStudents(runtime, s.institutionId, s.erase, {
      reason: 'request',
      erasedBy: 'bench',
    });
    const eraseMs = performance.now() - start;
    const duringErase = await busy.stop();
    process.stdout.write(
      `[${kind}] erased ${erased} students in ${Math.round(eraseMs)} ms (${(eraseMs / Math.max(1, erased)).toFixed(1)} ms a student)\n`,
    );
    line(kind, 'erasing', duringErase);

    busy = poller(get);
    start = performance.now();
    // The worker's batches and pauses, with no cap on their number: the whole backlog in one run.
    const removed = await runRetention(runtime, s.institutionId, {
      ...DEFAULT_RETENTION,
      maxBatches: 100_000,
    });
    const retentionMs = performance.now() - start;
    const duringRetention = await busy.stop();
    process.stdout.write(
      `[${kind}] retention erased ${removed.resolved_requests ?? 0} resolved requests in ${Math.round(retentionMs)} ms\n`,
    );
    line(kind, 'retention ran', duringRetention);
    if ((removed.resolved_requests ?? 0) !== OLD_REQUESTS)
      throw new Error(`retention removed ${JSON.stringify(removed)}`);
  } finally {
    await close();
  }
}

export function run(options: BenchOptions): Promise<void> {
  return onEachDatabase(options, benchKind);
}
