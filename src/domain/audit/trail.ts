// The audit trail an institution's admins read: the admin audit (every change made through the
// admin API or the console: who, when, what, from which session; written by
// ../access/audit.ts) and the help-request audit (every entry of the help requests' timelines:
// raised, status, assignment, notes, help-desk sync), each filtered by person and date and read
// newest first in keyset pages, so an export of years reads what a page reads.
//
// Filters: `person` is a person of the institution (the admin audit by the acting person's id;
// the timeline records names, so the help-request audit by the person's current name) or the
// operator; `from` and `to` are instants (the page turns the institution's dates into them).
// Cost: one indexed query per page (admin_audit_institution_idx, help_request_timeline_institution_idx).
import { type Static, Type } from 'typebox';
import type { Queryable } from '../../db/db.ts';
import { type KeysetPage, keysetPage, type Paged } from '../../db/keyset.ts';
import type { CursorKey, KeysetOrder } from '../../lib/cursor.ts';
import { DateTime, Nullable, StringEnum, Uuid } from '../../lib/schema.ts';

export const auditKinds = ['admin', 'help_requests'] as const;
export type AuditKind = (typeof auditKinds)[number];

export const adminAuditOrder: KeysetOrder = { listing: 'admin-audit', key: ['timestamp', 'uuid'] };
export const helpRequestAuditOrder: KeysetOrder = {
  listing: 'help-request-audit',
  key: ['timestamp', 'int'],
};

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

export interface AuditFilter {
  /** A person of the institution, or the operator. */
  person?: { kind: 'person'; id: string; name: string } | { kind: 'operator' };
  from?: Date;
  to?: Date;
}

const iso = (date: Date | undefined) => date?.toISOString() ?? null;
const afterPart = (after: CursorKey | undefined, i: number) => (after ? after[i] : null);

/** One page of the admin audit, newest first. */
export async function listAdminAudit(
  db: Queryable,
  institutionId: string,
  filter: AuditFilter,
  page: KeysetPage,
): Promise<Paged<AdminAuditItem>> {
  const person = filter.person;
  const { rows } = await db.query<AdminAuditItem & { sort_key: CursorKey }>(
    `SELECT id, actor_kind, actor_id, actor, session_id, action, target, status, request_id, at, subject,
            json_build_array(at, id) AS sort_key
     FROM admin_audit
     WHERE institution_id = $1
       AND ($2::text IS NULL OR actor_kind = $2::text)
       AND ($3::uuid IS NULL OR actor_id = $3::uuid)
       AND ($4::timestamptz IS NULL OR at >= $4::timestamptz)
       AND ($5::timestamptz IS NULL OR at < $5::timestamptz)
       AND ($6::timestamptz IS NULL OR (at, id) < ($6::timestamptz, $7::uuid))
     ORDER BY at DESC, id DESC LIMIT $8`,
    [
      institutionId,
      person ? person.kind : null,
      person?.kind === 'person' ? person.id : null,
      iso(filter.from),
      iso(filter.to),
      afterPart(page.after, 0),
      afterPart(page.after, 1),
      page.limit + 1,
    ],
  );
  return keysetPage(rows, page.limit);
}

/** One page of the help-request audit (every timeline entry of the institution), newest first. */
export async function listHelpRequestAudit(
  db: Queryable,
  institutionId: string,
  filter: AuditFilter,
  page: KeysetPage,
): Promise<Paged<HelpRequestAuditItem>> {
  const person = filter.person;
  // The operator acts through the API with a staff name of its choosing: only a person is a filter here.
  const actor = person?.kind === 'person' ? person.name : null;
  if (person?.kind === 'operator') return { items: [], next: null };
  const { rows } = await db.query<HelpRequestAuditItem & { sort_key: CursorKey }>(
    `SELECT t.id, t.seq::int AS seq, t.help_request_id, r.summary, t.kind, t.action, t.actor, t.origin,
            t.from_status, t.to_status, t.assigned_to, t.created_at,
            json_build_array(t.created_at, t.seq) AS sort_key
     FROM help_request_timeline t
     JOIN help_requests r ON r.id = t.help_request_id
     WHERE t.institution_id = $1
       AND ($2::text IS NULL OR t.actor = $2::text)
       AND ($3::timestamptz IS NULL OR t.created_at >= $3::timestamptz)
       AND ($4::timestamptz IS NULL OR t.created_at < $4::timestamptz)
       AND ($5::timestamptz IS NULL OR (t.created_at, t.seq) < ($5::timestamptz, $6::bigint))
     ORDER BY t.created_at DESC, t.seq DESC LIMIT $7`,
    [
      institutionId,
      actor,
      iso(filter.from),
      iso(filter.to),
      afterPart(page.after, 0),
      afterPart(page.after, 1),
      page.limit + 1,
    ],
  );
  return keysetPage(rows, page.limit);
}

/** The people an audit may be filtered by: everyone of the institution, removed people included. */
export async function auditPeople(
  db: Queryable,
  institutionId: string,
): Promise<{ id: string; name: string; email: string; removed: boolean }[]> {
  const { rows } = await db.query<{ id: string; name: string; email: string; removed: boolean }>(
    `SELECT id, name, email, removed_at IS NOT NULL AS removed FROM people
     WHERE institution_id = $1 ORDER BY lower(name), email, id`,
    [institutionId],
  );
  return rows;
}

/** Rows per query of a CSV export: one batch is held at a time. */
export const AUDIT_EXPORT_BATCH = 2000;

/** Every entry matching the filter, newest first, batch by batch (for the CSV export). */
export async function* auditEntries<T>(read: (page: KeysetPage) => Promise<Paged<T>>): AsyncGenerator<T[]> {
  let after: CursorKey | undefined;
  do {
    const page = await read({ limit: AUDIT_EXPORT_BATCH, after });
    yield page.items;
    after = page.next ?? undefined;
  } while (after);
}
