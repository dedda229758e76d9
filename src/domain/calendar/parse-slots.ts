// The parse slots of one process, shared fairly between institutions.
//
// At most `slots` parse workers run at once (each may use a feed's memory limit), and one
// institution holds at most `perInstitution` of them: with the default 2 slots and 1 each, one
// institution's feeds, however many or however slow, parse one after another while another
// institution's feed takes the other slot at once. Waiting fetches are served round robin by
// institution (each institution's own in the order they asked), so an institution with many
// due feeds cannot push the others back either. The price: one institution's feeds never parse
// two at a time, even when no other institution is waiting (a parse is seconds; a feed is
// fetched at most every 5 minutes).

export interface SlotLimits {
  slots: number;
  perInstitution: number;
}

export interface SlotState {
  running: number;
  waiting: number;
  /** Running parses by institution id. */
  byInstitution: Record<string, number>;
}

export function createParseSlots(limits: SlotLimits) {
  const running = new Map<string, number>();
  let total = 0;
  // Institution id -> its waiting fetches; the Map's order is the round robin's.
  const waiting = new Map<string, (() => void)[]>();

  function pump(): void {
    while (total < limits.slots) {
      let picked: string | undefined;
      for (const id of waiting.keys())
        if ((running.get(id) ?? 0) < limits.perInstitution) {
          picked = id;
          break;
        }
      if (picked === undefined) return;
      const queue = waiting.get(picked) ?? [];
      const wake = queue.shift();
      // To the back of the round: the next free slot goes to another institution first.
      waiting.delete(picked);
      if (queue.length > 0) waiting.set(picked, queue);
      total++;
      running.set(picked, (running.get(picked) ?? 0) + 1);
      wake?.();
    }
  }

  function release(institutionId: string): void {
    total--;
    const left = (running.get(institutionId) ?? 1) - 1;
    if (left === 0) running.delete(institutionId);
    else running.set(institutionId, left);
    pump();
  }

  return {
    /** Waits for a slot for this institution; the answer gives it back (once, however often called). */
    async take(institutionId: string): Promise<() => void> {
      await new Promise<void>((resolve) => {
        const queue = waiting.get(institutionId);
        if (queue) queue.push(resolve);
        else waiting.set(institutionId, [resolve]);
        pump();
      });
      let released = false;
      return () => {
        if (released) return;
        released = true;
        release(institutionId);
      };
    },
    state(): SlotState {
      let queued = 0;
      for (const queue of waiting.values()) queued += queue.length;
      return { running: total, waiting: queued, byInstitution: Object.fromEntries(running) };
    },
  };
}
