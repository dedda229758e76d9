// The shapes of the feed secrets as the admin API answers and the console shows them, defined
// once: a secret just issued (its plaintext, this once) and each secret's state.
import { type Static, Type } from 'typebox';
import { DateTime } from '../../lib/schema.ts';

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
});
export type RosterSecretStatus = Static<typeof RosterSecretStatus>;

export const IssuedRosterSecret = Type.Object({
  secret: Type.String({ description: 'Shown once; cannot be read back' }),
  institution: Type.String(),
  created_at: DateTime(),
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
