// A wake-up call inside one process: notify() calls every listener now. Nothing is queued or
// remembered: a signal nobody listens to is lost, which is fine for what it is used for (work
// asked for is stored, and a sleeping worker's own poll finds it later; the signal only spares
// the wait when the worker runs in the same process).

export interface Signal {
  notify(): void;
  /** Calls `listener` on each notify() until the returned function is called. */
  listen(listener: () => void): () => void;
}

export function createSignal(): Signal {
  const listeners = new Set<() => void>();
  return {
    notify() {
      for (const listener of listeners) listener();
    },
    listen(listener) {
      const own = () => listener();
      listeners.add(own);
      return () => listeners.delete(own);
    },
  };
}
