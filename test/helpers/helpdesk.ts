import type { LightMyRequestResponse } from 'fastify';
import { type SeededTenant, seedTenant, type TestContext } from './app.ts';
import { insertStudents, numberedStudents } from './students.ts';

export interface HelpdeskTenant extends SeededTenant {
  syncSecret: string;
  studentIds: string[];
}

/** Inserts `count` numbered students into the tenant's cohort and returns their ids. */
export function seedStudents(ctx: TestContext, tenant: SeededTenant, count: number): Promise<string[]> {
  return insertStudents(ctx.db, tenant, numberedStudents(count));
}

/** A tenant with students and an issued help-sync secret. */
export async function seedHelpdesk(
  ctx: TestContext,
  options: { students?: number; syncSecret?: boolean } = {},
): Promise<HelpdeskTenant> {
  const tenant = await seedTenant(ctx);
  const studentIds = await seedStudents(ctx, tenant, options.students ?? 3);
  let syncSecret = '';
  if (options.syncSecret !== false) {
    const issued = await ctx.admin('POST', `/admin/v1/institutions/${tenant.slug}/help-sync-secret`);
    if (issued.statusCode !== 201) throw new Error(`seed sync secret: ${issued.statusCode} ${issued.body}`);
    syncSecret = issued.json().secret;
  }
  return { ...tenant, syncSecret, studentIds };
}

export interface HelpRequestJson {
  id: string;
  status: string;
  priority: string;
  external_ref: string | null;
  resolved_at: string | null;
  assigned_to: string | null;
  assigned_to_id: string | null;
  version: number;
  timeline?: TimelineJson[];
}

export interface TimelineJson {
  kind: string;
  action: string;
  actor: string | null;
  origin: string;
  note: string | null;
  from_status: string | null;
  to_status: string | null;
  external_ref: string | null;
  assigned_to: string | null;
  assigned_to_id: string | null;
  version: number;
}

export async function createHelpRequest(
  ctx: TestContext,
  tenant: HelpdeskTenant,
  body: { priority?: string; student?: number; summary?: string } = {},
): Promise<HelpRequestJson> {
  const res = await ctx.admin('POST', `/admin/v1/institutions/${tenant.slug}/help-requests`, {
    student_id: tenant.studentIds[body.student ?? 0],
    priority: body.priority ?? 'normal',
    summary: body.summary,
    actor: 'Student app',
  });
  if (res.statusCode !== 201) throw new Error(`create help request: ${res.statusCode} ${res.body}`);
  return res.json();
}

export async function readHelpRequest(
  ctx: TestContext,
  tenant: SeededTenant,
  id: string,
): Promise<HelpRequestJson & { timeline: TimelineJson[] }> {
  const res = await ctx.admin('GET', `/admin/v1/institutions/${tenant.slug}/help-requests/${id}`);
  if (res.statusCode !== 200) throw new Error(`read help request: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** Staff change through the admin API. */
export async function staff(
  ctx: TestContext,
  tenant: SeededTenant,
  id: string,
  change: 'status' | 'notes' | 'assignment',
  body: Record<string, unknown>,
): Promise<LightMyRequestResponse> {
  return ctx.admin(
    change === 'assignment' ? 'PUT' : 'POST',
    `/admin/v1/institutions/${tenant.slug}/help-requests/${id}/${change}`,
    { staff: 'Dana Staff', ...body },
  );
}

export function helpSync(
  ctx: TestContext,
  secret: string | undefined,
  body: unknown,
): Promise<LightMyRequestResponse> {
  return ctx.request({ method: 'POST', url: '/api/integrations/help-sync', body, token: secret });
}

export interface EventJson {
  id: string;
  seq: number;
  type: string;
  help_request_id: string;
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
}

export async function readEvents(ctx: TestContext, tenant: SeededTenant, afterSeq = 0): Promise<EventJson[]> {
  const res = await ctx.admin(
    'GET',
    `/admin/v1/institutions/${tenant.slug}/events?after_seq=${afterSeq}&limit=1000`,
  );
  if (res.statusCode !== 200) throw new Error(`read events: ${res.statusCode} ${res.body}`);
  return res.json().items;
}
