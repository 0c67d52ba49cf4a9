/** Reading a payload path (its `*`, `~`, `(a|b)`, `{a,b}` and `[...]` steps) from a JSON value. */

/**
 * The value at a payload path. A `*` step goes into every element of a list, or every value of a
 * map (in key order); the result is then the list of what the rest of the path finds, lists
 * among them flattened.
 */
export function walk(root: unknown, path: readonly string[]): { many: boolean; value: unknown } {
  let many = false;
  let cur: unknown[] = [root];
  for (const seg of path) {
    const field = (v: unknown, k: string) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined);
    if (seg === '*') {
      many = true;
      cur = cur.flatMap((v) => (Array.isArray(v) ? v : v !== null && typeof v === 'object' ? Object.keys(v).sort().map((k) => (v as Record<string, unknown>)[k]) : []));
    } else if (seg === '~') {
      // the keys of a map, as one list value (so that `~.0` is the first), in the payload's order
      cur = cur.map(keysOf);
    } else if (seg.startsWith('(')) {
      // the first alternative sub-path that is present (neither absent nor null), per element
      const alternatives = seg.slice(1, -1).split('|').map((a) => a.split('.'));
      cur = cur.map((v) => {
        for (const alt of alternatives) {
          const x = alt.reduce<unknown>((o, k) => (k === '~' ? keysOf(o) : field(o, k)), v);
          if (x !== undefined && x !== null) return x;
        }
        return undefined;
      });
    } else if (seg.startsWith('{')) {
      many = true;
      const names = seg.slice(1, -1).split(',');
      cur = cur.flatMap((v) => names.map((k) => k.split('.').reduce<unknown>((o, f) => field(o, f), v)));
    } else {
      const k = seg.startsWith('[') ? seg.slice(1, -1) : seg;
      cur = cur.map((v) => field(v, k));
    }
  }
  return many ? { many, value: cur.flatMap((v) => (Array.isArray(v) ? v : [v])) } : { many, value: cur[0] };
}

/** The keys of a map (a JSON object), in its order; undefined for anything else. */
function keysOf(v: unknown): string[] | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v) : undefined;
}

export function valueAt(v: unknown, path: readonly string[]): unknown {
  return walk(v, path).value;
}
