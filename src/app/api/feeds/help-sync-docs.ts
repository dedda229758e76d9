// The help-sync feed's OpenAPI text: its description and the schemas of its body and answer,
// kept apart from the route (help-sync.ts), as every feed's is.
import { Type } from 'typebox';
import {
  MAX_EXTERNAL_REF,
  MAX_UPDATES,
  syncRowErrorMessages,
  syncRowErrors,
} from '../../../domain/helpdesk/rules.ts';

const exampleId = '5f0c6a8e-2b1d-4c3e-9a7f-1d2e3f4a5b6c';

/** A well-formed update row. */
const UpdateRow = Type.Object(
  {
    help_request_id: Type.String({
      format: 'uuid',
      description:
        "The platform's help request id, taken from webhook payloads (not the external ticket number). " +
        'Not a UUID: the row fails with `bad_help_request_id`.',
    }),
    action: Type.Union(
      [
        Type.Literal('acknowledge'),
        Type.Literal('note'),
        Type.Literal('resolve'),
        Type.Literal('reopen'),
        Type.Literal('reply'),
      ],
      {
        description:
          '`acknowledge`: new -> ack. `resolve`: any open status -> resolved (resolved time stamped). ' +
          '`reopen`: resolved -> in_progress (resolved time cleared). `note`: adds a staff-visible note. ' +
          '`reply` (opt-in): a public reply the student reads, its words in `note` (at most 5,000 characters; ' +
          'without one `reply_required`); only where the institution turned public replies on ' +
          '(PUT …/help-sync-settings), otherwise `replies_not_enabled`. ' +
          'Any other case changes nothing (`changed: false`). Anything else: `bad_action`.',
      },
    ),
    external_ref: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_EXTERNAL_REF,
        description:
          'The external ticket reference, stamped on the request on any action, shown in the timeline and ' +
          'echoed in every later webhook payload. Empty, not a string, longer than 200, or containing NUL or a lone UTF-16 surrogate: ' +
          '`bad_external_ref`.',
      }),
    ),
    note: Type.Optional(
      Type.String({
        maxLength: 10_000,
        description:
          'Required (non-blank) with `note` (`note_required`). Optional with `resolve`: always added to the ' +
          'timeline, also when the request is already resolved or the resolve is superseded; a note written is ' +
          'a change (`changed: true`), so a retried resolve with a note adds it again, like a `note` row. ' +
          'Ignored with other actions. Not a string, over 10000, or containing NUL or a lone UTF-16 surrogate: `bad_note`.',
      }),
    ),
    actor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'Overrides the request-level `actor` for this row. Blank, not a string, or containing NUL or a lone UTF-16 surrogate: `bad_actor`.',
      }),
    ),
    observed_at: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'When the external system took the view this row reports (ISO 8601 with offset). If a staff ' +
          'member changed the status in the console after this time, an `acknowledge`, `resolve` or `reopen` ' +
          'row changes no status and answers `ok: true, superseded: true` with the status the platform ' +
          'holds; its `external_ref` is still stamped and a resolve note still added (then `changed: true`, ' +
          'otherwise `changed: false`); the staff change reaches the external system as a `help_request.updated` event ' +
          '(origin `platform`). `note` rows are never superseded. Omitted: the row is applied as it arrives. ' +
          'Not a date-time, or an impossible one (for example 30 February): `bad_observed_at`.',
      }),
    ),
  },
  { description: 'A well-formed update row. Unknown fields (for example `priority`) are ignored.' },
);

/**
 * An element of `updates`: a well-formed row, or any other JSON value, which the domain turns
 * into that row's own error. Both branches are spelled out so the reference documents the row
 * field by field while validation lets every element through to the domain.
 */
const UpdateElement = Type.Union([
  UpdateRow,
  Type.Unknown({
    description:
      "Anything else (not an object, a missing or mistyped field) is accepted here and answered in that row's " +
      'result with `ok: false` and an `error` code; the other rows go on.',
  }),
]);

