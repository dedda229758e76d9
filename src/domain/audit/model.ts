// The audit area's shapes: the entries of the trails (./trail.ts) and of the operator audit
// (./operator-audit.ts), as their queries (./queries.ts) return them.
import { type Static, Type } from 'typebox';
import { DateTime, Nullable, StringEnum, Uuid } from '../../lib/schema.ts';

export type OperatorAction = 'campus.merge' | 'departures.confirm' | 'departures.discard';

export interface OperatorAuditEntry {
  id: string;
  actor: string;
  action: OperatorAction;
  details: Record<string, unknown>;
  at: Date;
}

export const AdminAuditItem = Type.Object({
  id: Uuid(),
  actor_kind: StringEnum(['operator', 'person', 'student'] as const),
  actor_id: Nullable(Uuid()),
  actor: Type.String(),
  session_id: Nullable(Uuid()),
  action: Type.String({ description: 'The route, e.g. PATCH /admin/v1/institutions/:slug/people/:id' }),
  target: Nullable(Type.String({ description: 'The path acted on' })),
  status: Type.Integer(),
  request_id: Nullable(Type.String()),
  at: DateTime(),
  subject: Type.Optional(
    Nullable(
      Type.String({
        description:
          "What the change acted on, as it was named when it was made: a webhook endpoint's or calendar " +
          "feed's address, a person's, cohort's or institution's name (null when the change names nothing)",
      }),
    ),
  ),
});
export type AdminAuditItem = Static<typeof AdminAuditItem>;

export const HelpRequestAuditItem = Type.Object({
  id: Uuid(),
  seq: Type.Integer(),
  help_request_id: Uuid(),
  summary: Nullable(Type.String({ description: "The request's summary, to recognise it" })),
  kind: StringEnum(['note', 'audit'] as const),
  action: Type.String(),
  actor: Nullable(Type.String()),
  origin: StringEnum(['platform', 'integration'] as const),
  from_status: Nullable(Type.String()),
  to_status: Nullable(Type.String()),
  assigned_to: Nullable(Type.String()),
  created_at: DateTime(),
});
export type HelpRequestAuditItem = Static<typeof HelpRequestAuditItem>;
