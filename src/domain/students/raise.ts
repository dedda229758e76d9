// A student raises a help request from the student pages (with a crisis path): the form's checks,
// for people, and the request raised through the help desk (../helpdesk/requests.ts), which records
// help_request.created, and help_request.crisis for the crisis path.
import { ApiError } from '../../errors.ts';
import { isStorableText } from '../../lib/text.ts';
import type { Deps } from '../deps.ts';
import { createHelpRequest } from '../helpdesk/requests.ts';
import { type Category, categories } from '../helpdesk/rules.ts';
import type { StudentRef } from './model.ts';

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

/**
 * Raises a help request for the student. Throws 400 invalid_request with the problems when the
 * form is not complete.
 */
export async function raiseHelpRequest(
  deps: Pick<Deps, 'db' | 'clock'>,
  student: StudentRef & { actor: string },
  input: RaiseInput,
) {
  const problems = raiseProblems(input);
  if (problems.length > 0) {
    throw new ApiError('invalid_request', {
      detail: problems[0].message,
      field: problems[0].field,
      problems,
    });
  }
  // A crisis request filed without a category has none: it is not "about something else".
  const category = categories.includes(input.category as Category) ? (input.category as Category) : undefined;
  return createHelpRequest(deps, student.institutionId, {
    studentId: student.studentId,
    priority: input.crisis ? 'crisis' : 'normal',
    category,
    summary: (input.description as string).trim(),
    actor: student.actor.slice(0, 200),
  });
}
