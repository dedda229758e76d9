// The event catalogue: every event type an endpoint may receive, what it means, the JSON Schema
// of its body and an example body, as a webhook portal shows them. The schema is the one source
// of what a body holds (docs/webhooks.md describes the same); the examples are checked against it
// by the tests, so the catalogue cannot drift from what is sent (events/record.ts builds bodies).
import { type Static, Type } from 'typebox';
import { Nullable } from '../../lib/schema.ts';
import { EVENT_TYPES, type EventType, TEST_EVENT_TYPE } from './schemas.ts';

export const HelpRequestEventBody = Type.Object(
  {
    type: Type.String({ description: 'The event type' }),
    timestamp: Type.String({ format: 'date-time', description: 'When the event happened (UTC)' }),
    data: Type.Object({
      help_request_id: Type.String({ format: 'uuid' }),
      status: Type.String({ enum: ['new', 'ack', 'in_progress', 'resolved'] }),
      priority: Type.String({ enum: ['low', 'normal', 'high', 'crisis'] }),
      external_ref: Type.Optional(Type.String({ description: 'Present once the help desk has set it' })),
      assigned_to: Nullable(Type.String({ description: "The assigned person's name at the time" })),
      assigned_to_id: Nullable(Type.String({ format: 'uuid' })),
      origin: Type.String({ enum: ['platform', 'integration'] }),
      actor: Nullable(
        Type.String({ description: 'Who made the change (a staff member or the integration)' }),
      ),
      version: Type.Integer({
        description: "Increases with every change: drop an event older than one you've applied",
      }),
      updated_at: Type.String({ format: 'date-time' }),
    }),
  },
  {
    description:
      'The body of every help_request.* event; headers follow Standard Webhooks (docs/webhooks.md)',
  },
);
export type HelpRequestEventBody = Static<typeof HelpRequestEventBody>;

/** The body of help_request.reply and help_request.student_message: the request's data and the message. */
export const MessageEventBody = Type.Object(
  {
    type: HelpRequestEventBody.properties.type,
    timestamp: HelpRequestEventBody.properties.timestamp,
    data: Type.Object({
      ...HelpRequestEventBody.properties.data.properties,
      message: Type.Object({
        id: Type.String({ format: 'uuid', description: 'The timeline entry holding the message' }),
        kind: Type.String({
          enum: ['reply', 'student_message'],
          description:
            "reply: to the student, from staff or the help desk; student_message: the student's answer",
        }),
        text: Type.String({ description: 'The words, as written (plain text)' }),
      }),
    }),
  },
  {
    description:
      'A message of the conversation, with its words: sent only to endpoints that list this type (docs/webhooks.md)',
  },
);

export const StudentErasedEventBody = Type.Object(
  {
    type: Type.Literal('student.erased'),
    timestamp: Type.String({ format: 'date-time' }),
    data: Type.Object({
      erasure_id: Type.String({ format: 'uuid', description: 'The erasure, as the admin audit knows it' }),
      help_request_ids: Type.Array(Type.String({ format: 'uuid' }), {
        description:
          "The student's help requests: erase what you hold about each (they stay here, without their words)",
      }),
      erased_at: Type.String({ format: 'date-time' }),
    }),
  },
  { description: 'The body of student.erased: names no person, only the requests to erase' },
);

export const TestEventBody = Type.Object({
  type: Type.Literal(TEST_EVENT_TYPE),
  timestamp: Type.String({ format: 'date-time' }),
  data: Type.Object({ endpoint_id: Type.String({ format: 'uuid' }), message: Type.String() }),
});

export interface CatalogueEntry {
  type: EventType | typeof TEST_EVENT_TYPE;
  description: string;
  schema: unknown;
  example: unknown;
}

const example = (type: string, data: Partial<HelpRequestEventBody['data']>) => ({
  type,
  timestamp: '2026-09-14T09:30:00.000Z',
  data: {
    help_request_id: '3f6c2a1e-8b4d-4c7a-9e21-5d0b7f3a9c10',
    status: 'new',
    priority: 'normal',
    assigned_to: null,
    assigned_to_id: null,
    origin: 'platform',
    actor: 'Student app',
    version: 1,
    updated_at: '2026-09-14T09:30:00.000Z',
    ...data,
  },
});

