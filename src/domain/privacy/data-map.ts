// The data map: every text, JSON and array column of every table, classified as personal data of
// a student, personal data of staff (people, operators), or not personal, with what it holds, and
// for each table why it is kept, for how long, and which erasure step removes a student's data
// from it. One registry, read by the data-map test (which fails when a migration adds a column
// that is not here, or when docs/privacy.md does not name a personal column), by the export, the
// erasure and the retention worker. A new table with personal data: classify its columns here,
// then add its step to erasure-steps.ts (and export-sections.ts); the test names what is missing.
import { plainTables as plain } from './data-map-plain.ts';
import type { ErasureStepName } from './erasure-step-names.ts';

/** `student`: about a student (exported, erased); `staff`: about staff or operators; `none`. */
export type Personal = 'student' | 'staff' | 'none';

export interface ColumnEntry {
  personal: Personal;
  holds: string;
}

export interface TableEntry {
  table: string;
  /** Why the service keeps it. */
  why: string;
  /** How long: the retention rule, or what ends it. */
  keptFor: string;
  /** The erasure step that removes a student's data from this table (required with `student` columns). */
  erasure?: ErasureStepName;
  columns: Record<string, ColumnEntry>;
}

const student = (holds: string): ColumnEntry => ({ personal: 'student', holds });
const staff = (holds: string): ColumnEntry => ({ personal: 'staff', holds });
const none = (holds: string): ColumnEntry => ({ personal: 'none', holds });

const UNTIL_INSTITUTION = 'until the institution is deleted';

/** The OneRoster memory's columns, as stored and as staged by a push. */
const memoryColumns = {
  kind: none('org, course, class, user or enrollment'),
  sourced_id: student("the SIS's sourcedId of the record (a user's is an identifier of the student)"),
  data: student(
    "what the record became: a user's student SIS id and orgs, an enrollment's student, unit and term",
  ),
  student_id_ext: student('the SIS id of the student a user or enrollment row placed'),
};

