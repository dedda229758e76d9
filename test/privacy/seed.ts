// A student with data in every place the data map names, made through the real paths (the roster
// feed, the help-request API, a staff note, a webhook delivered to a real receiver that echoes the
// student's email, a dry run with row errors), for the export and erasure tests and the benchmark.
import { randomBytes } from 'node:crypto';
import { startSession } from '../../src/domain/people/sessions.ts';
import { raiseHelpRequest } from '../../src/domain/students/raise.ts';
import { type SeededTenant, seedTenant, type TestContext } from '../helpers/app.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { pushRoster } from '../helpers/roster.ts';
import { workerFor } from '../helpers/webhooks.ts';

export interface SeededStudent {
  id: string;
  email: string;
  ext: string;
  firstName: string;
  lastName: string;
  requestIds: string[];
}

/** Identifiers rare enough that finding one anywhere means it was left behind. */
export function distinctStudent() {
  const tag = randomBytes(4).toString('hex');
  return {
    email: `zelda.quintavalle.${tag}@example.edu`,
    ext: `SIS-ZQ-${tag}`,
    firstName: `Zelda${tag}`,
    lastName: `Quintavalle${tag}`,
  };
}

/** A new institution with one student who has data everywhere (seedStudentEverywhere). */
export async function tenantWithStudentEverywhere(
  ctx: TestContext,
): Promise<{ tenant: SeededTenant; s: SeededStudent }> {
  const tenant = await seedTenant(ctx);
  return { tenant, s: await seedStudentEverywhere(ctx, tenant) };
}

export async function seedStudentEverywhere(ctx: TestContext, tenant: SeededTenant): Promise<SeededStudent> {
  const who = distinctStudent();
  const row = {
    email: who.email,
    student_id_ext: who.ext,
    first_name: who.firstName,
    last_name: who.lastName,
  };
  const push = await pushRoster(ctx, tenant, { students: [row] });
  if (push.statusCode !== 200) throw new Error(`push: ${push.body}`);
  // A dry run whose row errors quote the email and the SIS id (push history keeps them).
  await pushRoster(ctx, tenant, {
    dry_run: true,
    students: [row, row, { email: `${who.email}x`, student_id_ext: '' }],
  });
  const found = await ctx.admin(
    'GET',
    `/admin/v1/institutions/${tenant.slug}/students?email=${encodeURIComponent(who.email)}`,
  );
  const id = found.json().items[0].id as string;

  const receiver = await startReceiver({ status: 500, body: `no such user ${who.email}` });
  const endpoint = await ctx.admin('POST', `/admin/v1/institutions/${tenant.slug}/webhook-endpoints`, {
    url: receiver.url,
  });
  if (endpoint.statusCode !== 201) throw new Error(`endpoint: ${endpoint.body}`);

  const name = `${who.firstName} ${who.lastName}`;
  const session = await startSession(ctx.deps, {
    kind: 'student',
    studentId: id,
    institutionId: tenant.institutionId,
  });
  void session;
  const raised = await raiseHelpRequest(
    ctx.deps,
    { institutionId: tenant.institutionId, studentId: id, actor: name },
    { description: `I am ${name} (${who.email}) and I cannot cope`, crisis: true, category: 'wellbeing' },
  );
  const requestId = (raised as { id: string }).id;
  const note = await ctx.admin(
    'POST',
    `/admin/v1/institutions/${tenant.slug}/help-requests/${requestId}/notes`,
    {
      staff: 'Dana Staff',
      note: `Called ${who.firstName} on ${who.ext}`,
    },
  );
  if (note.statusCode !== 200) throw new Error(`note: ${note.body}`);
  await workerFor(ctx, tenant, ctx.deps.clock).runOnce();
  await receiver.close();
  // A stored answer of the student's own retried POST (sealed, as the service stores them).
  await ctx.db.query(
    `INSERT INTO idempotency_keys (caller, key, request_hash, status, response, created_at) VALUES ($1, 'k1', 'h', 201, $2, now())`,
    [`student:${id}`, ctx.deps.keyring.encrypt(`{"email":"${who.email}"}`)],
  );
  // The OneRoster memory of a source (its key is the student's sourcedId) and an audit line whose
  // path names the student: written directly, as a pull and a student-scoped change would.
  const known = {
    version: 1,
    students: { [`${who.ext}-sourced`]: [who.ext, 'org-1'] },
    others: [],
    classes: {},
    courses: {},
  };
  await ctx.db.query(
    `INSERT INTO oneroster_sources (institution_id, base_url, token_url, client_id, client_secret_encrypted, cohort_id, known)
     VALUES ($1, 'https://sis.example.edu/ims', 'https://sis.example.edu/token', 'client', 'sealed', $2, $3)
     ON CONFLICT (institution_id) DO UPDATE SET known = jsonb_set(oneroster_sources.known, '{students}',
       (oneroster_sources.known -> 'students') || (EXCLUDED.known -> 'students'))`,
    [tenant.institutionId, tenant.cohortId, JSON.stringify(known)],
  );
  // The service-side memory (oneroster_memory) of the student's user and of an enrollment placing them.
  await ctx.db.query(
    `INSERT INTO oneroster_memory (institution_id, kind, sourced_id, data, student_id_ext) VALUES
       ($1, 'user', $2, jsonb_build_object('student', $3::text, 'orgs', '["org-1"]'::jsonb), $3),
       ($1, 'enrollment', $4, jsonb_build_object('student', $3::text, 'unit', 'U1', 'term', 'T1'), $3)`,
    [tenant.institutionId, `${who.ext}-sourced`, who.ext, `${who.ext}-enrollment`],
  );
  // And what a push still running staged about them.
  await ctx.db.query(
    `INSERT INTO oneroster_memory_staged (institution_id, push_id, kind, sourced_id, data, student_id_ext) VALUES
       ($1, gen_random_uuid(), 'enrollment', $2, jsonb_build_object('student', $3::text, 'unit', 'U2', 'term', 'T1'), $3)`,
    [tenant.institutionId, `${who.ext}-staged`, who.ext],
  );
  await ctx.db.query(
    `INSERT INTO admin_audit (institution_id, actor_kind, actor, action, target, status)
     VALUES ($1, 'operator', 'operator', 'PATCH /admin/v1/institutions/:slug/students/:id', $2, 200)`,
    [tenant.institutionId, `/admin/v1/institutions/${tenant.slug}/students/${id}`],
  );
  return { id, ...who, requestIds: [requestId] };
}
