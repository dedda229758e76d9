// Liveness (the process answers) and readiness (the database answers) for a load balancer.
import { Type } from 'typebox';
import { ping } from '../../db/probes.ts';
import type { App } from '../types.ts';
import { errorResponses } from './schemas.ts';

export function healthRoutes(app: App): void {
  const Status = Type.Object({ status: Type.String() });
  app.get(
    '/health/live',
    {
      config: { access: 'public' },
      schema: { tags: ['health'], summary: 'Liveness', response: { 200: Status } },
    },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/health/ready',
    {
      config: { access: 'public' },
      schema: {
        tags: ['health'],
        summary: 'Readiness: the database answers',
        response: { 200: Status, ...errorResponses(503) },
      },
    },
    async (request, reply) => {
      try {
        await ping(request.deps.db);
        return { status: 'ok' };
      } catch {
        return reply
          .status(503)
          .header('retry-after', '2')
          .send({ error: 'database_unavailable', detail: 'the database does not answer' });
      }
    },
  );
}
