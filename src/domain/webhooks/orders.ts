// The keyset orders of the webhook listings (./queries.ts selects each one's `sort_key`).
import type { KeysetOrder } from '../../lib/cursor.ts';

/** Endpoints oldest first. */
export const endpointOrder: KeysetOrder = { listing: 'webhook-endpoints', key: ['timestamp', 'uuid'] };
/** Deliveries newest first. */
export const deliveryOrder: KeysetOrder = { listing: 'webhook-deliveries', key: ['timestamp', 'uuid'] };
/** Attempts newest first. */
export const attemptOrder: KeysetOrder = { listing: 'webhook-attempts', key: ['int'] };