export const Body = Type.Object(
  {
    institution: Type.String({
      description:
        'Institution slug. Must be the institution the secret was issued for; otherwise every row is `not_found`.',
      examples: ['northfield'],
    }),
    actor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'The name shown in the audit trail and timeline for every row (default `help-desk sync`). ' +
          'Blank, or containing NUL or a lone UTF-16 surrogate: 400 `invalid_field` with `field: "actor"`.',
        examples: ['Service Desk (Zendesk)'],
      }),
    ),
    updates: Type.Array(UpdateElement, {
      description: `At most ${MAX_UPDATES} rows (more: 413 \`batch_too_large\` with \`max\`). Applied in order.`,
    }),
  },
  {
    additionalProperties: false,
    description:
      'Any other top-level field is refused with 400 `unknown_field` naming it (`field`), with `suggestion` when ' +
      'one of these is close.',
    examples: [
      {
        institution: 'northfield',
        actor: 'Service Desk (Zendesk)',
        updates: [
          { help_request_id: exampleId, action: 'acknowledge', external_ref: 'ZD-4412' },
          {
            help_request_id: exampleId,
            action: 'resolve',
            note: 'Enrolment record corrected',
            actor: 'Kim Lee',
            observed_at: '2026-03-01T09:30:00Z',
          },
        ],
      },
    ],
  },
);

const Result = Type.Object({
  help_request_id: Type.String({
    description: 'As sent (lower-cased when a valid UUID); empty when the row had no string id.',
  }),
  ok: Type.Boolean(),
  status: Type.Optional(
    Type.String({ description: 'When ok: the status the platform holds after the row.' }),
  ),
  changed: Type.Optional(
    Type.Boolean({
      description:
        'When ok: true when the row wrote something (status, resolved time, external_ref or a note); false ' +
        'when it was a no-op, so retries are harmless. A `note` row, and a `resolve` with a note, is always a change.',
    }),
  ),
  external_ref: Type.Optional(
    Type.String({ description: "When ok and set: the request's external_ref after the row." }),
  ),
  superseded: Type.Optional(
    Type.Boolean({
      description:
        'Present (true) when the row lost to a later staff change in the console (see `observed_at`).',
    }),
  ),
  error: Type.Optional(
    Type.String({
      enum: syncRowErrors,
      description:
        'When not ok, a stable code: `not_found` (no such request in your institution), `bad_action`, ' +
        '`bad_help_request_id`, `note_required`, `bad_external_ref`, `bad_note`, `bad_actor`, `bad_observed_at`, ' +
        'or `update_failed` (transient: retry the row).',
    }),
  ),
  message: Type.Optional(
    Type.String({
      description:
        'When not ok: what is wrong, for people (may be reworded; branch on `error`). Currently: ' +
        syncRowErrors.map((code) => `\`${code}\`: "${syncRowErrorMessages[code]}"`).join('; ') +
        '.',
    }),
  ),
});

/** The answer: one result per update row, in order. */
export const Answer = Type.Object(
  { results: Type.Array(Result) },
  {
    examples: [
      {
        results: [
          {
            help_request_id: exampleId,
            ok: true,
            status: 'resolved',
            changed: true,
            external_ref: 'ZD-4412',
          },
          {
            help_request_id: 'not-a-uuid',
            ok: false,
            error: 'bad_help_request_id',
            message: syncRowErrorMessages.bad_help_request_id,
          },
        ],
      },
    ],
  },
);

/** The endpoint's description, with the rate limit this service runs with. */
export function helpSyncDescription(ratePerMinute: number): string {
  return (
    'Write-only: acknowledge, note, resolve, reopen or (opt-in) reply to help requests of the institution the sync secret ' +
    'was issued for. Each row succeeds or fails on its own; `results` holds one object per update row, ' +
    'in order. Nothing is ever read back beyond these results, and priority and staff assignment can ' +
    'never be changed here. Every change is appended to the audit trail attributed to the actor and ' +
    'emits a `help_request.updated` event with `origin: "integration"`.\n\n' +
    'Authentication: `Authorization: Bearer ssp_sync_…`. 401 codes: `sync_secret_missing`, ' +
    '`sync_secret_wrong`, `sync_secret_revoked` (revoked or rotated away), `sync_secret_never_issued` ' +
    '(the named institution has never been issued a sync secret, so this surface does not exist for it). ' +
    'A roster secret is never accepted here. A valid secret of an archived institution is 409 ' +
    '`institution_archived` (docs/archiving.md).\n\n' +
    `Limits: ${MAX_UPDATES} updates per request (413 \`batch_too_large\`, \`max\`); ` +
    `${ratePerMinute} requests per minute per client IP ` +
    '(HELP_SYNC_RATE_LIMIT_PER_MINUTE; 429 `rate_limited` with `Retry-After`).'
  );
}
