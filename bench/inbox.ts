// The inbox at 100,000 help requests: the console's inbox page and its live rows (what an open
// inbox fetches every 5 seconds), filtered by category and priority, and the search (a surname,
// an email, a SIS id, a word of the request's text, a rare and a common one) through the console
// and the admin API; then the same pages while 20 open inboxes refresh themselves (20 staff, one
// fetch each every 5 s), and the escalation worker's idle scan. Server time (app.inject: the
// session check, the domain's queries, the template). Target: p95 under 100 ms per page and per
// search. PGlite always; PostgreSQL as well when a database URL is given (BENCH_ONLY=postgres or
// pglite for one alone).

import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../src/db/db.ts';
import { escalateRound } from '../src/domain/inbox/escalation.ts';
import { startSession } from '../src/domain/people/sessions.ts';
import { type DatabaseKind, onEachDatabase, seedInstitution, startBenchApp } from './bench-app.ts';
import type { BenchOptions } from './run.ts';
import { size } from './size.ts';

const REQUESTS = size(100_000, 300, 'BENCH_INBOX_REQUESTS');
const ITERATIONS = size(40, 2, 'BENCH_ITERATIONS');
const POLLERS = size(20, 2);
const TARGET_MS = 100;

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];

/** One student per request, named and numbered; requests of every category and priority, one in 50 a crisis. */
export async function seed(db: Db, now: Date): Promise<{ institutionId: string; adminId: string }> {
  const one = async <T>(sql: string, params: unknown[] = []) => (await db.query<T>(sql, params)).rows[0];
  const { institutionId, cohortId } = await seedInstitution(db);
  await db.query(
    `INSERT INTO students (institution_id, cohort_id, email, student_id_ext, first_name, last_name)
     SELECT $1, $2, 'student' || g || '@bench.edu', 'S' || lpad(g::text, 7, '0'),
            (ARRAY['Ada','Grace','Alan','Edsger','Barbara','Mariana','Kwame','Li'])[1 + g % 8], 'Surname' || (g % 997)
     FROM generate_series(1, $3::int) g`,
    [institutionId, cohortId, REQUESTS],
  );
  const { id: adminId } = await one<{ id: string }>(
    `INSERT INTO people (institution_id, email, name, roles)
     VALUES ($1, 'ada.admin@bench.edu', 'Ada Admin', '{admin,staff}') RETURNING id`,
    [institutionId],
  );
  await db.query(
    `INSERT INTO people (institution_id, email, name, roles)
     SELECT $1, 'staff' || g || '@bench.edu', 'Staff ' || g, '{staff}' FROM generate_series(1, 30) g`,
    [institutionId],
  );
  // Newest a minute ago; a quarter resolved, a third assigned (the trigger stamps their first
  // response); ten kinds of text, one a request in 1,000 about a "scholarship appeal".
  await db.query(
    `INSERT INTO help_requests (institution_id, student_id, status, priority, category, summary,
                                assigned_person_id, resolved_at, version, created_at, updated_at)
     SELECT $1, s.id, (ARRAY['new','ack','in_progress','resolved'])[1 + g % 4],
            CASE WHEN g % 50 = 0 THEN 'crisis' ELSE (ARRAY['low','normal','high'])[1 + g % 3] END,
            (ARRAY['wellbeing','academic','financial','accommodation','other'])[1 + g % 5],
            CASE WHEN g % 1000 = 7 THEN 'Scholarship appeal deadline' ELSE
              (ARRAY['Timetable clash in week 3','Rent is overdue','Exam anxiety','Visa letter needed',
                     'Laptop stolen','Lost my student card','Feeling isolated','Extension request',
                     'Library fine','Placement worries'])[1 + g % 10] END,
            (SELECT p.id FROM people p WHERE p.institution_id = $1 AND g % 3 = 0 AND p.name = 'Staff ' || (1 + g % 30)),
            CASE WHEN g % 4 = 3 THEN $2::timestamptz - g * interval '1 minute' END,
            2, $2::timestamptz - g * interval '1 minute', $2::timestamptz - g * interval '1 minute'
     FROM (SELECT id, row_number() OVER (ORDER BY id) AS g FROM students WHERE institution_id = $1) s`,
    [institutionId, now.toISOString()],
  );
  return { institutionId, adminId };
}

