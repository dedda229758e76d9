// Response targets and escalation (admins; docs/console.md, "Inbox"): the first-response target
// of each priority, the escalation window of crisis requests, and the escalation list. The form
// is checked whole with the domain's own check (every field's problem at once, next to its field)
// and saved through the same domain function as the admin API's PUT.
import type { FastifyRequest } from 'fastify';
import { priorities } from '../../../domain/helpdesk/rules.ts';
import {
  checkSettings,
  escalationCandidates,
  inboxSettings,
  type SettingsInput,
  saveInboxSettings,
} from '../../../domain/inbox/settings.ts';
import type { App } from '../../types.ts';
import { ctx, institutionOf, PageParams } from './context.ts';
import { list, refusalOf, text } from './forms.ts';
import { priorityLabel } from './help-request-words.ts';

/** The form's fields as the domain takes them. */
function inputOf(body: unknown): SettingsInput & { escalation_list: string[] } {
  return {
    targets: Object.fromEntries(priorities.map((p) => [p, text(body, `target_${p}`)])),
    escalation_minutes: text(body, 'escalation_minutes'),
    escalation_list: list(body, 'escalation'),
  };
}

/** A domain field (`targets.crisis`, `escalation_list[0]`) as the form's input name. */
const fieldName = (field: string) =>
  field.startsWith('targets.')
    ? `target_${field.slice('targets.'.length)}`
    : field.startsWith('escalation_list')
      ? 'escalation'
      : field;

export function responseTargetRoutes(app: App): void {
  const pathOf = (request: FastifyRequest) => `/console/${institutionOf(request).slug}/response-targets`;

  const page = async (request: FastifyRequest, extra: Record<string, unknown> = {}, status = 200) => {
    const institutionId = institutionOf(request).id;
    const [settings, people] = await Promise.all([
      inboxSettings(request.deps.db, institutionId),
      escalationCandidates(request.deps.db, institutionId),
    ]);
    const values: Record<string, unknown> = {
      escalation_minutes: String(settings.escalation_minutes),
      escalation: people.filter((p) => p.escalation).map((p) => p.person_id),
      ...Object.fromEntries(priorities.map((p) => [`target_${p}`, String(settings.targets[p])])),
    };
    return ctx(request).render(
      'console/response-targets.eta',
      {
        title: 'Response targets and escalation',
        priorities: [...priorities].reverse().map((p) => ({ code: p, label: priorityLabel(p) })),
        people,
        values,
        errors: {},
        notice:
          (request.query as { done?: string }).done === 'saved'
            ? 'Saved: the inbox measures requests against these targets, and crisis requests escalate after this window, from now on.'
            : undefined,
        ...extra,
      },
      status,
    );
  };

  app.get(
    '/:slug/response-targets',
    { config: { access: 'admin' }, schema: { hide: true, params: PageParams } },
    async (request) => page(request),
  );

  app.post(
    '/:slug/response-targets',
    {
      config: {
        access: 'admin',
        formFields: [...priorities.map((p) => `target_${p}`), 'escalation_minutes', 'escalation'],
      },
      schema: { hide: true, params: PageParams },
    },
    async (request, reply) => {
      const input = inputOf(request.body);
      const values = {
        ...Object.fromEntries(priorities.map((p) => [`target_${p}`, input.targets[p]])),
        escalation_minutes: input.escalation_minutes,
        escalation: input.escalation_list,
      };
      const { problems } = checkSettings(input);
      if (problems.length) {
        const errors = Object.fromEntries(problems.map((p) => [fieldName(p.field), sentence(p.detail)]));
        return page(request, { values, errors }, 400);
      }
      try {
        await saveInboxSettings(request.deps, institutionOf(request).id, input);
      } catch (error) {
        const refused = refusalOf(error, []);
        return page(request, { values, ...refused }, refused.status);
      }
      return reply.redirect(`${pathOf(request)}?done=saved`, 303);
    },
  );
}

const sentence = (detail: string) => `${detail.charAt(0).toUpperCase()}${detail.slice(1)}.`;
