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
import type { Queryable } from '../../db/db.ts';
import { type KeysetPage, keysetPage, type Paged } from '../../db/keyset.ts';
import type { CursorKey, KeysetOrder } from '../../lib/cursor.ts';
import type { AdminAuditItem, HelpRequestAuditItem } from './model.ts';
import { selectAdminAudit, selectAuditPeople, selectHelpRequestAudit } from './queries.ts';

export const auditKinds = ['admin', 'help_requests'] as const;
export type AuditKind = (typeof auditKinds)[number];

export const adminAuditOrder: KeysetOrder = { listing: 'admin-audit', key: ['timestamp', 'uuid'] };
export const helpRequestAuditOrder: KeysetOrder = {
  listing: 'help-request-audit',
  key: ['timestamp', 'int'],
};

export { AdminAuditItem, HelpRequestAuditItem } from './model.ts';

export interface AuditFilter {
  /** A person of the institution, or the operator. */
  person?: { kind: 'person'; id: string; name: string } | { kind: 'operator' };
  from?: Date;
  to?: Date;
}

const iso = (date: Date | undefined) => date?.toISOString() ?? null;

/** A trail query's time bounds and page: one row more than the page, to know whether another follows. */
const pageWindow = (filter: AuditFilter, page: KeysetPage) => ({
  from: iso(filter.from),
  to: iso(filter.to),
  after: page.after,
  limit: page.limit + 1,
});

/** One page of the admin audit, newest first. */
export async function listAdminAudit(
  db: Queryable,
  institutionId: string,
  filter: AuditFilter,
  page: KeysetPage,
): Promise<Paged<AdminAuditItem>> {
  const person = filter.person;
  const rows = await selectAdminAudit(db, {
    institutionId,
    actorKind: person ? person.kind : null,
    actorId: person?.kind === 'person' ? person.id : null,
    ...pageWindow(filter, page),
  });
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
  const rows = await selectHelpRequestAudit(db, {
    institutionId,
    actor,
    ...pageWindow(filter, page),
  });
  return keysetPage(rows, page.limit);
}

/** The people an audit may be filtered by: everyone of the institution, removed people included. */
export async function auditPeople(
  db: Queryable,
  institutionId: string,
): Promise<{ id: string; name: string; email: string; removed: boolean }[]> {
  return selectAuditPeople(db, institutionId);
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
