/**
 * Load-time validation of a declarative recipe: the structure (DeclarativeRecipeSchema, after the
 * definitions are expanded), then how the parts fit together (which value expression roots are
 * allowed where, `$args` paths against the choice arguments, names and their cycles), every
 * problem reported at once.
 */
import { zodProblems } from '../../../canton/config-error.js';
import { unusedDefinitions } from './schema/definitions.js';
import { type DeclarativeRecipeConfig, DeclarativeRecipeSchema } from './schema/document.js';
import { ALLOCATION_ACTIONS, ALLOCATION_INSTRUCTION_ACTIONS, checkArgsPath, FACTORY_ENDPOINTS, type FactoryEndpoint, TRANSFER_FACTORY_ENDPOINTS, TRANSFER_INSTRUCTION_ACTIONS } from './schema/endpoints.js';
import { templateParts, termExpressions } from './schema/messages.js';
import { parseValueExpr, type ValueExpr } from './schema/paths-and-values.js';
import { operandExpressions, type Predicate, predicateExpressions } from './schema/predicates.js';
import { expressionsOf, type MatchValue } from './schema/selectors.js';

export class RecipeConfigError extends Error {
  constructor(
    readonly recipe: string,
    readonly problems: readonly string[],
  ) {
    super(`declarative recipe ${recipe} is invalid (${problems.length} problem${problems.length > 1 ? 's' : ''}):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

export interface ValidatedRecipe {
  config: DeclarativeRecipeConfig;
  /** Allowed but doubtful (e.g. a context key that is not DNS-prefixed). */
  warnings: string[];
}

/** DNS-prefixed key: `<dns-subdomain with a dot>/<name>`, the k8s annotation syntax. */
const DNS_PREFIXED = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+\/([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$/;

/**
 * Validates one declarative recipe document. Throws `RecipeConfigError` listing every problem
 * (structure first; then, if the structure is sound, how the parts fit together).
 */
export function validateDeclarativeRecipe(json: unknown): ValidatedRecipe {
  const label = (json !== null && typeof json === 'object' && typeof (json as { name?: unknown }).name === 'string' ? `"${(json as { name: string }).name}"` : '(unnamed)');
  const parsed = DeclarativeRecipeSchema.safeParse(json);
  if (!parsed.success) {
    throw new RecipeConfigError(
      label,
      zodProblems(parsed.error),
    );
  }
  const config = parsed.data;
  const problems: string[] = [];
  const warnings: string[] = [];
  const configured = FACTORY_ENDPOINTS.filter((e) => config.factories[e] !== undefined);

  const checkKey = (key: string, at: string) => {
    if (!DNS_PREFIXED.test(key)) {
      warnings.push(`${at}: context key "${key}" is not DNS-prefixed (e.g. "acme.example.com/${key.replace(/^.*\//, '') || 'name'}"); prefixed keys avoid clashes with other token implementations`);
    }
  };
  /** Checks the value expressions of a selector or entry where it is used (which roots, which names, which `$args` paths). */
  const checkMatch = (
    entry: { match: Record<string, MatchValue>; value?: string | boolean | null | undefined; missingError?: string | undefined; when?: { found?: string | undefined; missing?: string | undefined } | undefined },
    at: string,
    where: { endpoints: readonly FactoryEndpoint[]; restrictable: boolean; names: ReadonlySet<string>; forEach?: boolean; lets?: ReadonlySet<string>; whenMissing?: boolean } | { perContract: true; names: ReadonlySet<string> },
    extra: ReadonlyArray<{ at: string; raw: string | boolean | null; expr: ValueExpr | string }> = [],
  ) => {
    for (const { at: sub, raw, expr: e } of [...expressionsOf(entry), ...extra]) {
      const here = sub === '' ? at : `${at}.${sub}`;
      if (typeof e === 'string') {
        problems.push(`${here}: ${e}`);
        continue;
      }
      if (e.kind === 'args') {
        if ('perContract' in where) {
          problems.push(`${here}: "${String(raw)}": per-contract choice contexts have no choice arguments; use $contract.<path> (the contract's payload), $admin or a literal`);
          continue;
        }
        for (const ep of where.endpoints) {
          const err = checkArgsPath(ep, e.path);
          if (err) problems.push(`${here}: "${String(raw)}" (for ${ep}) ${err}${where.restrictable ? '; if the entry is not meant for this endpoint, restrict it with "endpoints"' : ''}`);
        }
      }
      if ((e.kind === 'contract' || e.kind === 'contractId') && !('perContract' in where)) {
        problems.push(`${here}: "${String(raw)}": $contract and $contractId are only available in the contextEntries of transferInstructions, allocationInstructions and allocations; factory requests use $args.<path>`);
      }
      if ((e.kind === 'ref' || e.kind === 'found') && !where.names.has(e.name)) {
        problems.push(`${here}: "${String(raw)}": no entry${'perContract' in where ? '' : ' or transferKind.direct rule'} here is named "${e.name}"${where.names.size > 0 ? ` (names: ${[...where.names].join(', ')})` : ''}`);
      }
      if (e.kind === 'item' && sub !== 'missingError' && !('forEach' in where && where.forEach)) problems.push(`${here}: $item is only available in missingError and in the checks of a refusal with forEach`);
      if (e.kind === 'itemContract' && !('forEach' in where && where.forEach)) problems.push(`${here}: $itemContract is only available in the checks of a refusal with forEach`);
      if (e.kind === 'missing' && !(sub === 'error' && 'whenMissing' in where && where.whenMissing)) problems.push(`${here}: $missing is only available in the error of a check with whenMissing (the element it found nothing for)`);
      if (e.kind === 'let' && !('lets' in where && where.lets?.has(e.name))) {
        const lets = 'lets' in where && where.lets ? [...where.lets] : [];
        problems.push(`${here}: "${String(raw)}": no let value ${lets.length > 0 ? `before it is named "${e.name}" (let: ${lets.join(', ')})` : `is named "${e.name}"`}; $let.<name> reads a value of the refusal's own "let"`);
      }
      if (sub === 'match.$id' && e.kind === 'literal' && typeof e.value !== 'string') {
        problems.push(`${here}: the contract id to match must be a string expression`);
      }
    }
    const named = entry.when?.found ?? entry.when?.missing;
    if (named !== undefined && !where.names.has(named)) problems.push(`${at}.when: no entry here is named "${named}"${where.names.size > 0 ? ` (names: ${[...where.names].join(', ')})` : ''}`);
  };
  const namesOf = (xs: ReadonlyArray<{ name?: string | undefined }>) => new Set(xs.flatMap((x) => (x.name === undefined ? [] : [x.name])));
  /** A refusal's `after`: each name is a context entry of every endpoint or choice the rule applies to. */
  const checkAfter = (after: readonly string[] | undefined, at: string, scopes: ReadonlyArray<{ what: string; names: ReadonlySet<string> }>) => {
    (after ?? []).forEach((name, j) => {
      const without = scopes.filter((x) => !x.names.has(name)).map((x) => x.what);
      if (without.length > 0) problems.push(`${at}.after[${j}]: no context entry of ${without.join(', ')} is named "${name}"; "after" names entries the rule's endpoints (or choices) look up`);
    });
  };
  const direct = config.transferKind?.direct === undefined ? [] : Array.isArray(config.transferKind.direct) ? config.transferKind.direct : [config.transferKind.direct];
  const factoryNames = new Set([...namesOf(config.contextEntries), ...namesOf(direct)]);

  if (configured.length === 0 && !config.transferInstructions && !config.allocationInstructions && !config.allocations) {
    problems.push('factories: the recipe configures no factory and no per-contract object; configure at least one of factories.' + FACTORY_ENDPOINTS.join(', factories.'));
  }
  for (const ep of configured) {
    const f = config.factories[ep]!;
    checkMatch(f, `factories.${ep}`, { endpoints: [ep], restrictable: false, names: factoryNames });
    if (f.discloseAfter !== undefined && !factoryNames.has(f.discloseAfter)) {
      problems.push(`factories.${ep}.discloseAfter: no context entry or transferKind.direct rule is named "${f.discloseAfter}"${factoryNames.size > 0 ? ` (names: ${[...factoryNames].join(', ')})` : ''}`);
    }
  }

  // Factory context entries: endpoints must be configured; keys unique per endpoint.
  const keysByEndpoint = new Map<string, Map<string, string>>();
  const claimKey = (endpoint: string, key: string | undefined, at: string, list = false) => {
    if (key === undefined) return;
    let m = keysByEndpoint.get(endpoint);
    if (!m) keysByEndpoint.set(endpoint, (m = new Map()));
    const prev = m.get(key);
    // `list` entries may share a key (one list); the prefix marks them.
    if (list && prev?.startsWith('list:')) return;
    if (prev) problems.push(`${at}.key: duplicate key "${key}" for ${endpoint} (also ${prev.replace(/^list:/, '')}); give each entry of an endpoint its own key, or split them with "endpoints"`);
    else m.set(key, list ? `list:${at}` : at);
  };
  config.contextEntries.forEach((entry, i) => {
    const at = `contextEntries[${i}]`;
    if (entry.key !== undefined) checkKey(entry.key, `${at}.key`);
    const unknown = (entry.endpoints ?? []).filter((e) => !configured.includes(e));
    if (unknown.length > 0) {
      problems.push(
        `${at}.endpoints: ${unknown.join(', ')} ${unknown.length > 1 ? 'are' : 'is'} not configured in "factories" (configured: ${configured.join(', ') || 'none'})`,
      );
    }
    const endpoints = (entry.endpoints ?? configured).filter((e) => configured.includes(e));
    checkMatch(entry, at, { endpoints, restrictable: entry.endpoints === undefined, names: factoryNames }, entry.if ? predicateExpressions(entry.if, 'if') : []);
    for (const ep of endpoints) claimKey(ep, entry.key, at, entry.as === 'list');
    checkIdMatch(entry, at, problems);
  });

  config.refuse.forEach((rule, i) => {
    const at = `refuse[${i}]`;
    const unknown = (rule.endpoints ?? []).filter((e) => !configured.includes(e));
    if (unknown.length > 0) problems.push(`${at}.endpoints: ${unknown.join(', ')} ${unknown.length > 1 ? 'are' : 'is'} not configured in "factories" (configured: ${configured.join(', ') || 'none'})`);
    const endpoints = (rule.endpoints ?? configured).filter((e) => configured.includes(e));
    if (rule.transferKinds !== undefined && endpoints.some((e) => !(TRANSFER_FACTORY_ENDPOINTS as readonly string[]).includes(e))) {
      problems.push(`${at}.transferKinds: only transfer factories have a transfer kind; restrict the rule with "endpoints": ["transferFactory.v1" and/or "transferFactory.v2"]`);
    }
    type Found = { at: string; raw: string | boolean | null; expr: ValueExpr | string };
    const messageExpressions = (text: string, sub: string): Found[] =>
      templateParts(text).flatMap((p): Found[] => (typeof p === 'string' ? [] : 'error' in p ? [{ at: sub, raw: text, expr: p.error }] : termExpressions(p.term).map((x) => ({ at: sub, raw: x.text, expr: x.expr }))));
    // each let value reads the ones before it; the checks read them all
    const lets = new Set<string>();
    for (const [name, o] of Object.entries(rule.let ?? {})) {
      checkMatch({ match: {} }, `${at}.let.${name}`, { endpoints, restrictable: rule.endpoints === undefined, names: factoryNames, lets: new Set(lets) }, operandExpressions(o, ''));
      lets.add(name);
    }
    const where = { endpoints, restrictable: rule.endpoints === undefined, names: factoryNames, lets };
    checkAfter(rule.after, at, endpoints.map((ep) => ({ what: ep, names: namesOf(config.contextEntries.filter((e) => (e.endpoints ?? configured).includes(ep))) })));
    if (rule.forEach === undefined) {
      checkMatch({ match: {} }, at, where, [...(rule.when ? predicateExpressions(rule.when, 'when') : []), ...messageExpressions(rule.error ?? '', 'error')]);
    } else {
      checkMatch({ match: {} }, at, where, [{ at: 'forEach', raw: rule.forEach, expr: parseValueExpr(rule.forEach) }]);
      (rule.checks ?? []).forEach((c, j) => {
        const check = `${at}.checks[${j}]`;
        checkMatch({ match: {} }, check, { ...where, forEach: true, whenMissing: c.whenMissing !== undefined }, [...(c.when ? predicateExpressions(c.when, 'when') : []), ...messageExpressions(c.error, 'error')]);
        if (c.whenMissing) {
          checkMatch(c.whenMissing, `${check}.whenMissing`, { ...where, forEach: true });
          checkIdMatch(c.whenMissing, `${check}.whenMissing`, problems);
        }
      });
    }
  });

  const transferConfigured = TRANSFER_FACTORY_ENDPOINTS.filter((e) => configured.includes(e));
  if (direct.length > 0 && transferConfigured.length === 0) {
    problems.push('transferKind.direct: no transfer factory is configured (factories.transferFactory.v1 or .v2)');
  }
  direct.forEach((rule, i) => {
    const at = Array.isArray(config.transferKind!.direct) ? `transferKind.direct[${i}]` : 'transferKind.direct';
    const unknown = (rule.endpoints ?? []).filter((e) => !transferConfigured.includes(e));
    if (unknown.length > 0) problems.push(`${at}.endpoints: ${unknown.join(', ')} not configured in "factories" (configured: ${transferConfigured.join(', ') || 'none'})`);
    const endpoints = (rule.endpoints ?? transferConfigured).filter((e) => transferConfigured.includes(e));
    checkMatch(rule, at, { endpoints, restrictable: rule.endpoints === undefined, names: factoryNames });
    if (rule.key !== undefined) {
      checkKey(rule.key, `${at}.key`);
      for (const ep of endpoints) claimKey(ep, rule.key, at);
    }
    checkIdMatch(rule, at, problems);
  });

  const selfRules = config.transferKind?.self ?? [];
  if (selfRules.length > 0 && transferConfigured.length === 0) problems.push('transferKind.self: no transfer factory is configured (factories.transferFactory.v1 or .v2)');
  selfRules.forEach((rule, i) => {
    const at = Array.isArray((json as { transferKind?: { self?: unknown } }).transferKind?.self) ? `transferKind.self[${i}]` : 'transferKind.self';
    const unknown = (rule.endpoints ?? []).filter((e) => !transferConfigured.includes(e));
    if (unknown.length > 0) problems.push(`${at}.endpoints: ${unknown.join(', ')} not configured in "factories" (configured: ${transferConfigured.join(', ') || 'none'})`);
    const endpoints = (rule.endpoints ?? transferConfigured).filter((e) => transferConfigured.includes(e));
    // the transfer kind is decided before the direct rules run: only context entries can be read
    const names = namesOf(config.contextEntries);
    const lets = new Set<string>();
    for (const [name, o] of Object.entries(rule.let ?? {})) {
      checkMatch({ match: {} }, `${at}.let.${name}`, { endpoints, restrictable: rule.endpoints === undefined, names, lets: new Set(lets) }, operandExpressions(o, ''));
      lets.add(name);
    }
    checkMatch({ match: {} }, at, { endpoints, restrictable: rule.endpoints === undefined, names, lets }, predicateExpressions(rule.when, 'when'));
  });

  // Per-contract objects: a template belongs to one kind; entry keys unique per action.
  const kindOfTemplate = new Map<string, string>();
  for (const kind of ['transferInstructions', 'allocationInstructions', 'allocations'] as const) {
    const pc = config[kind];
    if (!pc) continue;
    pc.templateIds.forEach((t, i) => {
      const prev = kindOfTemplate.get(t);
      if (prev) problems.push(`${kind}.templateIds[${i}]: ${t} is already listed in ${prev}; a template is one kind of per-contract object`);
      else kindOfTemplate.set(t, `${kind}.templateIds`);
    });
    for (const t of Object.keys(pc.instrumentByTemplate ?? {})) {
      if (!pc.templateIds.includes(t)) problems.push(`${kind}.instrumentByTemplate: ${t} is not in ${kind}.templateIds`);
    }
    const actions = kind === 'transferInstructions' ? TRANSFER_INSTRUCTION_ACTIONS : kind === 'allocationInstructions' ? ALLOCATION_INSTRUCTION_ACTIONS : ALLOCATION_ACTIONS;
    pc.refuse.forEach((r, i) => {
      const at = `${kind}.refuse[${i}]`;
      const errorParts = templateParts(r.error);
      for (const p of errorParts) if (typeof p !== 'string' && 'error' in p) problems.push(`${at}.error: ${p.error}`);
      const errorExpressions = errorParts.flatMap((p) => (typeof p === 'string' || 'error' in p ? [] : termExpressions(p.term).map((x) => ({ at: 'error', raw: x.text, expr: x.expr }))));
      checkMatch({ match: {} }, at, { perContract: true, names: namesOf(pc.contextEntries) }, [...(r.when ? predicateExpressions(r.when, 'when') : []), ...errorExpressions]);
      // an entry named in `after` must apply to every choice (and template) the rule does
      const entriesOf = (action: string) => pc.contextEntries.filter((e) => (e.endpoints ?? (actions as readonly string[])).includes(action));
      checkAfter(r.after, at, (r.endpoints ?? actions).map((action) => ({ what: action, names: namesOf(entriesOf(action)) })));
    });
    const seen = new Map<string, string>();
    pc.contextEntries.forEach((entry, i) => {
      const at = `${kind}.contextEntries[${i}]`;
      if (entry.key !== undefined) checkKey(entry.key, `${at}.key`);
      checkMatch(entry, at, { perContract: true, names: namesOf(pc.contextEntries) }, entry.if ? predicateExpressions(entry.if, 'if') : []);
      const templates: unknown = 'templates' in entry ? entry.templates : undefined;
      for (const [j, t] of (Array.isArray(templates) ? templates.filter((x): x is string => typeof x === 'string') : []).entries()) {
        if (!pc.templateIds.includes(t)) problems.push(`${at}.templates[${j}]: ${t} is not in ${kind}.templateIds`);
      }
      checkIdMatch(entry, at, problems);
      for (const action of entry.endpoints ?? actions) {
        if (entry.key === undefined) continue;
        const prev = seen.get(`${action}|${entry.key}`);
        if (prev && !(entry.as === 'list' && prev.startsWith('list:'))) {
          problems.push(`${at}.key: duplicate key "${entry.key}" for ${action} (also ${prev.replace(/^list:/, '')}); split the entries with "endpoints"`);
        } else if (!prev) seen.set(`${action}|${entry.key}`, entry.as === 'list' ? `list:${at}` : at);
      }
    });
  }

  // Named selections must not read themselves (a cycle through $ref, $found or when).
  checkCycles(config.contextEntries, 'contextEntries', problems);
  for (const kind of ['transferInstructions', 'allocationInstructions', 'allocations'] as const) {
    const pc = config[kind];
    if (pc) checkCycles(pc.contextEntries, `${kind}.contextEntries`, problems);
  }

  // A definition is checked where it is used: one used nowhere is not checked at all.
  for (const name of unusedDefinitions(json)) warnings.push(`definitions.${name}: not used anywhere in the recipe, so not checked either (a definition is checked where it is used)`);

  // supportedApis vs what is configured: a mismatch is allowed (the admin knows the token) but suspicious.
  const apiOf: Record<FactoryEndpoint, string> = {
    'transferFactory.v1': 'splice-api-token-transfer-instruction-v1',
    'transferFactory.v2': 'splice-api-token-transfer-instruction-v2',
    'allocationFactory.v1': 'splice-api-token-allocation-instruction-v1',
    'allocationFactory.v2': 'splice-api-token-allocation-instruction-v2',
    settlementFactory: 'splice-api-token-allocation-v2',
  };
  for (const ep of configured) {
    if (config.supportedApis[apiOf[ep]] === undefined) warnings.push(`supportedApis: factories.${ep} is configured but ${apiOf[ep]} is not listed, so wallets will not use it`);
  }

  if (problems.length > 0) throw new RecipeConfigError(label, problems);
  return { config, warnings };
}

