// Erasing students (docs/privacy.md, "Erasure"): every place the data map names loses the
// student's data in one transaction per batch, in a fixed order of steps (the requests' words
// while the student row still names the actor, then push history, the OneRoster memory, audit
// paths, the access log, stored answers, and last the student row, whose enrolments, sessions and
// sign-in links go with it). The requests stay without the person, so statistics still count
// them; a `student.erased` event tells webhook receivers to erase too; a `student_erasures` row
// keeps who erased, when and how much, with a hash of the student's id so that erasing again
// answers "already erased". Irreversible: nothing is kept from which the data could be rebuilt.
import type { Db, Queryable } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { sha256Hex } from '../../lib/secrets.ts';
import { recordEvents } from '../events/record.ts';
import type { ErasureStepName } from './erasure-step-names.ts';
import {
  allowErasure,
  deleteStudents,
  dropIdempotencyKeys,
  findErasure,
  forgetInOneRoster,
  forgetInOneRosterMemory,
  forgetInOneRosterStaged,
  insertErasures,
  lockStudents,
  needlesOf,
  ownedRequests,
  redactAuditTargets,
  redactRequests,
  type StudentIdentity,
  scrubRuns,
  unlinkAccessLog,
} from './queries/erasure.ts';

export const STUDENT_ERASED_EVENT = 'student.erased';

/**
 * Students erased in one transaction: bounds a transaction's locks and length. The embedded
 * database runs one transaction at a time, so a batch is also how long a page request may wait
 * behind an erasure (bench/privacy.ts: about 8 ms a student there, under 2 ms on PostgreSQL).
 */
export const ERASURE_BATCH = 50;

/** Pause between batches, so that requests queued behind one get their turn before the next. */
const BATCH_PAUSE_MS = 20;

interface Batch {
  institutionId: string;
  students: StudentIdentity[];
  ids: string[];
  requestIds: string[];
  at: Date;
}

type Step = (tx: Queryable, batch: Batch) => Promise<Record<string, number>>;

/** Every step, in the order they run; the data map names which covers each table. */
export const erasureSteps: Record<ErasureStepName, Step> = {
  help_requests: (tx, b) => redactRequests(tx, b.institutionId, b.requestIds, b.at),
  run_errors: async (tx, b) => ({ runs: await scrubRuns(tx, b.institutionId, needlesOf(b.students)) }),
  oneroster_memory: async (tx, b) => {
    const exts = b.students.map((s) => s.student_id_ext);
    return {
      oneroster_sources: await forgetInOneRoster(tx, b.institutionId, exts),
      oneroster_memory: await forgetInOneRosterMemory(tx, b.institutionId, exts),
      oneroster_memory_staged: await forgetInOneRosterStaged(tx, b.institutionId, exts),
    };
  },
  audit_targets: async (tx, b) => ({ audit_lines: await redactAuditTargets(tx, b.institutionId, b.ids) }),
  access_log: async (tx, b) => ({ access_log: await unlinkAccessLog(tx, b.institutionId, b.ids) }),
  idempotency: async (tx, b) => ({ idempotency_keys: await dropIdempotencyKeys(tx, b.ids) }),
  students: async (tx, b) => ({ students: await deleteStudents(tx, b.institutionId, b.ids) }),
};

export function studentKey(institutionId: string, studentId: string): string {
  return sha256Hex(`${institutionId}:${studentId.toLowerCase()}`);
}

export interface ErasureMeta {
  reason: 'request' | 'retention';
  /** Who erased (a person's name, the operator, or "retention"). */
  erasedBy: string;
}

export interface ErasedStudent {
  student_id: string;
  erasure_id: string;
  help_request_ids: string[];
}

/**
 * Erases one batch (at most ERASURE_BATCH students) in one transaction; students not found are
 * skipped. Returns what was erased and the total counts.
 */
export async function eraseBatch(
  deps: { db: Db; clock: Clock },
  institutionId: string,
  studentIds: string[],
  meta: ErasureMeta,
) {
  return deps.db.transaction(async (tx) => {
    await allowErasure(tx);
    const students = await lockStudents(tx, institutionId, studentIds);
    if (students.length === 0) return { erased: [] as ErasedStudent[], removed: {} };
    const ids = students.map((s) => s.id);
    const owned = await ownedRequests(tx, institutionId, ids);
    const batch: Batch = {
      institutionId,
      students,
      ids,
      requestIds: owned.map((r) => r.id),
      at: deps.clock.now(),
    };
    const removed: Record<string, number> = {};
    for (const step of Object.values(erasureSteps)) {
      for (const [k, n] of Object.entries(await step(tx, batch))) removed[k] = (removed[k] ?? 0) + n;
    }
    const requestsOf = (id: string) => owned.filter((r) => r.student_id === id).map((r) => r.id);
    const inserted = await insertErasures(
      tx,
      institutionId,
      ids.map((id) => ({
        student_key: studentKey(institutionId, id),
        removed: { help_requests: requestsOf(id).length },
      })),
      { ...meta, at: batch.at },
    );
    const erasureOf = new Map(inserted.map((r) => [r.student_key, r.id]));
    const erased = ids.map((id) => ({
      student_id: id,
      erasure_id: erasureOf.get(studentKey(institutionId, id)) ?? '',
      help_request_ids: requestsOf(id),
    }));
    await recordEvents(
      tx,
      erased.map((e) => ({
        institutionId,
        type: STUDENT_ERASED_EVENT,
        data: {
          erasure_id: e.erasure_id,
          help_request_ids: e.help_request_ids,
          erased_at: batch.at.toISOString(),
        },
        occurredAt: batch.at,
      })),
    );
    return { erased, removed };
  });
}

/**
 * Erases one student at an admin's request: 200 with what went, or with `already_erased` when
 * this student was erased before (idempotent); 404 student_not_found for an id never seen.
 */
export async function eraseStudent(
  deps: { db: Db; clock: Clock },
  institutionId: string,
  studentId: string,
  erasedBy: string,
) {
  const valid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(studentId);
  if (valid) {
    const { erased, removed } = await eraseBatch(deps, institutionId, [studentId], {
      reason: 'request',
      erasedBy,
    });
    if (erased.length > 0) {
      return {
        erasure_id: erased[0].erasure_id,
        already_erased: false,
        help_request_ids: erased[0].help_request_ids,
        removed,
      };
    }
    const before = await findErasure(deps.db, institutionId, studentKey(institutionId, studentId));
    if (before) return { erasure_id: before.id, already_erased: true, help_request_ids: [], removed: {} };
  }
  throw new ApiError('student_not_found', { detail: `no student with id "${studentId}"` });
}

/** Erases many students, ERASURE_BATCH per transaction (retention, the benchmark). */
export async function eraseStudents(
  deps: { db: Db; clock: Clock },
  institutionId: string,
  studentIds: string[],
  meta: ErasureMeta,
): Promise<number> {
  let count = 0;
  for (let i = 0; i < studentIds.length; i += ERASURE_BATCH) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, BATCH_PAUSE_MS));
    const { erased } = await eraseBatch(deps, institutionId, studentIds.slice(i, i + ERASURE_BATCH), meta);
    count += erased.length;
  }
  return count;
}
