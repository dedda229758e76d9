// The audit page (admins): the admin audit (who changed what, when, from which session) and the
// help-request audit (every timeline entry), filtered by person and the institution's dates,
// paged by cursor, and exported as CSV with the same filters (streamed batch by batch, never
// held whole). Reads the domain directly (src/domain/audit/trail.ts).
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../../../db/db.ts';
import type { KeysetPage, Paged } from '../../../db/keyset.ts';
import {
  type AdminAuditItem,
  type AuditFilter,
  adminAuditOrder,
  auditEntries,
  auditPeople,
  type HelpRequestAuditItem,
  helpRequestAuditOrder,
  listAdminAudit,
  listHelpRequestAudit,
} from '../../../domain/audit/trail.ts';
import { csvRow } from '../../../lib/csv.ts';
import type { App } from '../../types.ts';
import { adminSentence } from './audit-sentences.ts';
import {
  type AuditQuery,
  adminActionWords,
  auditFilter,
  auditQuery,
  auditView,
  helpRequestEntryWords,
} from './audit-view.ts';
import { ctx, institutionOf, PageParams } from './context.ts';
import { timeIn } from './institution-time.ts';
import { CursorParam, type Listing, readListing } from './listing.ts';

const Query = Type.Object({
  kind: Type.Optional(Type.String({ maxLength: 40 })),
  person: Type.Optional(Type.String({ maxLength: 40 })),
  from: Type.Optional(Type.String({ maxLength: 20 })),
  to: Type.Optional(Type.String({ maxLength: 20 })),
  cursor: CursorParam,
});

type Reader<T> = (page: KeysetPage) => Promise<Paged<T>>;

const noMatch = async <T>(): Promise<Paged<T>> => ({ items: [], next: null });

export function auditRoutes(app: App): void {
  /** The listing the query asks for, as a reader of pages (none when the person is unknown). */
  const readerOf = (db: Db, institutionId: string, query: AuditQuery, filter: AuditFilter | undefined) => {
    if (query.kind === 'help_requests') {
      const read: Reader<HelpRequestAuditItem> = filter
        ? (page) => listHelpRequestAudit(db, institutionId, filter, page)
        : noMatch;
      return { kind: 'help_requests' as const, order: helpRequestAuditOrder, read };
    }
    const read: Reader<AdminAuditItem> = filter
      ? (page) => listAdminAudit(db, institutionId, filter, page)
      : noMatch;
    return { kind: 'admin' as const, order: adminAuditOrder, read };
  };

  const load = async (request: FastifyRequest) => {
    const institution = institutionOf(request);
    const query = request.query as Record<string, string | undefined>;
    const people = await auditPeople(request.deps.db, institution.id);
    const parsed = auditQuery(query);
    return { institution, people, parsed, query };
  };

  app.get(
    '/:slug/audit',
    { config: { access: 'admin' }, schema: { hide: true, params: PageParams, querystring: Query } },
    async (request) => {
      const { institution, people, parsed, query } = await load(request);
      const base = `/console/${institution.slug}/audit`;
      const zone = institution.time_zone;
      let listing: Listing<unknown>;
      if (!parsed.ok) {
        listing = { items: [], paged: false, problem: parsed.problem };
      } else {
        const reader = readerOf(
          request.deps.db,
          institution.id,
          parsed.value,
          auditFilter(parsed.value, people, zone),
        );
        listing = await readListing(
          reader.order,
          { cursor: query.cursor, size: 50 },
          reader.read as Reader<unknown>,
        );
      }
      const shown = parsed.ok ? parsed.value : parsed.values;
      return ctx(request).render(
        'console/audit.eta',
        auditView({ base, query: shown, people, listing, zone }),
      );
    },
  );

  app.get(
    '/:slug/audit.csv',
    { config: { access: 'admin' }, schema: { hide: true, params: PageParams, querystring: Query } },
    async (request, reply) => {
      const { institution, people, parsed } = await load(request);
      if (!parsed.ok) {
        return reply.redirect(
          `/console/${institution.slug}/audit?${new URLSearchParams(parsed.values)}`,
          303,
        );
      }
      const zone = institution.time_zone;
      const reader = readerOf(
        request.deps.db,
        institution.id,
        parsed.value,
        auditFilter(parsed.value, people, zone),
      );
      const rows =
        reader.kind === 'admin'
          ? adminCsv(reader.read, zone)
          : helpRequestCsv(reader.read as Reader<HelpRequestAuditItem>, zone);
      return sendCsv(
        reply,
        `${institution.slug}-${reader.kind === 'admin' ? 'admin' : 'help-request'}-audit.csv`,
        rows,
      );
    },
  );
}

function sendCsv(reply: FastifyReply, filename: string, rows: AsyncGenerator<string>) {
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .header('cache-control', 'no-store')
    .send(Readable.from(rows));
}

/** An audit as CSV: the header row, then a row per entry, read in batches as they are sent. */
async function* auditCsv<T>(
  read: Reader<T>,
  header: readonly string[],
  row: (entry: T) => readonly unknown[],
): AsyncGenerator<string> {
  yield csvRow(header);
  for await (const batch of auditEntries(read)) yield batch.map((e) => csvRow(row(e))).join('');
}

function adminCsv(read: Reader<AdminAuditItem>, zone: string): AsyncGenerator<string> {
  return auditCsv(
    read,
    [
      'at',
      'at_local',
      'actor',
      'actor_kind',
      'actor_id',
      'session_id',
      'through',
      'what',
      'action',
      'target',
      'status',
      'request_id',
    ],
    (e) => [
      e.at,
      timeIn(e.at, zone),
      e.actor,
      e.actor_kind,
      e.actor_id,
      e.session_id,
      adminActionWords(e.action).through,
      adminSentence(e),
      e.action,
      e.target,
      e.status,
      e.request_id,
    ],
  );
}

function helpRequestCsv(read: Reader<HelpRequestAuditItem>, zone: string): AsyncGenerator<string> {
  return auditCsv(
    read,
    [
      'at',
      'at_local',
      'actor',
      'origin',
      'what',
      'help_request_id',
      'summary',
      'action',
      'from_status',
      'to_status',
      'assigned_to',
    ],
    (e) => [
      e.created_at,
      timeIn(e.created_at, zone),
      e.actor,
      e.origin,
      helpRequestEntryWords(e),
      e.help_request_id,
      e.summary,
      e.action,
      e.from_status,
      e.to_status,
      e.assigned_to,
    ],
  );
}
