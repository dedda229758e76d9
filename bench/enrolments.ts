// Benchmark: one POST /api/sis/enrolments request of 5000 enrolments (students, units and
// terms existing) end to end over HTTP, against the best single SQL statement for the same
// rows (one INSERT ... SELECT joining the rows to students, units and terms, ON CONFLICT DO
// UPDATE) through the same driver, in one run. PGlite always; PostgreSQL when DATABASE_URL
// is set (in a scratch database, dropped afterwards).
//
//   npm run bench -- enrolments

import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import type { Db } from '../src/db/db.ts';
import { issueRosterSecret } from '../src/domain/secrets/roster-secrets.ts';
import { startFeedApp } from './bench-app.ts';
import type { BenchOptions } from './run.ts';
import { size } from './size.ts';

const ROWS = size(5000, 50);
const RUNS = size(7, 1);
const UNITS = 100;
const TERMS = 4;
const BACKGROUND_INSTITUTIONS = size(20, 1);

interface Tenant {
  id: string;
  slug: string;
  cohortId: string;
}

/** An institution with students, units, terms; `enrolled` adds one enrolment per student. */
async function seed(db: Db, slug: string, enrolled: boolean): Promise<Tenant> {
  const { rows } = await db.query<{ id: string }>(
    'INSERT INTO institutions (slug, name) VALUES ($1, $1) RETURNING id',
    [slug],
  );
  const id = rows[0].id;
  const cohort = await db.query<{ id: string }>(
    'INSERT INTO cohorts (institution_id, name) VALUES ($1, $2) RETURNING id',
    [id, 'Bench cohort'],
  );
  const cohortId = cohort.rows[0].id;
  await db.query(
    `INSERT INTO students (institution_id, cohort_id, email, student_id_ext)
     SELECT $1, $2, 'student' || g || '@example.edu', 'S' || g FROM generate_series(1, $3::int) g`,
    [id, cohortId, ROWS],
  );
  await db.query(
    `INSERT INTO units (institution_id, code, name) SELECT $1, 'UNIT' || g, 'Unit ' || g FROM generate_series(1, $2::int) g`,
    [id, UNITS],
  );
  await db.query(
    `INSERT INTO terms (institution_id, code, start_date, end_date)
     SELECT $1, '2026-T' || g, date '2026-01-01' + 90 * g, date '2026-01-01' + 90 * g + 80 FROM generate_series(1, $2::int) g`,
    [id, TERMS],
  );
  if (enrolled) {
    await db.query(
      `INSERT INTO enrolments (institution_id, student_id, unit_id, term_id, status)
       SELECT s.institution_id, s.id, u.id, t.id, 'enrolled'
       FROM students s
       JOIN units u ON u.institution_id = s.institution_id AND u.code = 'UNIT' || (1 + (substr(s.student_id_ext, 2)::int % $2))
       JOIN terms t ON t.institution_id = s.institution_id AND t.code = '2026-T' || (1 + (substr(s.student_id_ext, 2)::int % $3))
       WHERE s.institution_id = $1`,
      [id, UNITS, TERMS],
    );
  }
  return { id, slug, cohortId };
}

/** The page: student i in unit i % UNITS and term i % TERMS, half by email and half by student_id_ext. */
function enrolmentRows(status: string) {
  return Array.from({ length: ROWS }, (_, n) => {
    const i = n + 1;
    const student = i % 2 === 0 ? { email: `Student${i}@example.edu` } : { student_id_ext: `S${i}` };
    return { ...student, unit_code: `unit${1 + (i % UNITS)}`, term_code: `2026-t${1 + (i % TERMS)}`, status };
  });
}

const FLOOR_SQL = `
  INSERT INTO enrolments (institution_id, student_id, unit_id, term_id, status)
  SELECT $1, coalesce(se.id, sx.id), u.id, t.id, coalesce(lower(r.status), 'enrolled')
  FROM jsonb_to_recordset($2::jsonb) AS r(email text, student_id_ext text, unit_code text, term_code text, status text)
  LEFT JOIN students se ON se.institution_id = $1 AND lower(se.email) = lower(r.email)
  LEFT JOIN students sx ON sx.institution_id = $1 AND sx.student_id_ext = r.student_id_ext
  JOIN units u ON u.institution_id = $1 AND lower(u.code) = lower(r.unit_code)
  JOIN terms t ON t.institution_id = $1 AND lower(t.code) = lower(r.term_code)
  WHERE coalesce(se.id, sx.id) IS NOT NULL
  ON CONFLICT (student_id, unit_id, term_id)
  DO UPDATE SET status = EXCLUDED.status, updated_at = now()
  WHERE enrolments.status IS DISTINCT FROM EXCLUDED.status`;

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

