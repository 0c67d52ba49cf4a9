/**
 * The endpoints a declarative recipe configures (the factories, the per-contract choices) and the
 * known fields of each factory choice's argument, against which `$args` paths are checked.
 */

export const FACTORY_ENDPOINTS = ['transferFactory.v1', 'transferFactory.v2', 'allocationFactory.v1', 'allocationFactory.v2', 'settlementFactory'] as const;

export type FactoryEndpoint = (typeof FACTORY_ENDPOINTS)[number];

export const TRANSFER_FACTORY_ENDPOINTS = ['transferFactory.v1', 'transferFactory.v2'] as const;

export const TRANSFER_INSTRUCTION_ACTIONS = ['accept', 'reject', 'withdraw'] as const;

export const ALLOCATION_INSTRUCTION_ACTIONS = ['accept', 'withdraw'] as const;

export const ALLOCATION_ACTIONS = ['execute-transfer', 'withdraw', 'cancel'] as const;

/**
 * Top-level fields of each factory choice's argument (Splice `token-standard/splice-api-token-<api>-v<n>/daml`), and the
 * fields of the records below them that are stable across token-standard revisions; `$args`
 * paths are checked against this tree (`'*'`: not checked further).
 */
type FieldTree = { readonly [field: string]: FieldTree | '*' };

const INSTRUMENT_ID: FieldTree = { admin: '*', id: '*' };

const ACCOUNT: FieldTree = { owner: '*', provider: '*', id: '*' };

const TRANSFER_V1: FieldTree = {
  sender: '*',
  receiver: '*',
  amount: '*',
  instrumentId: INSTRUMENT_ID,
  requestedAt: '*',
  executeBefore: '*',
  inputHoldingCids: '*',
  meta: '*',
};

const TRANSFER_V2: FieldTree = { ...TRANSFER_V1, sender: ACCOUNT, receiver: ACCOUNT };

export const CHOICE_ARGUMENT_FIELDS: Readonly<Record<FactoryEndpoint, { choice: string; fields: FieldTree }>> = {
  'transferFactory.v1': { choice: 'TransferFactory_Transfer (v1)', fields: { expectedAdmin: '*', transfer: TRANSFER_V1, extraArgs: '*' } },
  'transferFactory.v2': { choice: 'TransferFactory_Transfer (v2)', fields: { transfer: TRANSFER_V2, actors: '*', extraArgs: '*' } },
  'allocationFactory.v1': {
    choice: 'AllocationFactory_Allocate (v1)',
    fields: {
      expectedAdmin: '*',
      allocation: {
        settlement: '*',
        transferLegId: '*',
        transferLeg: { sender: '*', receiver: '*', amount: '*', instrumentId: INSTRUMENT_ID, meta: '*' },
      },
      requestedAt: '*',
      inputHoldingCids: '*',
      extraArgs: '*',
    },
  },
  'allocationFactory.v2': {
    choice: 'AllocationFactory_Allocate (v2)',
    fields: { settlement: '*', allocation: '*', requestedAt: '*', inputHoldingCids: '*', actors: '*', extraArgs: '*' },
  },
  settlementFactory: {
    choice: 'SettlementFactory_SettleBatch (v2)',
    fields: { settlement: '*', transferLegs: '*', allocations: '*', actors: '*', extraArgs: '*' },
  },
};

/** Checks the plain field steps of a `(a.b|c)` alternative below `tree`; the error or undefined. */
function checkFieldPath(tree: FieldTree | '*', steps: readonly string[], choice: string, before: readonly string[]): string | undefined {
  let t = tree;
  for (let j = 0; j < steps.length; j++) {
    if (t === '*' || steps[j] === '~') return undefined;
    if (!(steps[j]! in t)) {
      const at = [...before, ...steps.slice(0, j)];
      return `names no field of ${at.length === 0 ? `the ${choice} choice argument` : `${at.join('.')} of ${choice}`} (fields: ${Object.keys(t).join(', ')})`;
    }
    t = t[steps[j]!]!;
  }
  return undefined;
}

const subtree = (tree: FieldTree | '*', steps: readonly string[]): FieldTree | '*' => steps.reduce<FieldTree | '*'>((t, s) => (t === '*' ? '*' : (t[s] ?? '*')), tree);

/** Checks an `$args` path against the choice argument's known fields; returns the error or undefined. */
export function checkArgsPath(endpoint: FactoryEndpoint, path: readonly string[]): string | undefined {
  const { choice, fields } = CHOICE_ARGUMENT_FIELDS[endpoint];
  let tree: FieldTree | '*' = fields;
  for (let i = 0; i < path.length; i++) {
    if (tree === '*') return undefined;
    const step = path[i]!;
    if (step === '~') return undefined;
    if (step.startsWith('(')) {
      // each alternative is a sub-path of the tree here; the rest of the path is checked below the first
      const alternatives = step.slice(1, -1).split('|').map((a) => a.split('.'));
      for (const alt of alternatives) {
        const err = checkFieldPath(tree, alt, choice, path.slice(0, i));
        if (err) return err;
      }
      tree = subtree(tree, alternatives[0]!);
      continue;
    }
    if (step.startsWith('{') && step.includes('.')) {
      // `{a.b,c}`: each sub-path is checked; the rest of the path is checked below the first
      const subpaths = step.slice(1, -1).split(',').map((a) => a.split('.'));
      for (const sp of subpaths) {
        const err = checkFieldPath(tree, sp, choice, path.slice(0, i));
        if (err) return err;
      }
      tree = subtree(tree, subpaths[0]!);
      continue;
    }
    // `{a,b}` checks each field (the tree below is that of the first); `[x]` names the field x
    const alternatives = step.startsWith('{') ? step.slice(1, -1).split(',') : [step.startsWith('[') ? step.slice(1, -1) : step];
    const seg = alternatives.find((a) => !(a in (tree as FieldTree))) ?? alternatives[0]!;
    if (!(seg in tree)) {
      const where = i === 0 ? `the ${choice} choice argument` : `${path.slice(0, i).join('.')} of ${choice}`;
      return `names no field of ${where} (fields: ${Object.keys(tree).join(', ')})`;
    }
    tree = tree[seg]!;
  }
  return undefined;
}
