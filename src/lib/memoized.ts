// A function's answers kept by their argument, for a pure function that costs more than a map
// lookup and is asked the same few things again and again (once per delivery, say). The answers
// kept are bounded: past `max` the set starts again, so a stream of new arguments cannot grow it.
export function memoized<V>(fn: (key: string) => V, max = 1000): (key: string) => V {
  const kept = new Map<string, V>();
  return (key) => {
    let value = kept.get(key);
    if (value === undefined) {
      if (kept.size >= max) kept.clear();
      value = fn(key);
      kept.set(key, value);
    }
    return value;
  };
}