const descriptions: Record<EventType, string> = {
  'student.erased':
    "A student was erased (GDPR art. 17): erase what you hold about the listed help requests. Their earlier events' payloads were cut to non-personal fields.",
  'help_request.created': 'A student (or the API) raised a help request.',
  'help_request.crisis':
    'A crisis request was raised: sent beside help_request.created, so an urgent-only receiver can subscribe to it alone.',
  'help_request.updated':
    'A request changed: its status, assignment, a note, a reply or an answer (without their words), by staff on the platform or by the help-desk sync (origin).',
  'help_request.reply':
    'Staff (origin platform) or the help desk (origin integration) replied to the student; data.message has the words. Sent only to endpoints that list this type.',
  'help_request.student_message':
    "The student answered on their request; data.message has the student's words. Sent only to endpoints that list this type.",
};

const examples: Record<EventType, unknown> = {
  'student.erased': {
    type: 'student.erased',
    timestamp: '2026-09-20T08:00:00.000Z',
    data: {
      erasure_id: '7d3e1c9a-2b4f-4e6d-8a1c-0f9e8d7c6b5a',
      help_request_ids: ['3f6c2a1e-8b4d-4c7a-9e21-5d0b7f3a9c10'],
      erased_at: '2026-09-20T08:00:00.000Z',
    },
  },
  'help_request.created': example('help_request.created', {}),
  'help_request.crisis': example('help_request.crisis', { priority: 'crisis' }),
  'help_request.updated': example('help_request.updated', {
    status: 'in_progress',
    assigned_to: 'Kai Lee',
    assigned_to_id: '9a1d5e2b-7c3f-4e8a-b6d4-2f0c1e9b8a77',
    actor: 'Kai Lee',
    version: 3,
    updated_at: '2026-09-14T10:05:00.000Z',
  }),
  'help_request.reply': {
    ...example('help_request.reply', {
      status: 'in_progress',
      actor: 'Kai Lee',
      version: 4,
      updated_at: '2026-09-14T10:07:00.000Z',
    }),
  },
  'help_request.student_message': example('help_request.student_message', {
    status: 'in_progress',
    actor: 'Sam Student',
    version: 5,
    updated_at: '2026-09-14T10:20:00.000Z',
  }),
};
examples['help_request.reply'] = withMessage(examples['help_request.reply'], {
  id: '7e2b9c41-0d5a-4f3e-8b1c-6a9d2e4f0b13',
  kind: 'reply',
  text: 'Thank you for writing. I have booked you a call with a counsellor tomorrow at 10:00.',
});
examples['help_request.student_message'] = withMessage(examples['help_request.student_message'], {
  id: '1c8f3a52-9e6b-4d07-a2f4-3b5c7d9e1a20',
  kind: 'student_message',
  text: 'Thank you, 10:00 works for me.',
});

function withMessage(body: unknown, message: { id: string; kind: string; text: string }) {
  const event = body as { data: Record<string, unknown> };
  return { ...event, data: { ...event.data, message } };
}

/** Every event type with its meaning, its body's schema and an example body. */
export function eventCatalogue(): CatalogueEntry[] {
  const entries: CatalogueEntry[] = EVENT_TYPES.map((type) => ({
    type,
    description: descriptions[type],
    schema:
      type === 'help_request.reply' || type === 'help_request.student_message'
        ? MessageEventBody
        : type === 'student.erased'
          ? StudentErasedEventBody
          : HelpRequestEventBody,
    example: examples[type],
  }));
  entries.push({
    type: TEST_EVENT_TYPE,
    description:
      'Sent to one endpoint when an admin asks for a test; never sent otherwise, whatever the subscription.',
    schema: TestEventBody,
    example: {
      type: TEST_EVENT_TYPE,
      timestamp: '2026-09-14T09:30:00.000Z',
      data: {
        endpoint_id: '5b2e8c1d-4a6f-4d3b-9c7e-1f0a2b3c4d5e',
        message: 'This is a test event sent from the platform.',
      },
    },
  });
  return entries;
}
