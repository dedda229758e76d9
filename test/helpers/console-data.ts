// An institution's data as its SIS would push it, through the real feeds: programs, campuses,
// terms, units and enrolments (POST /api/sis/enrolments), then a roster of students
// (POST /api/sis/sync) with named students to search for and numbered ones to page through.
import type { SeededTenant, TestContext } from './app.ts';
import { pushEnrolments, pushRoster } from './roster.ts';

export interface SeededData {
  /** Every student's email, in the listing's order (email, case-insensitive). */
  emails: string[];
}

export async function seedConsoleData(
  ctx: TestContext,
  tenant: SeededTenant,
  options: { numbered?: number } = {},
): Promise<SeededData> {
  const domain = `${tenant.slug}.example.edu`;
  const named = [
    { email: `ada@${domain}`, student_id_ext: 'S-ADA', first_name: 'Ada', last_name: 'Lovelace' },
    { email: `grace@${domain}`, student_id_ext: 'S-GRACE', first_name: 'Grace', last_name: 'Adams' },
    { email: `canada@${domain}`, student_id_ext: 'S-CAN', first_name: 'Cam', last_name: 'Canada' },
    // A name a spreadsheet would run as a formula: the export must show it as text.
    { email: `formula@${domain}`, student_id_ext: 'S-EQ', first_name: '=HYPERLINK("x")', last_name: 'Eq' },
  ].map((s, i) => ({
    ...s,
    program_code: i % 2 === 0 ? 'BSCI' : 'NURS',
    campus_name: i < 2 ? 'City' : 'Riverside',
  }));
  const numbered = Array.from({ length: options.numbered ?? 0 }, (_, i) => ({
    email: `n${String(i).padStart(4, '0')}@${domain}`,
    student_id_ext: `N-${i}`,
    first_name: 'Numbered',
    last_name: `Student ${i}`,
    program_code: 'BSCI',
    campus_name: 'North',
  }));
  const taxonomy = await pushEnrolments(ctx, tenant, {
    programs: [
      { program_code: 'BSCI', name: 'Bachelor of Science', coordinator_name: 'Dr Ada Moss' },
      { program_code: 'NURS', name: 'Bachelor of Nursing' },
    ],
    campuses: [{ name: 'City' }, { name: 'Riverside' }, { name: 'North' }, { name: 'Northern' }],
    terms: [
      { term_code: '2026-S1', name: 'Semester 1', start_date: '2026-02-23', end_date: '2026-06-19' },
      { term_code: '2026-S2', name: 'Semester 2', start_date: '2026-07-20', end_date: '2026-11-13' },
    ],
    units: [
      { unit_code: 'BIO101', name: 'Cells', program_code: 'BSCI', campus_name: 'City' },
      {
        unit_code: 'NURS101',
        name: 'Foundations of Nursing',
        program_code: 'NURS',
        campus_name: 'Riverside',
      },
    ],
  });
  if (taxonomy.statusCode !== 200) throw new Error(`taxonomy: ${taxonomy.statusCode} ${taxonomy.body}`);
  const students = [...named, ...numbered];
  for (let i = 0; i < students.length; i += 5000) {
    const push = await pushRoster(ctx, tenant, { students: students.slice(i, i + 5000) });
    if (push.statusCode !== 200 || push.json().errors.length)
      throw new Error(`roster: ${push.statusCode} ${push.body.slice(0, 500)}`);
  }
  const enrolments = await pushEnrolments(ctx, tenant, {
    enrolments: [
      { email: `ada@${domain}`, unit_code: 'BIO101', term_code: '2026-S1', status: 'enrolled' },
      { email: `grace@${domain}`, unit_code: 'NURS101', term_code: '2026-S1', status: 'withdrawn' },
      { email: `ada@${domain}`, unit_code: 'BIO101', term_code: '2026-S2', status: 'enrolled' },
    ],
  });
  if (enrolments.statusCode !== 200)
    throw new Error(`enrolments: ${enrolments.statusCode} ${enrolments.body}`);
  // A departure is a full sync's decision; the pages only read it.
  await ctx.db.query('UPDATE students SET departed_at = now() WHERE institution_id = $1 AND email = $2', [
    tenant.institutionId,
    `canada@${domain}`,
  ]);
  return { emails: students.map((s) => s.email).sort((a, b) => a.localeCompare(b)) };
}