async function time(fn: () => Promise<void>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function benchOne(kind: 'pglite' | 'postgres', databaseUrl?: string): Promise<void> {
  const { db, runtime, app } = await startFeedApp(kind, databaseUrl, 'bench_enrol', {
    enrolmentsRateLimitPerMinute: 1_000_000,
  });
  const agent = new Agent({ keepAliveTimeout: 30_000 });
  try {
    for (let i = 0; i < BACKGROUND_INSTITUTIONS; i++) await seed(db, `background-${i}`, true);
    const tenant = await seed(db, 'bench-target', false);
    if (kind === 'postgres') await db.query('ANALYZE');
    const { secret } = await issueRosterSecret(runtime.db, { id: tenant.id, slug: tenant.slug });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;

    const post = async (body: string) => {
      const res = await request(`http://127.0.0.1:${port}/api/sis/enrolments`, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
        body,
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${text.slice(0, 300)}`);
      const report = JSON.parse(text).sections.enrolments;
      if (report.rejected !== 0) throw new Error(`rows rejected: ${text.slice(0, 300)}`);
    };
    const clear = () => db.query('DELETE FROM enrolments WHERE institution_id = $1', [tenant.id]);
    const enrolledRows = enrolmentRows('enrolled');
    const enrolledBody = JSON.stringify({ institution: tenant.slug, enrolments: enrolledRows });
    const enrolledJson = JSON.stringify(enrolledRows);
    const completedRows = enrolmentRows('completed');
    const completedBody = JSON.stringify({ institution: tenant.slug, enrolments: completedRows });
    const completedJson = JSON.stringify(completedRows);
    const floor = (json: string) => db.query(FLOOR_SQL, [tenant.id, json]).then(() => undefined);

    // Warm-up of both paths (plans, JIT of the JavaScript, connections).
    await clear();
    await post(enrolledBody);
    await clear();
    await floor(enrolledJson);

    const scenarios: { name: string; prepare: () => Promise<unknown>; http: string; json: string }[] = [
      { name: 'all new', prepare: clear, http: enrolledBody, json: enrolledJson },
      { name: 'identical again', prepare: async () => {}, http: enrolledBody, json: enrolledJson },
      {
        name: 'every status changed',
        prepare: async () => {
          await clear();
          await floor(enrolledJson);
        },
        http: completedBody,
        json: completedJson,
      },
    ];
    process.stdout.write(
      `\n[${kind}] ${ROWS} enrolments, ${(enrolledBody.length / 1024).toFixed(0)} KiB, ` +
        `${BACKGROUND_INSTITUTIONS} other institutions with ${ROWS} enrolments each, median of ${RUNS}\n`,
    );
    process.stdout.write('scenario               http ms   floor ms   ratio   rows/s (http)\n');
    for (const scenario of scenarios) {
      const http: number[] = [];
      const sql: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        // Interleaved, so drift of the machine affects both alike.
        if (scenario.name === 'identical again') await floor(scenario.json);
        else await scenario.prepare();
        http.push(await time(() => post(scenario.http)));
        if (scenario.name === 'identical again') await floor(scenario.json);
        else await scenario.prepare();
        sql.push(await time(() => floor(scenario.json)));
      }
      const h = median(http);
      const f = median(sql);
      process.stdout.write(
        `${scenario.name.padEnd(22)} ${h.toFixed(1).padStart(7)}   ${f.toFixed(1).padStart(8)}   ${(h / f).toFixed(2).padStart(5)}   ${Math.round((ROWS / h) * 1000)}\n`,
      );
    }
  } finally {
    await app.close();
    await agent.close();
    await runtime.close();
    await db.close();
  }
}

export async function run(options: BenchOptions): Promise<void> {
  await benchOne('pglite');
  if (options.databaseUrl) await benchOne('postgres', options.databaseUrl);
  else process.stdout.write('\n(set DATABASE_URL to measure PostgreSQL as well)\n');
}
