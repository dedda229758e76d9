// Admin API authentication: every route registered in a scope that calls this requires the
// operator bearer token.
import { bearerToken } from '../../lib/secrets.ts';
import type { Services } from '../../services.ts';
import type { App } from '../types.ts';

export function requireOperator(app: App, services: Services): void {
  app.addHook('onRequest', async (request) => {
    await services.operator.authenticate(bearerToken(request.headers.authorization));
  });
}
