// An institution's webhook endpoints: adding one (its signing secret generated, stored encrypted
// and shown once), reading and listing them, changing their settings, disabling, deleting, and
// rotating the signing secret. Every URL passes the outbound URL guard when saved (and again on
// each delivery, in ./delivery/). Enabling and disabling also change the endpoint's pending
// deliveries, which ./delivery/state.ts writes.
import type { Queryable } from '../../db/db.ts';
import type { KeysetPage, Paged } from '../../db/keyset.ts';
import { ApiError } from '../../errors.ts';
import { uuidPattern } from '../../lib/ids.ts';
import { checkOutboundUrl } from '../../lib/outbound-url.ts';
import type { Deps } from '../deps.ts';
import { disableEndpointByAdministrator, setEndpointEnabled } from './delivery/state.ts';
import { disabledReason, validDescription, validEnabled, validTypes } from './endpoint-input.ts';
import {
  deleteEndpoint,
  insertEndpoint,
  replaceSecret,
  selectEndpoint,
  selectEndpointPage,
  selectEndpointSecret,
  updateEndpointFields,
} from './queries.ts';
import { ROTATION_WINDOW_MS } from './schedule.ts';
import type { NewWebhookEndpoint, RotatedSecret, WebhookEndpoint } from './schemas.ts';
import { generateWebhookSecret } from './signing.ts';

/**
 * What the webhook functions need at most: signing keys are stored encrypted with the keyring
 * (they must be usable again, so not hashed), and URLs are checked against the outbound policy.
 */
export type WebhooksDeps = Pick<Deps, 'db' | 'clock' | 'policy' | 'keyring'>;

/** An endpoint's settings as a caller sends them; each is judged by the rules of ./endpoint-input.ts. */
export interface EndpointInput {
  url?: unknown;
  event_types?: unknown;
  description?: unknown;
  enabled?: unknown;
}

export function endpointNotFound(): never {
  throw new ApiError('not_found', { detail: 'no such webhook endpoint' });
}

/** The URL as it will be called, if the outbound URL guard allows it. */
export async function checkedUrl({ policy }: Pick<WebhooksDeps, 'policy'>, url: unknown): Promise<string> {
  if (typeof url !== 'string' || url.length === 0 || url.length > 2048)
    throw new ApiError('invalid_field', {
      field: 'url',
      detail: 'url must be a string of 1 to 2048 characters',
    });
  const verdict = await checkOutboundUrl(url, policy);
  if (!verdict.ok) throw new ApiError('url_not_allowed', { field: 'url', detail: verdict.reason });
  return verdict.url.toString();
}

/** One endpoint of the institution (never its secret), or 404. */
export async function getEndpoint(
  { db, clock }: Pick<WebhooksDeps, 'db' | 'clock'>,
  institutionId: string,
  id: string,
  q: Queryable = db,
): Promise<WebhookEndpoint> {
  if (!uuidPattern.test(id)) endpointNotFound();
  return (await selectEndpoint(q, institutionId, id, clock.now())) ?? endpointNotFound();
}

/**
 * The endpoint's current signing secret, decrypted (it is kept encrypted because the service signs
 * with it). Only callers with Manage integrations reach this, and the request is audited.
 */
export async function revealSecret(
  deps: Pick<WebhooksDeps, 'db' | 'clock' | 'keyring'>,
  institutionId: string,
  id: string,
): Promise<{ secret: string }> {
  await getEndpoint(deps, institutionId, id);
  const encrypted = await selectEndpointSecret(deps.db, institutionId, id);
  if (encrypted === undefined) endpointNotFound();
  return { secret: deps.keyring.decrypt(encrypted) };
}

/** Adds an endpoint (enabled unless asked otherwise) with a new signing secret, returned this once. */
export async function createEndpoint(
  deps: WebhooksDeps,
  institutionId: string,
  input: EndpointInput,
): Promise<NewWebhookEndpoint> {
  const url = await checkedUrl(deps, input.url);
  const eventTypes = input.event_types === undefined ? [] : validTypes(input.event_types);
  const description = validDescription(input.description);
  const enabled = validEnabled(input.enabled) ?? true;
  const secret = generateWebhookSecret();
  const endpoint = await insertEndpoint(deps.db, institutionId, {
    url,
    description,
    eventTypes,
    enabled,
    secret: deps.keyring.encrypt(secret),
    now: deps.clock.now(),
  });
  return { ...endpoint, secret };
}

/** A page of the institution's endpoints, oldest first. */
export function listEndpoints(
  { db, clock }: Pick<WebhooksDeps, 'db' | 'clock'>,
  institutionId: string,
  page: KeysetPage,
): Promise<Paged<WebhookEndpoint>> {
  return selectEndpointPage(db, institutionId, page, clock.now());
}

/**
 * Changes the settings given (the others stay). Enabling clears the reason and the failure run;
 * disabling by hand records it and fails the pending deliveries (they can be replayed later).
 */
export async function updateEndpoint(
  deps: WebhooksDeps,
  institutionId: string,
  id: string,
  input: EndpointInput,
): Promise<WebhookEndpoint> {
  await getEndpoint(deps, institutionId, id);
  const url = input.url === undefined ? null : await checkedUrl(deps, input.url);
  const eventTypes = input.event_types === undefined ? null : validTypes(input.event_types);
  const description = input.description === undefined ? undefined : validDescription(input.description);
  const enabled = validEnabled(input.enabled);
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    if (enabled !== undefined) await setEndpointEnabled(tx, { institutionId, id }, enabled, now);
    const updated = await updateEndpointFields(tx, institutionId, id, { url, eventTypes, description, now });
    return updated ?? endpointNotFound();
  });
}

/** An administrator disables an endpoint, with a reason if they give one (at most 300 characters). */
export async function disableEndpoint(
  deps: Pick<WebhooksDeps, 'db' | 'clock'>,
  institutionId: string,
  id: string,
  reason?: unknown,
): Promise<WebhookEndpoint> {
  const why = disabledReason(reason);
  await getEndpoint(deps, institutionId, id);
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    await disableEndpointByAdministrator(tx, { institutionId, id }, why, now);
    return getEndpoint(deps, institutionId, id, tx);
  });
}

/** Deletes an endpoint with its delivery log. */
export async function removeEndpoint(db: Queryable, institutionId: string, id: string): Promise<void> {
  if (!uuidPattern.test(id) || !(await deleteEndpoint(db, institutionId, id))) endpointNotFound();
}

/** A new secret now; the previous one keeps signing beside it for ROTATION_WINDOW_MS. */
export async function rotateEndpointSecret(
  { db, clock, keyring }: Pick<WebhooksDeps, 'db' | 'clock' | 'keyring'>,
  institutionId: string,
  id: string,
): Promise<RotatedSecret> {
  if (!uuidPattern.test(id)) endpointNotFound();
  const secret = generateWebhookSecret();
  const now = clock.now();
  const expires = new Date(now.getTime() + ROTATION_WINDOW_MS);
  const replaced = await replaceSecret(db, institutionId, id, {
    secret: keyring.encrypt(secret),
    expires,
    now,
  });
  if (!replaced) endpointNotFound();
  return { secret, previous_secret_expires_at: expires };
}
