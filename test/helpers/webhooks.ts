// Helpers for webhook tests: a controllable clock, events recorded as the help-request side
// records them, and delivery workers scoped to one institution.
import { randomUUID } from 'node:crypto';
import { type HelpRequestEventData, recordEvent } from '../../src/domain/events/record.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { createWebhookWorker, type WebhookWorkerOptions } from '../../src/workers/webhook-delivery.ts';
import type { SeededTenant, TestContext } from './app.ts';

export { type TestClock, testClock } from './clock.ts';

/** Records an event; a started service's own deps and institution serve as well as a test context's. */
export async function emitEvent(
  ctx: Pick<TestContext, 'db'>,
  tenant: Pick<SeededTenant, 'institutionId'>,
  clock: Clock,
  options: {
    type?: string;
    helpRequestId?: string;
    data?: Partial<HelpRequestEventData>;
  } = {},
): Promise<{ id: string; seq: number; data: HelpRequestEventData }> {
  const helpRequestId = options.helpRequestId ?? randomUUID();
  const now = clock.now();
  const data: HelpRequestEventData = {
    help_request_id: helpRequestId,
    status: 'new',
    priority: 'normal',
    assigned_to: null,
    assigned_to_id: null,
    origin: 'platform',
    actor: 'Sam Staff',
    version: 1,
    updated_at: now.toISOString(),
    ...options.data,
  };
  const event = await ctx.db.transaction((tx) =>
    recordEvent(tx, {
      institutionId: tenant.institutionId,
      type: options.type ?? 'help_request.created',
      helpRequestId,
      data,
      occurredAt: now,
    }),
  );
  return { ...event, data };
}

export function workerFor(
  ctx: TestContext,
  tenant: SeededTenant,
  clock: Clock,
  options: Partial<WebhookWorkerOptions> = {},
) {
  return createWebhookWorker({
    db: ctx.db,
    clock,
    policy: { allowLoopback: true },
    keyring: ctx.deps.keyring,
    institutionIds: [tenant.institutionId],
    attemptTimeoutMs: 5_000,
    random: () => 0.5,
    ...options,
  });
}

/** Runs `steps` with a worker of workerFor's making and closes the worker whatever happened. */
export async function withWorker<T>(
  ctx: TestContext,
  tenant: SeededTenant,
  clock: Clock,
  steps: (worker: ReturnType<typeof workerFor>) => Promise<T>,
  options: Partial<WebhookWorkerOptions> = {},
): Promise<T> {
  const worker = workerFor(ctx, tenant, clock, options);
  try {
    return await steps(worker);
  } finally {
    await worker.close();
  }
}

export async function addEndpoint(
  ctx: TestContext,
  tenant: SeededTenant,
  body: Record<string, unknown>,
): Promise<{ id: string; secret: string }> {
  const res = await ctx.admin('POST', `/admin/v1/institutions/${tenant.slug}/webhook-endpoints`, body);
  if (res.statusCode !== 201) throw new Error(`add endpoint: ${res.statusCode} ${res.body}`);
  return res.json();
}
