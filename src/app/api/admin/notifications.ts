// Admin API: email notifications about help requests (docs/notifications.md). Admins choose who is
// told of every crisis request and read the recent notifications with their state and failures;
// each staff member or admin sets their own choices (every new request, requests assigned to them).
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { emailStatus } from '../../../domain/notifications/email-status.ts';
import { Email, Notification, OwnSettings, Recipients } from '../../../domain/notifications/schemas.ts';
import {
  MAX_CRISIS_RECIPIENTS,
  NOTIFICATION_STATES,
  ownSettings,
  type PersonSettings,
  peopleSettings,
  recentNotifications,
  setCrisisRecipients,
  setOwnSettings,
} from '../../../domain/notifications/settings.ts';
import { callerOf, institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { institutionRoute } from '../route-helpers.ts';
import { errorResponses } from '../schemas.ts';

const tags = ['admin: help desk'];

/** Whether the process sends email, as every answer here says it. */
function emailOf(request: FastifyRequest) {
  const { enabled, from } = emailStatus(request.deps.config);
  return { enabled, from };
}

/** The recipients' answer: the email status and each person's settings. */
function recipients(request: FastifyRequest, people: PersonSettings[]) {
  return {
    email: emailOf(request),
    people: people.map((p) => ({
      id: p.person_id,
      name: p.name,
      email: p.email,
      roles: p.roles,
      crisis: p.crisis,
      any_new_request: p.any_new,
      assigned_to_me: p.assigned,
    })),
  };
}

/** The signed-in person's id, or undefined for the operator (who has no settings). */
function personOf(request: FastifyRequest): string | undefined {
  const caller = callerOf(request);
  return caller.kind === 'person' ? caller.personId : undefined;
}

export function adminNotificationRoutes(app: App): void {
  recipientRoutes(app);
  ownRoutes(app);
}

/** The admins' side: who is told of crisis requests, and the recent notifications. */
function recipientRoutes(app: App): void {
  app.get(
    '/admin/v1/institutions/:slug/notification-recipients',
    institutionRoute('admin', tags, {
      summary: 'Who is told of help requests by email',
      description:
        'Every current staff member and admin of the institution with what they are told: new crisis ' +
        'requests (chosen by admins), every new request and requests assigned to them (each person’s own ' +
        'choice). Emails carry a link to the request and never its text.',
      response: { 200: Recipients, ...errorResponses(401, 403, 404) },
    }),
    async (request) => recipients(request, await peopleSettings(request.deps.db, institutionOf(request).id)),
  );

  app.put(
    '/admin/v1/institutions/:slug/notification-recipients',
    institutionRoute('admin', tags, {
      summary: 'Choose who is told of every new crisis request',
      description:
        `Replaces the crisis recipients with these people (at most ${MAX_CRISIS_RECIPIENTS}; an empty list ` +
        'tells no one). Each must be a current staff member or admin of the institution, or the request is ' +
        '400 invalid_field naming it (`crisis_recipients[i]`) and nothing changes. People’s own choices are ' +
        'kept.',
      body: Type.Object({ crisis_recipients: Type.Array(Type.Unknown()) }),
      response: { 200: Recipients, ...errorResponses(400, 401, 403, 404) },
    }),
    async (request) =>
      recipients(
        request,
        await setCrisisRecipients(request.deps, institutionOf(request).id, request.body.crisis_recipients),
      ),
  );

  app.get(
    '/admin/v1/institutions/:slug/notifications',
    institutionRoute('admin', tags, {
      summary: 'The recent notification emails, with their state and failures',
      description:
        'Newest first, at most `limit` (default 50, up to 200), optionally in one state. Finished ' +
        'notifications are kept for 30 days.',
      querystring: Type.Object({
        state: Type.Optional(Type.String({ description: NOTIFICATION_STATES.join(', ') })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
      }),
      response: {
        200: Type.Object({ email: Email, items: Type.Array(Notification) }),
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (request) => {
      const rows = await recentNotifications(request.deps.db, institutionOf(request).id, request.query);
      return {
        email: emailOf(request),
        items: rows.map(({ person_id, person_name, person_email, ...row }) => ({
          ...row,
          person: { id: person_id, name: person_name, email: person_email },
        })),
      };
    },
  );
}

/** Each staff member's and admin's own choices. */
function ownRoutes(app: App): void {
  const own = '/admin/v1/institutions/:slug/me/notifications';
  app.get(
    own,
    institutionRoute('helpdesk', tags, {
      summary: 'What the signed-in person is told by email',
      description:
        'A staff member’s or admin’s own settings (409 not_a_person for the operator, who has none). `crisis` is ' +
        'chosen by the institution’s admins.',
      response: { 200: OwnSettings, ...errorResponses(401, 403, 404, 409) },
    }),
    async (request) => ({
      email: emailOf(request),
      ...(await ownSettings(request.deps.db, institutionOf(request).id, personOf(request))),
    }),
  );

  app.put(
    own,
    institutionRoute('helpdesk', tags, {
      summary: 'Choose what the signed-in person is told by email',
      description:
        'Every new request, and requests someone else assigns to them. The crisis setting is the admins’ ' +
        '(PUT …/notification-recipients).',
      body: Type.Object({ any_new_request: Type.Boolean(), assigned_to_me: Type.Boolean() }),
      response: { 200: OwnSettings, ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (request) => {
      const institutionId = institutionOf(request).id;
      const settings = await setOwnSettings(request.deps, institutionId, personOf(request), request.body);
      return { email: emailOf(request), ...settings };
    },
  );
}