/** The names an entry reads: `$ref` / `$found` in its expressions, and its `when`. */
function namesRead(e: { match: Record<string, MatchValue>; value?: string | boolean | null | undefined; missingError?: string | undefined; when?: { found?: string | undefined; missing?: string | undefined } | undefined; if?: Predicate | undefined }): string[] {
  const out = [...expressionsOf(e), ...(e.if ? predicateExpressions(e.if, 'if') : [])].flatMap(({ expr }) => (typeof expr !== 'string' && (expr.kind === 'ref' || expr.kind === 'found') ? [expr.name] : []));
  const w = e.when?.found ?? e.when?.missing;
  return w === undefined ? out : [...out, w];
}

/** Reports entries whose selection depends, through named selections, on itself. */
function checkCycles(entries: ReadonlyArray<Parameters<typeof namesRead>[0] & { name?: string | undefined }>, at: string, problems: string[]): void {
  const reads = new Map<string, Set<string>>();
  for (const e of entries) if (e.name !== undefined) reads.set(e.name, new Set([...(reads.get(e.name) ?? []), ...namesRead(e)]));
  const reaches = (from: string, to: string, seen = new Set<string>()): boolean => {
    for (const n of reads.get(from) ?? []) {
      if (n === to) return true;
      if (!seen.has(n) && (seen.add(n), reaches(n, to, seen))) return true;
    }
    return false;
  };
  entries.forEach((e, i) => {
    const self = namesRead(e).find((n) => n === e.name || (e.name !== undefined && reaches(n, e.name)));
    if (self !== undefined) problems.push(`${at}[${i}]: the selection "${e.name ?? ''}" reads itself through "${self}" ($ref, $found or when); a selection may only read others`);
  });
}

/** A `$id` match looks contracts up by id: the answer carries the template, not the interfaces. */
function checkIdMatch(entry: { match: Record<string, unknown>; templateId?: string | undefined; interfaceId?: string | undefined }, at: string, problems: string[]): void {
  if ('$id' in entry.match && entry.interfaceId !== undefined) {
    problems.push(`${at}.match.$id: contracts looked up by id must be selected by "templateId" (the ledger reports no interface for a lookup by id)`);
  }
}
