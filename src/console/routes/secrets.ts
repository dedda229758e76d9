import type { App } from '../../http/types.ts';
import type { Services } from '../../services.ts';

export function secretRoutes(_app: App, _services: Services): void {}
