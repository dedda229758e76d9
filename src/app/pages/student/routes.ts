// The student pages at /app/: home (their six weeks and its events), raising a help request
// (with a crisis path), and their own requests. Students only: a signed-in staff member or
// operator is sent to /console/, and a browser without a session to sign-in.
//
// Every page declares `access: 'student'`: the request context resolves the session and hands
// the student (institution and id from the session, never from the URL) to the student area's
// functions (src/domain/students/), with `request.deps`; forms post with the CSRF token in
// `_csrf`, checked by the context once the body is parsed. Pages render on their own surface
// (layout and stylesheet student.css); every failure is a page with a code, never a stack trace,
// and never a 5xx for bad input.

import { randomUUID } from 'node:crypto';
import type { Eta } from 'eta';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../../../domain/access/policy.ts';
import { listCrisisContacts } from '../../../domain/students/crisis-contacts.ts';
import { studentHome } from '../../../domain/students/home.ts';
import type { StudentRef } from '../../../domain/students/model.ts';
import {
  answerOwnRequest,
  answerProblem,
  listOwnRequests,
  readOwnRequest,
} from '../../../domain/students/own-requests.ts';
import { type RaiseProblem, raiseHelpRequest, raiseProblems } from '../../../domain/students/raise.ts';
import { ApiError } from '../../../errors.ts';
import { csrfToken } from '../../context/session-cookies.ts';
import type { App } from '../../types.ts';
import { registerSurface, type Surface, signInFor } from '../page-scope.ts';
import { studentViewHelpers } from './format.ts';

type StudentCaller = Extract<Caller, { kind: 'student' }>;

function studentOf(request: FastifyRequest): StudentCaller & StudentRef {
  const caller = request.caller;
  if (caller?.kind !== 'student') throw new Error('studentOf: the request did not pass the student scope');
  return caller;
}

const formFields = (body: unknown): Record<string, unknown> =>
  typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};

const firstString = (value: unknown): string | undefined =>
  typeof value === 'string'
    ? value
    : Array.isArray(value) && typeof value[0] === 'string'
      ? value[0]
      : undefined;

/** The student pages as a page surface (src/app/pages/page-scope.ts). */
const studentSurface: Surface = {
  prefix: '/app',
  layout: 'student/layout.eta',
  errorTemplate: 'student/error.eta',
  failure: {
    status: 500,
    code: 'internal_error',
    message:
      'The page could not be shown. Try again in a minute. If you need help urgently, use the contacts on the urgent help page.',
  },
  frame(request, reply) {
    const caller = request.caller?.kind === 'student' ? request.caller : undefined;
    return {
      ...studentViewHelpers(caller?.timeZone ?? 'UTC'),
      signedIn: Boolean(caller),
      actor: caller?.actor,
      csrf: caller ? (csrfToken(request, reply) ?? '') : '',
      // A form shown again after its post names the page it belongs to (the page may override it).
      path: request.url.split('?')[0],
    };
  },
  // An archived institution's students are told, plainly, that the service is not available
  // (docs/archiving.md): no tabs or links to pages that would say the same.
  errorData: (_request, failure) =>
    failure.code === 'institution_archived' ? { title: 'Service not available', unavailable: true } : {},
  redirect(request, error) {
    if (error.code === 'unauthorized') return signInFor(request);
    // The student pages are for students; staff and operators have the console.
    if (error.code === 'forbidden' && request.caller && request.caller.kind !== 'student') return '/console/';
    return undefined;
  },
};

export async function registerStudentPages(parent: App, engine: Eta): Promise<void> {
  await registerSurface(parent, engine, studentSurface, (app) => {
    homeRoutes(app);
    raiseRoutes(app);
    ownRequestRoutes(app);
  });
}

/** Home (their six weeks, their latest requests) and the list of their requests. */
function homeRoutes(app: App): void {
  app.get('/', { config: { access: 'student' }, schema: { hide: true } }, async (request, reply) => {
    const student = studentOf(request);
    const [home, requests] = await Promise.all([
      studentHome(request.deps, student),
      listOwnRequests(request.deps.db, student, { limit: 3, offset: 0 }),
    ]);
    return reply.render('student/home.eta', { title: 'Home', ...home, requests });
  });

  app.get('/requests', { config: { access: 'student' }, schema: { hide: true } }, async (request, reply) => {
    const requests = await listOwnRequests(request.deps.db, studentOf(request));
    return reply.render('student/requests.eta', { title: 'My requests', requests });
  });
}

