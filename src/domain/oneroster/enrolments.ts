// Enrollments of students as enrolment rows, streamed after the roster (whose keys they use).
// What each enrollment placed is remembered (known.ts): one whose class moved it to another unit
// or term withdraws the old enrolment, and one tobedeleted withdraws what it placed even when
// its class is in no export any more. What they placed is asked for a batch of records at a time
// (Placements): from the memory's map in this process (the pull, an older service), or from the
// service itself (`ssp push oneroster`), which then holds no enrollment of the memory at all.
// Two classes of one course and term (an old section tobedeleted, a new one active) name the
// same enrolment: enrolled wins over withdrawn whatever the order of the records, and a repeat
// of the same enrolment is sent once. Withdrawals are held to the end to know; the enrolments
// sent are held too, as placement strings packed outside V8's heap (about 30 bytes an
// enrolment for the benchmark's data).
import { PackedMap } from '../../lib/packed-map.ts';
import type { ClassPlace } from './catalogue.ts';
import { type KnownUpdate, placedOf, placement } from './known.ts';
import type { OneRosterMapping } from './mapping.ts';
import {
  deleted,
  type Mapped as Item,
  type Origin,
  type RecordSource,
  type SourceRecord,
} from './records.ts';

/** Enrollment records read, then looked up, at a time. */
export const PLACEMENT_BATCH = 2000;

/** What enrollments placed before this push or pull, and what they place once it is done. */
export interface Placements {
  /** What each of these enrollments placed before (placement() strings), for those that placed any. */
  before(sourcedIds: string[]): Promise<Map<string, string>>;
  /** What a batch of enrollments placed now (null: nothing any more), each a change. */
  now(changes: Map<string, string | null>): Promise<void>;
}

/** Placements in the memory's own map (known.ts): a pull, or a push to a service without the endpoint. */
export function placementsIn(known: KnownUpdate): Placements {
  return {
    async before(sourcedIds) {
      const out = new Map<string, string>();
      for (const id of sourcedIds) {
        const p = known.enrollments.get(id);
        if (p !== undefined) out.set(id, p);
      }
      return out;
    },
    async now(changes) {
      for (const [id, p] of changes) known.enrollment(id, p);
    },
  };
}

export interface EnrolmentContext {
  classes: Map<string, ClassPlace>;
  known: KnownUpdate;
  /** Where what enrollments placed is read and written (placementsIn(known) by default). */
  placements?: Placements;
  /**
   * Student user sourcedId -> student_id_ext of the students the users read left out as
   * tobedeleted (the memory forgot them); the others' keys are the memory's (known.students).
   */
  deletedKeys: Map<string, string>;
  /** Students left out for want of an email. */
  withoutEmail: Map<string, string>;
  studentRoles: string[];
  mapping: OneRosterMapping;
  counts: { repeats: number; merged: number; withoutEmail: number; moved: number };
}

/** One batch's view of what enrollments placed: the looked-up values, with the batch's own changes over them. */
class BatchPlacements {
  readonly changed = new Map<string, string | null>();
  private readonly looked: Map<string, string>;
  constructor(looked: Map<string, string>) {
    this.looked = looked;
  }

  get(sourcedId: string): string | undefined {
    if (this.changed.has(sourcedId)) return this.changed.get(sourcedId) ?? undefined;
    return this.looked.get(sourcedId);
  }

  /** What the enrollment places now (null: nothing); only a change is recorded. */
  set(sourcedId: string, placed: string | null): void {
    const before = this.get(sourcedId);
    if (placed === null ? before === undefined : before === placed) return;
    this.changed.set(sourcedId, placed);
  }
}