async function benchKind(kind: DatabaseKind, databaseUrl?: string) {
  const { db, config, runtime, app, operatorToken, close } = await startBenchApp(kind, databaseUrl);
  await app.ready();
  try {
    const started = performance.now();
    const now = new Date();
    const s = await seed(db, now);
    // The crisis requests nobody picked up escalate now (a one-off of a few thousand rows), so the
    // banner is on every page, as it would be in an institution that let them wait.
    let escalated = 0;
    for (;;) {
      const round = await escalateRound({ db, now }, { limit: 500 });
      escalated += round.escalated;
      if (round.escalated < 500) break;
    }
    await db.exec('ANALYZE');
    process.stdout.write(
      `[${kind}] seeded ${REQUESTS} students and help requests, ${escalated} escalated, in ${Math.round(performance.now() - started)} ms\n`,
    );
    const session = await startSession(runtime, {
      kind: 'person',
      personId: s.adminId,
      institutionId: s.institutionId,
    });
    const cookie = `${config.publicBaseUrl.startsWith('https:') ? '__Host-ssp_session' : 'ssp_session'}=${session.token}`;
    const get = (url: string) =>
      url.startsWith('/admin/')
        ? app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${operatorToken}` } })
        : app.inject({ method: 'GET', url: `/console/bench${url}`, headers: { cookie } });

    const pages: [string, string][] = [
      ['inbox', '/inbox'],
      ['inbox rows (live refresh)', '/inbox/rows'],
      ['inbox rows: urgent, money', '/inbox/rows?priority=high&category=financial'],
      ['inbox: a category, unassigned', '/inbox?category=wellbeing&assigned=unassigned'],
      ['search: a surname', '/inbox?q=surname421'],
      ['search: an email', '/inbox?q=student4242%40bench'],
      ['search: a SIS id', '/inbox?q=S0042424'],
      ['search: a rare phrase', '/inbox?q=scholarship'],
      ['search: a common word (10%)', '/inbox?q=visa%20letter'],
      ['search rows: a surname', '/inbox/rows?q=surname421'],
      ['API search: a surname', '/admin/v1/institutions/bench/help-requests?q=surname421&order=crisis_first'],
      ['API search: a phrase', '/admin/v1/institutions/bench/help-requests?q=stolen&category=other'],
    ];
    const measure = async () => {
      const rows: { name: string; p50: number; p95: number }[] = [];
      for (const [name, path] of pages) {
        const warm = await get(path);
        if (warm.statusCode !== 200)
          throw new Error(`${name} (${path}): ${warm.statusCode} ${warm.body.slice(0, 300)}`);
        const times: number[] = [];
        for (let i = 0; i < ITERATIONS; i++) {
          // A turn of the event loop between requests, so the open inboxes' timers fire (PGlite
          // answers without I/O, and a loop of its requests would never let them).
          await new Promise((resolve) => setImmediate(resolve));
          const t = performance.now();
          await get(path);
          times.push(performance.now() - t);
        }
        rows.push({ name, p50: percentile(times, 50), p95: percentile(times, 95) });
      }
      return rows;
    };
    const print = (label: string, rows: { name: string; p50: number; p95: number }[]) => {
      const width = Math.max(...rows.map((r) => r.name.length));
      process.stdout.write(`[${kind}] ${label}\n[${kind}] ${'page'.padEnd(width)}   p50 ms   p95 ms\n`);
      for (const r of rows)
        process.stdout.write(
          `[${kind}] ${r.name.padEnd(width)} ${r.p50.toFixed(1).padStart(8)} ${r.p95.toFixed(1).padStart(8)}` +
            `${r.p95 > TARGET_MS ? `   OVER ${TARGET_MS} ms` : ''}\n`,
        );
    };
    print(`alone (${ITERATIONS} requests each)`, await measure());

    // Open inboxes refreshing themselves: POLLERS staff, one rows fetch each every 5 s, spread evenly.
    // Stopping wakes them, rather than waiting out their 5 s (10 s of a smoke run's 80).
    const polling = new AbortController();
    const pause = (ms: number) => sleep(ms, undefined, { signal: polling.signal }).catch(() => {});
    let polls = 0;
    const pollers = Array.from({ length: POLLERS }, async (_, i) => {
      await pause((5_000 / POLLERS) * i);
      while (!polling.signal.aborted) {
        await get('/inbox/rows');
        polls++;
        await pause(5_000);
      }
    });
    print(`while ${POLLERS} open inboxes refresh every 5 s`, await measure());
    polling.abort();
    await Promise.all(pollers);
    process.stdout.write(`[${kind}] (${polls} live refreshes served meanwhile)\n`);

    const scans: number[] = [];
    for (let i = 0; i < ITERATIONS; i++) {
      const t = performance.now();
      await escalateRound({ db, now: new Date() }, { limit: 20 });
      scans.push(performance.now() - t);
    }
    process.stdout.write(
      `[${kind}] escalation worker, idle round: p50 ${percentile(scans, 50).toFixed(1)} ms, p95 ${percentile(scans, 95).toFixed(1)} ms\n`,
    );
  } finally {
    await close();
  }
}

export function run(options: BenchOptions): Promise<void> {
  return onEachDatabase(options, benchKind, { headings: true });
}
