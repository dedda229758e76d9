// The state table of spec section 3: from status, action, next status, whether it changed.
export type Status = 'new' | 'ack' | 'in_progress' | 'resolved';

export const stateTable: [from: Status, action: string, to: Status, changed: boolean][] = [
  ['new', 'acknowledge', 'ack', true],
  ['ack', 'acknowledge', 'ack', false],
  ['in_progress', 'acknowledge', 'in_progress', false],
  ['resolved', 'acknowledge', 'resolved', false],
  ['new', 'resolve', 'resolved', true],
  ['ack', 'resolve', 'resolved', true],
  ['in_progress', 'resolve', 'resolved', true],
  ['resolved', 'resolve', 'resolved', false],
  ['resolved', 'reopen', 'in_progress', true],
  ['new', 'reopen', 'new', false],
  ['ack', 'reopen', 'ack', false],
  ['in_progress', 'reopen', 'in_progress', false],
];
