// Admin API of the help desk: help requests (created for a student, listed with filters, read with
// their timeline) and the people they may be assigned to. The staff changes:
// ./help-request-changes.ts; the event log: ./events.ts; the help-sync secret: ./help-sync-secret.ts.
import { Type } from 'typebox';
import { keysetOrderOf, listFilterOf } from '../../../domain/helpdesk/listing.ts';
import { selectAssignees } from '../../../domain/helpdesk/queries.ts';
import { createHelpRequest, getHelpRequest, listHelpRequests } from '../../../domain/helpdesk/requests.ts';
import {
  AssigneeItem,
  HelpRequest,
  HelpRequestDetail,
  HelpRequestFilters,
  HelpRequestListItem,
  NewHelpRequestBody,
} from '../../../domain/helpdesk/schemas.ts';
import { recordRequestView } from '../../../domain/privacy/access-log.ts';
import { callerOf, institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { adminRoute, filteredListingSchema, institutionRoute } from '../route-helpers.ts';
import { errorResponses, pageOf, pageReply, SlugParams, Uuid } from '../schemas.ts';

export const helpdeskTags = ['admin: help desk'];
export const helpRequestsPath = '/admin/v1/institutions/:slug/help-requests';
export const HelpRequestParams = Type.Intersect([SlugParams, Type.Object({ id: Uuid('Help request id') })]);

const tags = helpdeskTags;
const base = helpRequestsPath;

export function adminHelpRequestRoutes(app: App): void {
  helpRequestRoutes(app);
  listingRoutes(app);
}

/** Creating a help request, and reading one. */
function helpRequestRoutes(app: App): void {
  app.post(
    base,
    institutionRoute('helpdesk', tags, {
      summary: 'Create a help request for a student',
      description:
        'Name the student by `student_id` or by `student_email` (case-insensitive), not both. Status starts ' +
        'at new. Records help_request.created, and help_request.crisis as well for a crisis priority, in the ' +
        'same transaction.',
      body: NewHelpRequestBody,
      response: { 201: HelpRequest, ...errorResponses(400, 401, 404) },
    }),
    async (request, reply) => {
      const body = request.body;
      return reply.status(201).send(
        await createHelpRequest(request.deps, institutionOf(request).id, {
          studentId: body.student_id,
          studentEmail: body.student_email,
          priority: body.priority,
          category: body.category,
          summary: body.summary,
          actor: body.actor,
        }),
      );
    },
  );

  app.get(
    `${base}/:id`,
    adminRoute('helpdesk', tags, {
      summary: 'Read a help request with its timeline (notes and audit entries, oldest first)',
      params: HelpRequestParams,
      response: { 200: HelpRequestDetail, ...errorResponses(400, 401, 404) },
    }),
    async (request) => {
      const institutionId = institutionOf(request).id;
      const { id } = request.params;
      // Who looked (docs/privacy.md): one INSERT beside the read.
      const [found] = await Promise.all([
        getHelpRequest(request.deps, institutionId, id),
        recordRequestView(request.deps, callerOf(request), institutionId, id, 'api'),
      ]);
      return found;
    },
  );
}

/** The listing, and the people a request may be assigned to. */
function listingRoutes(app: App): void {
  app.get(
    base,
    institutionRoute('helpdesk', tags, {
      summary: 'List help requests (newest first, or open crisis requests first)',
      description:
        'Every filter is exact over the whole listing and combines with the others and with either order; ' +
        'next_cursor pages through the result (pass the same filters and order with it). A cursor of one ' +
        'order is 400 invalid_cursor in the other. Bad filter values are 400 invalid_field naming the ' +
        'field (`assigned`, …), as every error names a field: by its name alone, wherever it was sent.',
      ...filteredListingSchema(HelpRequestListItem, HelpRequestFilters),
    }),
    async (request) => {
      const order = keysetOrderOf(request.query.order);
      const filter = listFilterOf(request.query, callerOf(request), pageOf(order, request.query));
      return pageReply(order, await listHelpRequests(request.deps, institutionOf(request).id, filter));
    },
  );

  app.get(
    `${base}/assignees`,
    institutionRoute('helpdesk', tags, {
      summary: 'Staff and admins a help request may be assigned to, by name',
      description:
        'The active (not removed) people of the institution holding the staff or admin role, ordered by ' +
        'name; the email tells apart people with the same name.',
      response: {
        200: Type.Object({ items: Type.Array(AssigneeItem) }),
        ...errorResponses(401, 404),
      },
    }),
    async (request) => ({ items: await selectAssignees(request.deps.db, institutionOf(request).id) }),
  );
}
