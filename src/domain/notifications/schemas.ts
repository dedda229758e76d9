// The shapes of the notification settings and the outbox as the admin API answers them: whether
// email is on, the recipients with what they are told, a person's own choices, a notification.
// The route file (src/app/api/admin/notifications.ts) uses them as its response schemas.
import { Type } from 'typebox';
import { DateTime, Nullable, StringEnum, Uuid } from '../../lib/schema.ts';
import { NOTIFICATION_STATES } from './settings.ts';

export const Email = Type.Object(
  {
    enabled: Type.Boolean({
      description:
        'Whether notification emails are sent (the service has SMTP_URL). When false, notifications are ' +
        'still recorded as they happen but marked skipped instead of sent.',
    }),
    from: Nullable(Type.String({ description: 'The From address of the emails (SMTP_FROM), when enabled' })),
  },
  { description: 'Whether the service sends email' },
);

export const Recipient = Type.Object({
  id: Uuid('The person'),
  name: Type.String(),
  email: Type.String(),
  roles: Type.Array(Type.String()),
  crisis: Type.Boolean({ description: 'Told of every new crisis request (chosen by admins)' }),
  any_new_request: Type.Boolean({ description: 'Told of every new request (their own choice)' }),
  assigned_to_me: Type.Boolean({ description: 'Told when a request is assigned to them (their own choice)' }),
});

export const Recipients = Type.Object({ email: Email, people: Type.Array(Recipient) });

export const OwnSettings = Type.Object({
  email: Email,
  crisis: Type.Boolean({
    description: 'Told of every new crisis request: chosen by the institution’s admins',
  }),
  any_new_request: Type.Boolean({ description: 'Told of every new help request' }),
  assigned_to_me: Type.Boolean({ description: 'Told when someone else assigns a request to this person' }),
});

export const Notification = Type.Object({
  id: Uuid(),
  help_request_id: Uuid(),
  person: Type.Object({ id: Uuid(), name: Type.String(), email: Type.String() }),
  reason: StringEnum(
    ['crisis', 'new', 'assigned', 'student_message', 'escalation'],
    'Why the person is told: a new crisis request, a new request, an assignment, the student writing ' +
      'on a request (student_message), or a crisis request nobody picked up within the escalation ' +
      'window (escalation). Open-ended: ignore reasons you do not know',
  ),
  state: StringEnum(
    NOTIFICATION_STATES,
    'pending (to be sent or retried), sent, failed (gave up), skipped (not sent)',
  ),
  attempts: Type.Integer({ description: 'Attempts to send so far' }),
  next_attempt_at: Nullable(DateTime('When a pending notification is next tried')),
  last_error: Nullable(
    Type.String({ description: 'Why the last attempt failed, or why it was failed or skipped' }),
  ),
  created_at: DateTime('When it was queued (with the change it is about)'),
  finished_at: Nullable(DateTime('When it was sent, failed or skipped')),
});