/** Records in batches of PLACEMENT_BATCH. */
async function* batches(source: AsyncIterable<SourceRecord>): AsyncGenerator<SourceRecord[]> {
  let batch: SourceRecord[] = [];
  for await (const record of source) {
    batch.push(record);
    if (batch.length >= PLACEMENT_BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
}

export async function* readEnrolments(
  enrollments: RecordSource,
  ctx: EnrolmentContext,
): AsyncGenerator<Item> {
  const placements = ctx.placements ?? placementsIn(ctx.known);
  const state: EnrolmentState = {
    ctx,
    // Outside V8's heap, as the memory's enrollments (packed-map.ts): the values are unused.
    enrolled: new PackedMap(),
    withdrawn: new Map<string, Item>(),
  };
  const isStudent = (r: SourceRecord) => ctx.studentRoles.includes((r.rec.role ?? '').toLowerCase());
  for await (const batch of batches(enrollments())) {
    const ids = batch.filter((r) => r.rec.sourcedid && isStudent(r)).map((r) => r.rec.sourcedid);
    const placed = new BatchPlacements(ids.length ? await placements.before(ids) : new Map());
    for (const record of batch) {
      if (!isStudent(record)) continue;
      const item = enrolmentOf(state, placed, record);
      if (item) yield item;
    }
    if (placed.changed.size) await placements.now(placed.changed);
  }
  for (const [key, item] of state.withdrawn) {
    if (state.enrolled.has(key)) ctx.counts.merged++;
    else yield item;
  }
}

interface EnrolmentState {
  readonly ctx: EnrolmentContext;
  readonly enrolled: PackedMap;
  readonly withdrawn: Map<string, Item>;
}

function withdraw(state: EnrolmentState, origin: Origin, key: string): void {
  if (state.withdrawn.has(key)) state.ctx.counts.repeats++;
  else {
    const [student, unit, term] = placedOf(key);
    state.withdrawn.set(key, {
      origin,
      row: { student_id_ext: student, unit_code: unit, term_code: term, status: 'withdrawn' },
    });
  }
}

/** One enrollment of a student: its enrolment row, a problem, or nothing (withdrawn, a repeat, left out). */
function enrolmentOf(
  state: EnrolmentState,
  placed: BatchPlacements,
  { origin, rec }: SourceRecord,
): Item | undefined {
  const { classes, known, deletedKeys, withoutEmail, mapping, counts } = state.ctx;
  if (withoutEmail.has(rec.usersourcedid)) {
    counts.withoutEmail++;
    return undefined;
  }
  // What this enrollment placed before: withdrawn when it leaves, or when it moved to another
  // unit or term (its class changed), whether or not its old class is in any export.
  const before = rec.sourcedid ? placed.get(rec.sourcedid) : undefined;
  if (before && deleted(rec)) {
    withdraw(state, origin, before);
    placed.set(rec.sourcedid, null);
    return undefined;
  }
  const knownClass = known.classes.get(rec.classsourcedid);
  const cls: ClassPlace | undefined =
    classes.get(rec.classsourcedid) ??
    (knownClass ? { unit: knownClass[0], term: knownClass[1], deleted: false } : undefined);
  const student =
    known.students.get(rec.usersourcedid)?.[0] ??
    deletedKeys.get(rec.usersourcedid) ??
    (mapping.studentId === 'sourcedId' ? rec.usersourcedid : undefined);
  const missing = !cls
    ? `class ${rec.classsourcedid} is neither in this export's classes nor known from an earlier push`
    : !cls.unit
      ? `the course of class ${rec.classsourcedid} is neither in this export's courses nor known from an earlier push`
      : !cls.term
        ? `class ${rec.classsourcedid} has no academic session`
        : !student
          ? `user ${rec.usersourcedid} is not a student of this export nor of an earlier push`
          : undefined;
  if (missing) return { origin, problem: { code: 'unmapped', message: missing } };
  const key = placement(student!, cls!.unit!, cls!.term!);
  if (before && before !== key) {
    counts.moved++;
    withdraw(state, origin, before);
  }
  // Never deleted: a removed enrolment is withdrawn (docs/enrolments.md).
  if (deleted(rec) || cls!.deleted) {
    withdraw(state, origin, key);
    if (rec.sourcedid) placed.set(rec.sourcedid, null);
    return undefined;
  }
  if (rec.sourcedid) placed.set(rec.sourcedid, key);
  if (state.enrolled.has(key)) {
    counts.repeats++;
    return undefined;
  }
  state.enrolled.set(key, '');
  return {
    origin,
    row: { student_id_ext: student, unit_code: cls!.unit, term_code: cls!.term, status: 'enrolled' },
  };
}