export const dataMap: TableEntry[] = [
  {
    table: 'students',
    why: 'the roster the SIS pushes: who may sign in and whom a request is from',
    keptFor: 'until erased; departed students are erased after the departed-students period',
    erasure: 'students',
    columns: {
      email: student('email address (match key, sign-in)'),
      student_id_ext: student('the SIS id'),
      first_name: student('first name'),
      last_name: student('last name'),
    },
  },
  {
    table: 'enrolments',
    why: 'which units a student takes',
    keptFor: 'with the student (deleted with them)',
    erasure: 'students',
    columns: { status: none('enrolled, withdrawn or completed') },
  },
  {
    table: 'help_requests',
    why: 'what a student asked for, and its handling',
    keptFor: 'words erased after the resolved-requests period; the row stays for statistics',
    erasure: 'help_requests',
    columns: {
      summary: student("the student's own words"),
      status: none('status'),
      priority: none('priority'),
      category: none('category'),
      assigned_to: staff("legacy assignee's name"),
      external_ref: none("the help desk's ticket reference"),
    },
  },
  {
    table: 'help_request_timeline',
    why: 'the conversation and audit of a request (append-only; erasure is the one exception)',
    keptFor: 'notes erased with the request; the entries stay without them',
    erasure: 'help_requests',
    columns: {
      note: student('notes, replies and student messages about the student (every kind)'),
      actor: student("who acted: a staff name, an integration, or the student's own name"),
      kind: none('note, audit, reply …'),
      action: none('what happened'),
      origin: none('platform or integration'),
      from_status: none('status before'),
      to_status: none('status after'),
      external_ref: none("the help desk's ticket reference"),
      assigned_to: staff("the assignee's name then"),
    },
  },
  {
    table: 'events',
    why: 'the event log and webhook outbox',
    keptFor: 'payloads of an erased request keep only non-personal fields; rows stay',
    erasure: 'help_requests',
    columns: {
      type: none('event type'),
      payload: student('the webhook body: ids, status, actor names (and text fields of later event types)'),
    },
  },
  {
    table: 'webhook_deliveries',
    why: 'delivery state of each event to each endpoint',
    keptFor: 'deleted with the endpoint; error text erased with the request',
    erasure: 'help_requests',
    columns: {
      state: none('state'),
      last_error: student("the receiver's last error, which may quote the body"),
    },
  },
  {
    table: 'webhook_attempts',
    why: 'what each attempt sent and got back (the webhook portal)',
    keptFor: 'bodies and headers erased after the webhook-bodies period',
    erasure: 'help_requests',
    columns: {
      outcome: none('success, http_error …'),
      error: student('transport error, may quote the response'),
      request_headers: none('signature headers'),
      response_headers: student("the receiver's response headers"),
      response_body: student("the receiver's response body (may echo the payload)"),
    },
  },
  {
    table: 'notifications',
    why: 'emails telling staff of a request, and a student of a reply or status change (a nudge with a link, never the words)',
    keptFor:
      'finished rows deleted after the notifications period; deleted with an erased request or student',
    erasure: 'help_requests',
    columns: {
      reason: none('crisis, new, assigned, reply, status, student_message, invited'),
      rule: none('the rule that made the email, as the email states it'),
      state: none('sending state'),
      last_error: staff('SMTP error, may name the staff recipient'),
    },
  },
  {
    table: 'sis_runs',
    why: 'push history: what each push did',
    keptFor: 'row errors erased after the run-errors period; counts stay',
    erasure: 'run_errors',
    columns: {
      kind: none('roster, enrolments, oneroster'),
      credential: none('which secret'),
      trigger: none('push or pull'),
      sections: none('sections pushed'),
      counts: student("counts, and a dry run's duplicate emails and bad dates"),
      errors: student('row errors, which quote emails and SIS ids'),
      details: student('warnings, which may quote values of rows'),
    },
  },
  {
    table: 'oneroster_sources',
    why: "an institution's OneRoster connection",
    keptFor: UNTIL_INSTITUTION,
    erasure: 'oneroster_memory',
    columns: {
      base_url: none('provider URL'),
      token_url: none('provider URL'),
      client_id: none('client id'),
      client_secret_encrypted: none('encrypted secret'),
      org_ids: none('org sourcedIds'),
      mapping: none('mapping settings'),
      known: student('memory of earlier pulls before oneroster_memory (emptied by migration 0071)'),
      last_error: none('last pull error'),
      last_error_code: none("the last pull's error code"),
      requested_mode: none('full or delta'),
    },
  },
  {
    table: 'oneroster_memory',
    why: 'what completed OneRoster pushes and pulls placed, so a delta from any machine resolves what it omits',
    keptFor: "while the institution uses OneRoster; a student's rows until they are erased",
    erasure: 'oneroster_memory',
    columns: memoryColumns,
  },
  {
    table: 'oneroster_memory_staged',
    why: 'what a OneRoster push changed in the memory, staged until the push completes',
    keptFor: 'until the push completes, or a day when it never does',
    erasure: 'oneroster_memory',
    columns: memoryColumns,
  },
  {
    table: 'admin_audit',
    why: 'every change made through the admin API (append-only; erasure may rewrite the target)',
    keptFor: UNTIL_INSTITUTION,
    erasure: 'audit_targets',
    columns: {
      actor_kind: none('operator or person'),
      actor: staff('who changed it'),
      action: none('method and route'),
      target: student("the path acted on, which may carry a student's id"),
      request_id: none('request id'),
      subject: staff(
        "what a change acted on, in words: an endpoint's or feed's address, a cohort's name, or a staff member's name; never a student",
      ),
    },
  },
  {
    table: 'access_log',
    why: 'who opened a request, a student page or an export (record of disclosures)',
    keptFor: 'the access-log period',
    erasure: 'access_log',
    columns: {
      actor_kind: none('operator or person'),
      actor: staff('who looked'),
      what: none('help_request, student or export'),
      surface: none('console or api'),
    },
  },
  {
    table: 'idempotency_keys',
    why: 'the first answer to a POST, replayed to a retry',
    keptFor: '24 hours',
    erasure: 'idempotency',
    columns: {
      caller: student("'student:<id>' or 'person:<id>'"),
      key: none("the client's key"),
      request_hash: none('SHA-256 of the request'),
      response: student('the sealed (encrypted) first answer'),
    },
  },
  {
    table: 'sessions',
    why: 'signed-in sessions',
    keptFor: 'until expiry; deleted with the student',
    erasure: 'students',
    columns: { token_hash: none('SHA-256 of the cookie'), ended_reason: none('why it ended') },
  },
  {
    table: 'sign_in_links',
    why: "a provider's subject linked to a person or student",
    keptFor: 'deleted with the student',
    erasure: 'students',
    columns: { issuer: none('provider'), subject: student("the provider's id of the person or student") },
  },
  {
    table: 'student_erasures',
    why: 'the record of each erasure, without the person',
    keptFor: UNTIL_INSTITUTION,
    columns: {
      student_key: none('SHA-256 of institution and student id'),
      reason: none('request or retention'),
      erased_by: staff('who erased'),
      removed: none('counts'),
    },
  },
  {
    table: 'retention_runs',
    why: 'what each retention run removed',
    keptFor: UNTIL_INSTITUTION,
    columns: { removed: none('counts') },
  },
  {
    table: 'people',
    why: 'staff, admins and operators',
    keptFor: 'removed softly; deleted with the institution',
    columns: {
      email: staff('email'),
      name: staff('name'),
      roles: none('roles'),
      permissions: none('permissions'),
    },
  },
  {
    table: 'full_syncs',
    why: 'full-sync departures waiting for a decision',
    keptFor: UNTIL_INSTITUTION,
    columns: { sync_id: none("the SIS's run id"), status: none('status'), decided_by: staff('who decided') },
  },
  {
    table: 'operator_audit',
    why: 'operator actions (campus merges)',
    keptFor: UNTIL_INSTITUTION,
    columns: { actor: staff('operator name'), action: none('action'), details: none('campus ids and names') },
  },
  {
    table: 'programs',
    why: 'taxonomy',
    keptFor: UNTIL_INSTITUTION,
    columns: {
      code: none('code'),
      name: none('name'),
      coordinator_name: staff("the program coordinator's name"),
      coordinator_title: none('title'),
    },
  },
  {
    table: 'crisis_contacts',
    why: 'whom a student in crisis can reach',
    keptFor: UNTIL_INSTITUTION,
    columns: {
      name: staff('contact name (often a service)'),
      phone: staff('phone'),
      url: none('link'),
      hours: none('hours'),
      description: none('description'),
    },
  },
  {
    table: 'sign_in_flows',
    why: 'sign-ins under way',
    keptFor: 'minutes (deleted by the callback or by age)',
    columns: {
      state_hash: none('hash'),
      nonce: none('nonce'),
      code_verifier_encrypted: none('encrypted verifier'),
      return_to: none('path'),
      client_network: none(
        "the signing-in client's /24 or /64 network, never the address, for the per-network cap; tied to no person",
      ),
    },
  },
];

for (const [table, columns] of Object.entries(plain)) {
  dataMap.push({
    table,
    why: 'configuration or taxonomy',
    keptFor: UNTIL_INSTITUTION,
    columns: Object.fromEntries(Object.entries(columns).map(([c, holds]) => [c, none(holds)])),
  });
}

/** Every personal column as `table.column`, with its kind. */
export function personalColumns(): { name: string; personal: Personal }[] {
  return dataMap.flatMap((t) =>
    Object.entries(t.columns)
      .filter(([, c]) => c.personal !== 'none')
      .map(([column, c]) => ({ name: `${t.table}.${column}`, personal: c.personal })),
  );
}