/** The help form (or the crisis form), with the problems of a post shown again. */
async function raiseForm(
  request: FastifyRequest,
  reply: FastifyReply,
  crisis: boolean,
  values: { description?: string; category?: string } = {},
  problems: RaiseProblem[] = [],
  idempotencyKey?: string,
) {
  const institutionId = studentOf(request).institutionId;
  const contacts = crisis ? await listCrisisContacts(request.deps.db, institutionId) : [];
  return reply.render(
    'student/raise.eta',
    {
      title: crisis ? 'Urgent help' : 'Ask for help',
      path: crisis ? '/app/crisis' : '/app/requests/new',
      crisis,
      contacts,
      values,
      problems,
      problemOf: (field: string) => problems.find((p) => p.field === field)?.message,
      // One key per form shown: the same form posted twice (a double tap, a retry on a bad
      // connection) raises one request (src/app/context/idempotency.ts). A form shown again
      // after a refusal keeps the key it was posted with.
      idempotencyKey: idempotencyKey ?? randomUUID(),
    },
    problems.length > 0 ? 400 : 200,
  );
}

/** Asking for help: the forms and the post that raises the request. */
function raiseRoutes(app: App): void {
  app.get(
    '/requests/new',
    { config: { access: 'student' }, schema: { hide: true } },
    async (request, reply) => raiseForm(request, reply, false),
  );
  app.get('/crisis', { config: { access: 'student' }, schema: { hide: true } }, async (request, reply) =>
    raiseForm(request, reply, true),
  );

  app.post(
    '/requests',
    { config: { access: 'student', idempotent: true }, schema: { hide: true } },
    async (request, reply) => {
      const student = studentOf(request);
      const body = formFields(request.body);
      const input = {
        description: firstString(body.description),
        category: firstString(body.category),
        crisis: firstString(body.crisis) === '1',
      };
      const problems = raiseProblems(input);
      if (problems.length > 0) {
        return raiseForm(
          request,
          reply,
          input.crisis,
          { description: input.description, category: input.category?.slice(0, 50) },
          problems,
          firstString(body._idempotency_key)?.slice(0, 255),
        );
      }
      const created = await raiseHelpRequest(request.deps, student, input);
      return reply.header('cache-control', 'no-store').redirect(`/app/requests/${created.id}?raised=1`, 303);
    },
  );
}

/** A request's page: its conversation and the answer form (`answer`: a post shown again). */
async function requestPage(
  request: FastifyRequest,
  reply: FastifyReply,
  answer: { text?: string; problem?: string; key?: string } = {},
  status = 200,
) {
  const student = studentOf(request);
  const { id } = request.params as { id: string };
  const { request: own, history } = await readOwnRequest(request.deps, student, id);
  const crisis = own.priority === 'crisis';
  const contacts = crisis ? await listCrisisContacts(request.deps.db, student.institutionId) : [];
  const query = request.query as { raised?: unknown; answered?: unknown } | undefined;
  return reply.render(
    'student/request.eta',
    {
      title: 'Help request',
      request: own,
      history,
      crisis,
      contacts,
      raised: query?.raised === '1',
      answered: query?.answered === '1',
      answer: answer.text,
      answerProblem: answer.problem,
      // One key per form shown, as on the help form: a double tap sends one message.
      idempotencyKey: answer.key ?? randomUUID(),
    },
    status,
  );
}

/** A request of theirs, and their answer on it. */
function ownRequestRoutes(app: App): void {
  app.get(
    '/requests/:id',
    { config: { access: 'student' }, schema: { hide: true } },
    async (request, reply) => requestPage(request, reply),
  );

  // The student's answer on their own request (docs/student-app.md): 404 for anyone else's.
  app.post(
    '/requests/:id/messages',
    { config: { access: 'student', idempotent: true }, schema: { hide: true } },
    async (request, reply) => {
      const student = studentOf(request);
      const { id } = request.params as { id: string };
      const body = formFields(request.body);
      const text = (firstString(body.message) ?? '').replace(/\s+$/, '');
      const key = firstString(body._idempotency_key)?.slice(0, 255);
      const problem = answerProblem(text);
      if (problem) return requestPage(request, reply, { text, problem, key }, 400);
      try {
        await answerOwnRequest(request.deps, student, id, text);
      } catch (error) {
        const said = answerRefusal(error, text);
        if (!said) throw error;
        return requestPage(request, reply, { text, problem: said.message, key }, said.status);
      }
      return reply
        .header('cache-control', 'no-store')
        .redirect(`/app/requests/${id}?answered=1#conversation`, 303);
    },
  );
}

/** What the answer form says of a refusal the student can act on; undefined for anything else. */
function answerRefusal(error: unknown, text: string): { message: string; status: number } | undefined {
  if (!(error instanceof ApiError)) return undefined;
  if (error.code === 'rate_limited')
    return {
      status: 429,
      message:
        'You have sent many messages in the last hour. Wait a little, or use urgent help if you need someone now.',
    };
  if (error.code === 'help_request_resolved')
    return {
      status: 409,
      message: 'This request is resolved, so it takes no more messages. Ask for help again instead.',
    };
  if (error.code === 'invalid_field')
    return { status: 400, message: answerProblem(text) ?? 'Check your message and send it again.' };
  return undefined;
}
