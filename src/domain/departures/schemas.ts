// The shapes of full syncs and their departures, defined once: a full sync as listed, a student it
// departs (or holds), and an admin's decision. The admin API answers with them and the console's
// full-sync pages type their view models with them.
import { type Static, Type } from 'typebox';
import { DateTime, Nullable, Uuid } from '../../lib/schema.ts';

export const FullSyncStatus = Type.Union(
  [
    Type.Literal('open'),
    Type.Literal('applied'),
    Type.Literal('held'),
    Type.Literal('confirmed'),
    Type.Literal('discarded'),
  ],
  {
    description:
      'open: pages arriving; applied: departures written; held: over the threshold, waiting for an admin; ' +
      'confirmed / discarded: an admin decided',
  },
);
export type FullSyncStatus = Static<typeof FullSyncStatus>;

export const FullSync = Type.Object({
  id: Uuid(),
  cohort_id: Uuid(),
  sync_id: Type.String(),
  status: FullSyncStatus,
  pages: Type.Integer(),
  cohort_size: Nullable(Type.Integer()),
  departures: Nullable(Type.Integer()),
  threshold: Nullable(Type.Number()),
  started_at: DateTime(),
  finished_at: Nullable(DateTime()),
  decided_at: Nullable(DateTime()),
  decided_by: Nullable(Type.String()),
});
export type FullSyncListing = Static<typeof FullSync>;

export const DepartingStudent = Type.Object({
  id: Uuid(),
  email: Type.String(),
  student_id_ext: Type.String(),
  departed_at: Nullable(DateTime('Set once the departure was applied (or the student departed otherwise)')),
});
export type DepartingStudent = Static<typeof DepartingStudent>;

/** What an admin's decision on held departures did. */
export const Decision = Type.Object({
  id: Type.String(),
  sync_id: Type.String(),
  status: Type.String(),
  departed: Type.Integer(),
});
export type Decision = Static<typeof Decision>;
