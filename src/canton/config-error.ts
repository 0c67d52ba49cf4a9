/**
 * A configuration that cannot be used; the CLI prints one `configuration error: <problem>` line
 * per problem (each `<path>: <what>` where a path applies) and exits 1, without a stack trace.
 * In the kernel, not in config/: the modules whose options config/ assembles (the recipes, the
 * participant's durable state, the demo world) raise it too, and config/ sits above them.
 */
export class ConfigError extends Error {
  readonly problems: readonly string[];

  constructor(problems: string | readonly string[]) {
    const list = typeof problems === 'string' ? [problems] : [...problems];
    super(list.join('\n'));
    this.problems = list;
  }
}

/** Each issue of a failed zod parse as one `<path>: <what>` problem. */
export function zodProblems(error: { issues: ReadonlyArray<{ path: readonly PropertyKey[]; message: string }> }): string[] {
  return error.issues.map((i) => `${formatConfigPath(i.path)}: ${i.message}`);
}

/** `instruments[0].recipe`: a zod issue path as configuration errors write it. */
export function formatConfigPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}
