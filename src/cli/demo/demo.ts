// ssp demo: fills a running service (the embedded one of `npm start`) with a believable
// institution through the same HTTP API as every other client: programs, campuses, a term
// with its units, students and enrolments, pushes with row errors in the history, help
// requests in every state with staff notes, a webhook endpoint, the development identity
// provider and the people who sign in through it; then prints how to sign in as each role.
import type { AdminCall } from '../admin-client.ts';
import { CliError } from '../admin-client.ts';
import { EXIT } from '../exit-codes.ts';
import { BAD_ROSTER_ROWS, CAMPUSES, demoStudents, HELP_REQUESTS, PROGRAMS, TERMS, UNITS } from './data.ts';

export interface DemoOptions {
  /** The service, as this process reaches it. */
  url: string;
  /** The service as a browser reaches it (its PUBLIC_BASE_URL), when not `url`. */
  publicUrl?: string;
  slug: string;
  idp: string;
  students: number;
  /** An .ics the service can fetch (ssp demo --serve serves one on loopback): the term's key dates. */
  calendarUrl?: string;
  /** Where the demo webhook endpoint points (default: a public name where nothing listens). */
  webhookUrl?: string;
  log: (line: string) => void;
}

const DEMO_CLIENT_SECRET = 'ssp-dev-secret-development-only-never-in-production';

export async function fillDemo(admin: AdminCall, o: DemoOptions): Promise<void> {
  const inst = (rest: string) => `/admin/v1/institutions/${encodeURIComponent(o.slug)}${rest}`;
  await admin('POST', '/admin/v1/institutions', {
    slug: o.slug,
    name: 'Northbridge University (demo)',
    time_zone: 'Australia/Sydney',
  });
  const cohort = (await admin('POST', inst('/cohorts'), {
    name: '2027 intake',
    clock: 'cohort',
    start_date: '2027-02-22',
  })) as { id: string };
  const { secret } = (await admin('POST', inst('/roster-secret'))) as { secret: string };
  const feed = feedClient(o.url, secret);
  o.log(`institution ${o.slug}, cohort "2027 intake"`);

  await feed('/api/sis/enrolments', {
    institution: o.slug,
    programs: PROGRAMS,
    campuses: CAMPUSES,
    terms: TERMS,
    units: UNITS,
  });
  const students = demoStudents(o.students);
  await feed('/api/sis/sync', { cohort_id: cohort.id, students });
  await feed('/api/sis/sync', { cohort_id: cohort.id, students: [...BAD_ROSTER_ROWS, students[0]] });
  const enrolments = students.flatMap((s) =>
    UNITS.filter((u) => u.program_code === s.program_code).map((u) => ({
      email: s.email,
      unit_code: u.unit_code,
      term_code: '2027-S1',
      status: 'enrolled',
    })),
  );
  await feed('/api/sis/enrolments', {
    institution: o.slug,
    enrolments: [...enrolments, { email: students[0].email, unit_code: 'LAW999', term_code: '2027-S1' }],
  });
  o.log(
    `${students.length} students, ${enrolments.length} enrolments, pushes with row errors in the history`,
  );

  for (const request of HELP_REQUESTS) {
    const created = (await admin('POST', inst('/help-requests'), {
      student_email: students[request.student].email,
      priority: request.priority,
      summary: request.summary,
      actor: 'demo',
    })) as { id: string };
    for (const note of request.notes)
      await admin('POST', inst(`/help-requests/${created.id}/notes`), { note, staff: 'Sam Staff' });
    if (request.status !== 'new')
      await admin('POST', inst(`/help-requests/${created.id}/status`), {
        status: request.status,
        staff: 'Sam Staff',
      });
  }
  o.log(`${HELP_REQUESTS.length} help requests: new, acknowledged, in progress, resolved`);

  await optional(o, 'webhook endpoint', () =>
    admin('POST', inst('/webhook-endpoints'), {
      url: o.webhookUrl ?? 'https://hooks.example.org/ssp-demo',
      description: o.webhookUrl
        ? 'Demo endpoint (the demo accepts its deliveries)'
        : 'Demo endpoint (nothing listens)',
    }),
  );
  if (o.calendarUrl) {
    const url = o.calendarUrl;
    await optional(o, 'calendar feed "Semester 1, 2027 key dates"', () =>
      admin('POST', inst('/calendar-feeds'), { url, name: 'Semester 1, 2027 key dates' }),
    );
  }
  const idpSet = await optional(o, `identity provider ${o.idp} (start it with: npx ssp dev-idp)`, () =>
    admin('PUT', inst('/identity-provider'), {
      issuer: o.idp,
      client_id: 'ssp-dev',
      client_secret: DEMO_CLIENT_SECRET,
      email_domains: ['example.edu', 'student.example.edu'],
    }),
  );
  for (const [email, name, roles, permissions] of [
    ['admin@example.edu', 'Alex Admin', ['admin'], []],
    ['integrations@example.edu', 'Ira Integrations', ['admin'], ['manage_integrations']],
    ['staff@example.edu', 'Sam Staff', ['staff'], []],
  ] as const) {
    await admin('POST', inst('/people'), { email, name, roles, permissions });
  }
  o.log(signInText(o, idpSet));
}

/** A step that depends on the machine (DNS, a provider running): reported, not fatal. */
async function optional(o: DemoOptions, what: string, step: () => Promise<unknown>): Promise<boolean> {
  try {
    await step();
    o.log(what.replace(/ \(.*\)$/, ''));
    return true;
  } catch (error) {
    o.log(`skipped ${what}: ${(error as Error).message}`);
    return false;
  }
}

function feedClient(url: string, secret: string) {
  return async (path: string, body: unknown) => {
    const response = await fetch(new URL(path, url), {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok)
      throw new CliError(`${path}: ${response.status} ${await response.text()}`, EXIT.refused);
    return response.json();
  };
}

export function signInText(o: DemoOptions, idpSet: boolean): string {
  const signIn = new URL('/auth/sign-in', o.publicUrl ?? o.url).href;
  return [
    '',
    `Sign in at ${signIn}: find "Northbridge University (demo)", then choose a person at the development provider:`,
    '  Alex Admin (institution admin)            admin@example.edu',
    '  Ira Integrations (admin, integrations)    integrations@example.edu',
    '  Sam Staff (staff: the help-request inbox) staff@example.edu',
    '  Ana Lima, Ben Okafor (students)           their requests in the student app',
    ...(idpSet
      ? []
      : [
          'The identity provider was not set: run `npx ssp dev-idp`, and start the service with ALLOW_LOOPBACK_OUTBOUND=true, then run ssp demo again with another --slug.',
        ]),
    ...(o.publicUrl
      ? []
      : ['Operators sign in with the one-time link printed by the first start (or ssp operator-link).']),
  ].join('\n');
}
