/**
 * A result that is there at once when everything it needs is in memory (a warm factory request:
 * the index has the contracts) and only later when the ledger must be asked. The registry's POST
 * path passes such results through without awaiting them, so a warm answer is computed and
 * written in the same call stack: no promise, no microtask per layer (recipe, service, endpoint,
 * dispatcher), which the registry benchmark measured as a large part of a warm answer's cost.
 */
export type MaybePromise<T> = T | Promise<T>;

export function isPromise<T>(v: MaybePromise<T>): v is Promise<T> {
  return v instanceof Promise;
}

/** `f` of the value: now when it is there, else when it arrives. */
export function thenMaybe<T, U>(v: MaybePromise<T>, f: (t: T) => U): MaybePromise<U> {
  return isPromise(v) ? v.then(f) : f(v);
}
