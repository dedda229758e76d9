// What the student pages (/app/) do, bound to their dependencies once. The caller is the
// signed-in student of a session (never an admin-API caller); every function takes that
// student and touches only their own data. The parts: home.ts (six weeks and events),
// own-requests.ts (their requests), crisis-contacts.ts (the institution's crisis contacts).
import type { Db } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { isStorableText } from '../../lib/text.ts';
import { type Category, categories, MAX_STUDENT_MESSAGE } from '../helpdesk/rules.ts';
import type { HelpRequestsService } from '../helpdesk/service.ts';
import { listCrisisContacts, replaceCrisisContacts } from './crisis-contacts.ts';
import { studentHome } from './home.ts';
import { listOwnRequests, markSeen, ownRequest, publicHistory, type StudentRef } from './own-requests.ts';

export const MAX_DESCRIPTION = 2000;

/** A help request as a student raises it, checked field by field. */
export interface RaiseInput {
  description: unknown;
  category: unknown;
  crisis: boolean;
}

export type RaiseProblem = { field: 'description' | 'category'; message: string };

/** The problems of a raise form, for people (empty when it can be sent). */
export function raiseProblems(input: RaiseInput): RaiseProblem[] {
  const problems: RaiseProblem[] = [];
  const description = typeof input.description === 'string' ? input.description.trim() : '';
  if (description === '') {
    problems.push({ field: 'description', message: 'Tell us briefly what you need help with.' });
  } else if (description.length > MAX_DESCRIPTION || !isStorableText(description)) {
    problems.push({
      field: 'description',
      message: `Keep the description under ${MAX_DESCRIPTION} characters (it is ${description.length}).`,
    });
  }
  // A crisis request may leave the category out: nothing must slow it down.
  if (!(input.crisis && (input.category === undefined || input.category === ''))) {
    if (!categories.includes(input.category as Category)) {
      problems.push({ field: 'category', message: 'Choose what your request is about.' });
    }
  }
  return problems;
}

/** What is wrong with a student's answer, for them (undefined when it can be sent). */
export function answerProblem(text: string): string | undefined {
  if (text.trim() === '') return 'Write your message before sending it.';
  if (text.length > MAX_STUDENT_MESSAGE || !isStorableText(text))
    return `Keep your message under ${MAX_STUDENT_MESSAGE} characters (it is ${text.length}).`;
  return undefined;
}

export function createStudentApp(deps: { db: Db; clock: Clock; helpRequests: HelpRequestsService }) {
  const { db, clock, helpRequests } = deps;
  return {
    home: (student: StudentRef) => studentHome(db, student, clock.now()),
    listRequests: (student: StudentRef, page = { limit: 100, offset: 0 }) =>
      listOwnRequests(db, student, page),
    /** The student's request and its conversation; showing it marks it read. */
    async request(student: StudentRef, id: string) {
      const request = await ownRequest(db, student, id);
      const history = await publicHistory(db, request);
      const last = history.at(-1);
      if (last) await markSeen(db, student, request, last.seq, clock.now());
      return { request, history };
    },
    /**
     * The student answers on their own request (../helpdesk/conversation.ts): 404 for a request
     * that is not theirs, 409 help_request_resolved once resolved, 429 after 20 in an hour.
     */
    answer: (student: StudentRef & { actor: string }, id: string, text: string) =>
      helpRequests.studentMessage(student.institutionId, id, {
        text,
        studentId: student.studentId,
        actor: student.actor.slice(0, 200),
      }),
    crisisContacts: (institutionId: string) => listCrisisContacts(db, institutionId),
    replaceCrisisContacts: (institutionId: string, value: unknown) =>
      replaceCrisisContacts(db, institutionId, value, clock.now()),

    /**
     * Raises a help request for the student through the help-request service (which records
     * help_request.created, and help_request.crisis for the crisis path). Throws 400
     * invalid_request with the problems when the form is not complete.
     */
    async raise(student: StudentRef & { actor: string }, input: RaiseInput) {
      const problems = raiseProblems(input);
      if (problems.length > 0) {
        throw new ApiError('invalid_request', {
          detail: problems[0].message,
          field: problems[0].field,
          problems,
        });
      }
      // A crisis request filed without a category has none: it is not "about something else".
      const category = categories.includes(input.category as Category)
        ? (input.category as Category)
        : undefined;
      return helpRequests.create(student.institutionId, {
        studentId: student.studentId,
        priority: input.crisis ? 'crisis' : 'normal',
        category,
        summary: (input.description as string).trim(),
        actor: student.actor.slice(0, 200),
      });
    },
  };
}

export type StudentApp = ReturnType<typeof createStudentApp>;
