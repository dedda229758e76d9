// The shapes of the feed secrets as the admin API answers and the console shows them, defined
// once: a secret just issued (its plaintext, this once) and each secret's state.
import { type Static, Type } from 'typebox';
import { DateTime, Nullable } from '../../lib/schema.ts';

export const RosterSecretStatus = Type.Object({
  state: Type.Union([
    Type.Literal('active'),
    Type.Literal('revoked'),
    Type.Literal('bootstrap'),
    Type.Literal('not_configured'),
  ]),
  issued_at: Type.Optional(DateTime()),
  rotate_by: Type.Optional(
    DateTime('Issue a new secret (coordinated with the operator) by then: 90 days after issue'),
  ),
  revoked_at: Type.Optional(DateTime()),
  age_days: Type.Optional(Type.Integer({ description: 'While active: whole days since it was issued' })),
  due_for_rotation: Type.Optional(
    Type.Boolean({ description: 'While active: true from 90 days after issue (spec 5 rule 5)' }),
  ),
  last_used_at: Type.Optional(Nullable(DateTime('When it last authenticated a push; null if never'))),
  previous: Type.Optional(
    Nullable(
      Type.Object(
        {
          issued_at: DateTime(),
          expires_at: DateTime('It stops working then'),
          last_used_at: Nullable(DateTime()),
        },
        { description: 'The previous secret, while it still works beside the current one' },
      ),
    ),
  ),
});
export type RosterSecretStatus = Static<typeof RosterSecretStatus>;

export const IssueRosterSecretBody = Type.Object(
  {
    previous_secret_valid_days: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 7,
        default: 0,
        description:
          'How long the current secret keeps working beside the new one: 0 (the default) stops it at once; ' +
          '1 to 7 days lets the SIS switch without a hard cut-over',
      }),
    ),
  },
  { additionalProperties: false },
);

export const IssuedRosterSecret = Type.Object({
  secret: Type.String({ description: 'Shown once; cannot be read back' }),
  institution: Type.String(),
  created_at: DateTime(),
  previous_secret_expires_at: Nullable(
    DateTime('When the previous secret stops working; null when it stopped at once (or there was none)'),
  ),
});
export type IssuedRosterSecret = Static<typeof IssuedRosterSecret>;

export const HelpSyncSecretStatus = Type.Object({
  state: Type.Union([Type.Literal('active'), Type.Literal('revoked'), Type.Literal('never_issued')]),
  issued_at: Type.Optional(DateTime()),
  revoked_at: Type.Optional(DateTime()),
});
export type HelpSyncSecretStatus = Static<typeof HelpSyncSecretStatus>;

export const IssuedSyncSecret = Type.Object({
  secret: Type.String({ description: 'ssp_sync_…; shown once, cannot be read back' }),
  institution: Type.String(),
  created_at: DateTime(),
});
export type IssuedSyncSecret = Static<typeof IssuedSyncSecret>;
