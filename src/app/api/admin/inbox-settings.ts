// Admin API: the inbox's response targets and crisis escalation (docs/console.md, "Inbox";
// docs/notifications.md, "Escalation"): the first-response target of each priority, the escalation
// window of crisis requests, and the escalation list. The console's Response targets page saves
// through the same domain function.
import { Type } from 'typebox';
import type { Db } from '../../../db/db.ts';
import { ESCALATION_MAX_MINUTES, TARGET_MAX_MINUTES } from '../../../domain/inbox/model.ts';
import { escalationCandidates, inboxSettings, saveInboxSettings } from '../../../domain/inbox/settings.ts';
import { institutionOf } from '../../context/request-context.ts';
import type { App } from '../../types.ts';
import { institutionRoute } from '../route-helpers.ts';
import { errorResponses, Uuid } from '../schemas.ts';

const Minutes = (max: number, description: string) => Type.Integer({ minimum: 1, maximum: max, description });

const Targets = Type.Object(
  {
    crisis: Minutes(TARGET_MAX_MINUTES, 'Minutes; default 15'),
    high: Minutes(TARGET_MAX_MINUTES, 'Minutes (shown to staff as Urgent); default 240 (4 hours)'),
    normal: Minutes(TARGET_MAX_MINUTES, 'Minutes; default 2880 (2 days)'),
    low: Minutes(TARGET_MAX_MINUTES, 'Minutes; default 7200 (5 days)'),
  },
  { description: 'The first-response target of each priority, in minutes (at most 30 days)' },
);

const Settings = Type.Object({
  targets: Targets,
  escalation_minutes: Minutes(
    ESCALATION_MAX_MINUTES,
    'A crisis request nobody acknowledges (assigns, replies to or moves out of new) within this many ' +
      'minutes escalates once; default 15, at most 1440',
  ),
  escalation_list: Type.Array(
    Type.Object({ id: Uuid('The person'), name: Type.String(), email: Type.String() }),
    {
      description:
        'Who is emailed when a crisis request escalates; when empty, every current admin of the institution is',
    },
  ),
});

/** The settings as the API shows them: the escalation list by person. */
async function current(db: Db, institutionId: string) {
  const [settings, people] = await Promise.all([
    inboxSettings(db, institutionId),
    escalationCandidates(db, institutionId),
  ]);
  return {
    ...settings,
    escalation_list: people
      .filter((p) => p.escalation)
      .map((p) => ({ id: p.person_id, name: p.name, email: p.email })),
  };
}

export function adminInboxSettingsRoutes(app: App): void {
  const tags = ['admin: help desk'];

  app.get(
    '/admin/v1/institutions/:slug/inbox-settings',
    institutionRoute('admin', tags, {
      summary: 'First-response targets and crisis escalation',
      description: 'The defaults until an admin saves them.',
      response: { 200: Settings, ...errorResponses(401, 403, 404) },
    }),
    async (request) => current(request.deps.db, institutionOf(request).id),
  );

  app.put(
    '/admin/v1/institutions/:slug/inbox-settings',
    institutionRoute('admin', tags, {
      summary: 'Set the first-response targets and crisis escalation',
      description:
        'Replaces the targets and the window. `escalation_list` (person ids of current staff and admins) ' +
        'replaces the list when given and leaves it as it is when left out. A bad value is 400 ' +
        'invalid_field naming it (`targets.crisis`, `escalation_list[2]`), with every problem in ' +
        '`problems`, and nothing changes.',
      body: Type.Object({
        targets: Type.Record(Type.String(), Type.Unknown()),
        escalation_minutes: Type.Unknown(),
        escalation_list: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 100 })),
      }),
      response: { 200: Settings, ...errorResponses(400, 401, 403, 404) },
    }),
    async (request) => {
      const institutionId = institutionOf(request).id;
      await saveInboxSettings(request.deps, institutionId, request.body);
      return current(request.deps.db, institutionId);
    },
  );
}
