// The export's SQL: one statement per section of the document, each by an index on the student or
// their requests. Help requests are read in pages (with their timeline and events), so a student
// with many requests streams instead of being held in memory whole.
import type { Queryable } from '../../../db/db.ts';

export interface ExportedStudent {
  id: string;
  email: string;
  student_id_ext: string;
  first_name: string | null;
  last_name: string | null;
  cohort: string;
  program: string | null;
  campus: string | null;
  first_in_family: boolean | null;
  start_date: string | null;
  departed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The student found by id, email (any case) or SIS id; undefined when none. */
export async function findStudent(
  db: Queryable,
  institutionId: string,
  by: { id?: string; email?: string; student_id_ext?: string },
): Promise<ExportedStudent | undefined> {
  const { rows } = await db.query<ExportedStudent>(
    `SELECT s.id, s.email, s.student_id_ext, s.first_name, s.last_name, c.name AS cohort,
       p.code AS program, ca.name AS campus, s.first_in_family, s.start_date::text AS start_date,
       s.departed_at, s.created_at, s.updated_at
     FROM students s JOIN cohorts c ON c.id = s.cohort_id
     LEFT JOIN programs p ON p.id = s.program_id LEFT JOIN campuses ca ON ca.id = s.campus_id
     WHERE s.institution_id = $1
       AND (($2::text IS NOT NULL AND s.id::text = $2) OR ($3::text IS NOT NULL AND lower(s.email) = lower($3))
         OR ($4::text IS NOT NULL AND s.student_id_ext = $4))
     LIMIT 1`,
    [institutionId, by.id ?? null, by.email ?? null, by.student_id_ext ?? null],
  );
  return rows[0];
}

/** A page of the student's requests (oldest first), each with its timeline and events. */
export async function requestPage(
  db: Queryable,
  institutionId: string,
  studentId: string,
  after: string | null,
  limit: number,
) {
  const { rows } = await db.query<{ id: string; created_at: Date; request: Record<string, unknown> }>(
    `SELECT h.id, h.created_at, jsonb_build_object(
       'id', h.id, 'status', h.status, 'priority', h.priority, 'category', h.category, 'summary', h.summary,
       'external_ref', h.external_ref, 'created_at', h.created_at, 'updated_at', h.updated_at,
       'resolved_at', h.resolved_at,
       'timeline', coalesce((SELECT jsonb_agg(jsonb_build_object('kind', t.kind, 'action', t.action,
           'actor', t.actor, 'origin', t.origin, 'note', t.note, 'from_status', t.from_status,
           'to_status', t.to_status, 'external_ref', t.external_ref, 'assigned_to', t.assigned_to,
           'at', t.created_at) ORDER BY t.seq)
         FROM help_request_timeline t WHERE t.help_request_id = h.id), '[]'::jsonb),
       'events', coalesce((SELECT jsonb_agg(jsonb_build_object('id', e.id, 'type', e.type,
           'occurred_at', e.occurred_at, 'payload', e.payload) ORDER BY e.seq)
         FROM events e WHERE e.help_request_id = h.id AND e.institution_id = h.institution_id), '[]'::jsonb)
     ) AS request
     FROM help_requests h
     WHERE h.institution_id = $1 AND h.student_id = $2
       AND ($3::uuid IS NULL OR (h.created_at, h.id) > (SELECT created_at, id FROM help_requests WHERE id = $3::uuid))
     ORDER BY h.created_at, h.id LIMIT $4`,
    [institutionId, studentId, after, limit],
  );
  return rows;
}

/** The smaller sections, one statement each, as JSON arrays. */
export const sectionQueries: Record<string, string> = {
  enrolments: `SELECT coalesce(jsonb_agg(jsonb_build_object('unit', u.code, 'unit_name', u.name, 'term', t.code,
      'status', e.status, 'created_at', e.created_at, 'updated_at', e.updated_at) ORDER BY t.start_date, u.code), '[]')
    FROM enrolments e JOIN units u ON u.id = e.unit_id JOIN terms t ON t.id = e.term_id
    WHERE e.institution_id = $1 AND e.student_id = $2`,
  notifications: `SELECT coalesce(jsonb_agg(jsonb_build_object('help_request_id', n.help_request_id,
      'reason', n.reason, 'state', n.state, 'created_at', n.created_at, 'finished_at', n.finished_at)
      ORDER BY n.created_at), '[]')
    FROM notifications n JOIN help_requests h ON h.id = n.help_request_id
    WHERE h.institution_id = $1 AND h.student_id = $2`,
  sign_in_links: `SELECT coalesce(jsonb_agg(jsonb_build_object('issuer', l.issuer, 'subject', l.subject,
      'created_at', l.created_at, 'last_sign_in_at', l.last_sign_in_at)), '[]')
    FROM sign_in_links l WHERE l.institution_id = $1 AND l.student_id = $2`,
  sessions: `SELECT coalesce(jsonb_agg(jsonb_build_object('created_at', s.created_at, 'last_seen_at', s.last_seen_at,
      'expires_at', s.expires_at, 'ended_at', s.ended_at) ORDER BY s.created_at), '[]')
    FROM sessions s WHERE s.institution_id = $1 AND s.student_id = $2`,
  reads: `SELECT coalesce(jsonb_agg(jsonb_build_object('who', a.actor, 'what', a.what,
      'help_request_id', a.help_request_id, 'surface', a.surface, 'at', a.at) ORDER BY a.at), '[]')
    FROM access_log a WHERE a.institution_id = $1 AND (a.student_id = $2
      OR a.help_request_id IN (SELECT id FROM help_requests WHERE institution_id = $1 AND student_id = $2))`,
  writes: `SELECT coalesce(jsonb_agg(jsonb_build_object('who', a.actor, 'action', a.action, 'target', a.target,
      'at', a.at) ORDER BY a.at), '[]')
    FROM admin_audit a WHERE a.institution_id = $1 AND strpos(a.target, $2::text) > 0`,
  push_history: `SELECT coalesce(jsonb_agg(jsonb_build_object('run_id', r.id, 'kind', r.kind,
      'started_at', r.started_at, 'errors', r.errors) ORDER BY r.started_at), '[]')
    FROM sis_runs r, students s WHERE r.institution_id = $1 AND s.id = $2 AND r.error_count > 0
      AND (strpos(lower(r.errors::text), lower(s.email)) > 0 OR strpos(r.errors::text, s.student_id_ext) > 0)`,
};

export async function section(db: Queryable, name: string, institutionId: string, studentId: string) {
  const { rows } = await db.query<{ coalesce: unknown }>(sectionQueries[name], [institutionId, studentId]);
  return rows[0]?.coalesce ?? [];
}

/** What an erasure of the student would remove, for its confirmation. */
export async function erasurePreview(db: Queryable, institutionId: string, studentId: string) {
  const { rows } = await db.query<Record<string, number>>(
    `SELECT
       (SELECT count(*) FROM help_requests WHERE institution_id = $1 AND student_id = $2)::int AS help_requests,
       (SELECT count(*) FROM help_request_timeline t JOIN help_requests h ON h.id = t.help_request_id
         WHERE h.institution_id = $1 AND h.student_id = $2 AND t.note IS NOT NULL)::int AS notes,
       (SELECT count(*) FROM events e JOIN help_requests h ON h.id = e.help_request_id
         WHERE h.institution_id = $1 AND h.student_id = $2)::int AS events,
       (SELECT count(*) FROM notifications n JOIN help_requests h ON h.id = n.help_request_id
         WHERE h.institution_id = $1 AND h.student_id = $2)::int AS notifications,
       (SELECT count(*) FROM enrolments WHERE institution_id = $1 AND student_id = $2)::int AS enrolments,
       (SELECT count(*) FROM sessions WHERE student_id = $2)::int AS sessions,
       (SELECT count(*) FROM sign_in_links WHERE student_id = $2)::int AS sign_in_links`,
    [institutionId, studentId],
  );
  return rows[0];
}
