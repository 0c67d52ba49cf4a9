/**
 * Lists as the evaluator builds and takes apart: `Cons` onto a list and the tail in a `cons`
 * pattern are O(1) here, where copying arrays would make every recursive list function of Daml
 * (`map`, `filter`, a `case xs of x :: rest`) quadratic.
 *
 * Both forms are ordinary `ListV` values (lf-value/runtime-value.ts) for everyone else: `items` is an own,
 * enumerable property whose array is built on first read and kept. Only the evaluator looks at
 * the structure behind it.
 */
import { EMPTY_LIST, type ListV, type Value } from '../lf-value/runtime-value.js';

/** `front[offset..]` followed by the items of `rest` (a cons cell), or the suffix `front[offset..]` of an array (`rest` undefined). */
class LazyList implements ListV {
  readonly tag = 'list' as const;
  declare readonly items: readonly Value[];
  readonly #front: readonly Value[];
  readonly #offset: number;
  readonly #rest: ListV | undefined;
  #cached: readonly Value[] | undefined;
  constructor(front: readonly Value[], offset: number, rest: ListV | undefined) {
    this.#front = front;
    this.#offset = offset;
    this.#rest = rest;
    Object.defineProperty(this, 'items', { enumerable: true, get: () => (this.#cached ??= this.#materialize()) });
  }

  #materialize(): readonly Value[] {
    if (this.#rest === undefined) return this.#offset === 0 ? this.#front : this.#front.slice(this.#offset);
    const out: Value[] = [];
    let l: ListV = this;
    // Walk cons cells iteratively (a list built by recursion is a long chain).
    while (l instanceof LazyList && l.#rest !== undefined && l.#cached === undefined) {
      for (let i = l.#offset; i < l.#front.length; i++) out.push(l.#front[i]!);
      l = l.#rest;
    }
    for (const x of l.items) out.push(x);
    return out;
  }

  static isEmpty(l: ListV): boolean {
    if (l instanceof LazyList) return l.#rest === undefined && l.#offset >= l.#front.length;
    return l.items.length === 0;
  }

  static uncons(l: ListV): [Value, ListV] {
    if (l instanceof LazyList) {
      const head = l.#front[l.#offset]!;
      const next = l.#offset + 1;
      if (next < l.#front.length) return [head, new LazyList(l.#front, next, l.#rest)];
      return [head, l.#rest ?? EMPTY_LIST];
    }
    const items = l.items;
    return [items[0]!, items.length === 1 ? EMPTY_LIST : new LazyList(items, 1, undefined)];
  }
}

/** `front ++ tail`, without copying `tail`. */
export function consList(front: readonly Value[], tail: ListV): ListV {
  if (front.length === 0) return tail;
  return new LazyList(front, 0, tail);
}

/** Whether the list is empty, without materializing it. */
export const isEmptyList: (l: ListV) => boolean = LazyList.isEmpty;

/** Head and tail of a non-empty list, in O(1). */
export const unconsList: (l: ListV) => [Value, ListV] = LazyList.uncons;
