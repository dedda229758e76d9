// The shapes of a campus merge and of the names merges keep, defined once: the admin API takes
// and answers them, and the console's campuses page checks its merge form and types its view
// with them, so the two accept the same values.
import { type Static, Type } from 'typebox';
import { DateTime, DisplayName, Text, Uuid } from '../../lib/schema.ts';

export const MergeBody = Type.Object({
  from: Text({
    minLength: 1,
    maxLength: 500,
    description: 'The campus that goes (id or name)',
  }),
  into: Text({
    minLength: 1,
    maxLength: 500,
    description: 'The campus that stays (id or name)',
  }),
  actor: Type.Optional(
    DisplayName({ minLength: 1, maxLength: 200, description: 'Who merges; default "operator"' }),
  ),
});
export type MergeBody = Static<typeof MergeBody>;

const CampusRef = Type.Object({ id: Uuid(), name: Type.String() });

export const MergeResult = Type.Object({
  merged: CampusRef,
  into: CampusRef,
  moved: Type.Object({ students: Type.Integer(), units: Type.Integer(), aliases: Type.Integer() }),
  alias: Type.String(),
});
export type MergeResult = Static<typeof MergeResult>;

/** A name that matches a campus because of an earlier merge. */
export const CampusAlias = Type.Object({
  alias: Type.String(),
  campus_id: Uuid(),
  campus_name: Type.String(),
  created_at: DateTime(),
});
export type CampusAlias = Static<typeof CampusAlias>;
