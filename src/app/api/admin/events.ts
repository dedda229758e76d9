// Admin API: the institution's event log (every help-request change, recorded in the transaction
// of the change; what webhook delivery reads) and one event's deliveries to each endpoint.
import { Type } from 'typebox';
import { readEventLog } from '../../../domain/helpdesk/event-log.ts';
import { EventLogPage } from '../../../domain/helpdesk/schemas.ts';
import { eventDeliveries } from '../../../domain/webhooks/deliveries.ts';
import { EventDeliveries } from '../../../domain/webhooks/schemas.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { adminRoute, institutionRoute } from '../route-helpers.ts';
import { errorResponses, SlugParams, Uuid } from '../schemas.ts';
import { helpdeskTags } from './help-requests.ts';
import { webhookTags } from './webhook-endpoints.ts';

export function adminEventRoutes(app: App): void {
  app.get(
    '/admin/v1/institutions/:slug/events',
    institutionRoute('integrations', helpdeskTags, {
      summary: "Read the institution's event log, oldest first",
      description:
        'Every help-request change records an event in the transaction of the change; this is the log ' +
        'webhook delivery reads. Page with after_seq = the last seq read.',
      querystring: Type.Object({
        after_seq: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
      }),
      response: { 200: EventLogPage, ...errorResponses(400, 401, 404) },
    }),
    async (request) =>
      readEventLog(request.deps.db, institutionOf(request).id, {
        afterSeq: request.query.after_seq ?? 0,
        limit: request.query.limit ?? 100,
      }),
  );

  app.get(
    '/admin/v1/institutions/:slug/events/:event_id/deliveries',
    adminRoute('integrations', webhookTags, {
      summary: 'One event and its deliveries to each endpoint, with every attempt',
      params: Type.Intersect([SlugParams, Type.Object({ event_id: Uuid() })]),
      response: { 200: EventDeliveries, ...errorResponses(401, 404) },
    }),
    async (request) => eventDeliveries(request.deps.db, institutionOf(request).id, request.params.event_id),
  );
}
