/**
 * `Splice.Testing.Tokens.TestTokenV2.AccountConfig` (Splice `examples/splice-test-token-v2/.../AccountConfig.daml`):
 *  - the `AccountConfig` and `AccountProposal` templates of provider-managed accounts;
 *  - the authorization state machines of transfer instructions, allocation instructions and
 *    allocations, and the generic machinery that advances them (`getState`,
 *    `mkAvailableActions`, `applyStateMachineTransitions`);
 *  - parsing the account configs from the choice context (`extractAccountConfigMap`) and the
 *    authority transfers an AccountConfig allows (`tryUseAccountAuthorityFor*`).
 *
 * A basic account (`{owner = Some p, provider = None, id = ""}`) needs no AccountConfig: it gets
 * the implicit config owner {canInitiate, mustApprove}, provider {no, no}, under which every
 * machine collapses to one-party steps.
 */
import type { ChoiceDef, TemplateDef, UpdateContext } from '../../participant/templates.js';
import type { ExtraArgs } from '../../../canton/lf-value.js';
import { TS } from '../token-standard.js';
import { ACCOUNT_CONFIGS_CONTEXT_KEY, fetchView, TestTokenV2Ids } from './ids.js';
import { Tt2Types } from './types.js';
import { accountParties, assertMsg, checkActors, fail, requireMatchExpected, requireR, withContextValue } from './utils.js';
import {
  AA,
  AIA,
  accountKey,
  action,
  compareList,
  compareText,
  dedupSortGroups,
  dedupSortParties,
  pAccountConfig,
  pArg,
  pCid,
  pExtraArgs,
  pParty,
  pPayload,
  showAccount,
  showList,
  showParty,
  TIA,
  type Account,
  type AccountConfig,
  type Action,
  type ActionAuthorizers,
  type ActionType,
  type AvailableActions,
} from './values.js';

// ---- state machines -------------------------------------------------------------------------------

/** Who must authorise a transition: all parties of an account, the authorisers of another action, or fixed parties. */
export type AuthSpec = { kind: 'account'; account: Account } | { kind: 'action'; action: Action } | { kind: 'parties'; parties: string[] };

export interface StateMachine<S extends string> {
  /** States in enum order; the first is the initial state. */
  states: readonly S[];
  actions: ActionType;
  transitions: ReadonlyArray<{ from: S; action: Action; to: S; auth: AuthSpec }>;
}

/** `AccountConfigMap`: account → (config, the AccountConfig contract, None for implicit basic configs). */
export type AccountConfigMap = Map<string, { account: Account; config: AccountConfig; cid: string | null }>;

export type TransferInstructionState = 'TIS_Init' | 'TIS_Authorized' | 'TIS_Withdrawn' | 'TIS_Rejected' | 'TIS_Accepted';
export function transferInstructionStateMachine(sender: Account, receiver: Account): StateMachine<TransferInstructionState> {
  return {
    states: ['TIS_Init', 'TIS_Authorized', 'TIS_Withdrawn', 'TIS_Rejected', 'TIS_Accepted'],
    actions: TIA,
    transitions: [
      { from: 'TIS_Init', action: action('TIA_Accept'), to: 'TIS_Authorized', auth: { kind: 'account', account: sender } },
      { from: 'TIS_Init', action: action('TIA_Withdraw'), to: 'TIS_Withdrawn', auth: { kind: 'action', action: action('TIA_Accept') } },
      { from: 'TIS_Authorized', action: action('TIA_Accept'), to: 'TIS_Accepted', auth: { kind: 'account', account: receiver } },
      { from: 'TIS_Authorized', action: action('TIA_Withdraw'), to: 'TIS_Withdrawn', auth: { kind: 'account', account: sender } },
      { from: 'TIS_Authorized', action: action('TIA_Reject'), to: 'TIS_Rejected', auth: { kind: 'account', account: receiver } },
    ],
  };
}

export type AllocationInstructionState = 'AIS_Init' | 'AIS_Withdrawn' | 'AIS_Accepted';
export function allocationInstructionStateMachine(authorizer: Account): StateMachine<AllocationInstructionState> {
  return {
    states: ['AIS_Init', 'AIS_Withdrawn', 'AIS_Accepted'],
    actions: AIA,
    transitions: [
      { from: 'AIS_Init', action: action('AIA_Accept'), to: 'AIS_Accepted', auth: { kind: 'account', account: authorizer } },
      { from: 'AIS_Init', action: action('AIA_Withdraw'), to: 'AIS_Withdrawn', auth: { kind: 'action', action: action('AIA_Accept') } },
    ],
  };
}

export type AllocationState = 'AS_Init' | 'AS_Withdrawn' | 'AS_Cancelled' | 'AS_Settled';
export function allocationStateMachine(authorizer: Account, executors: string[], admin: string): StateMachine<AllocationState> {
  return {
    states: ['AS_Init', 'AS_Withdrawn', 'AS_Cancelled', 'AS_Settled'],
    actions: AA,
    transitions: [
      { from: 'AS_Init', action: action('AA_Withdraw'), to: 'AS_Withdrawn', auth: { kind: 'account', account: authorizer } },
      { from: 'AS_Init', action: action('AA_Cancel'), to: 'AS_Cancelled', auth: { kind: 'parties', parties: executors } },
      { from: 'AS_Init', action: action('AA_Settle'), to: 'AS_Settled', auth: { kind: 'parties', parties: [admin, ...executors] } },
    ],
  };
}

/** The transitions out of a state, in the action order of Daml's `Map` (derived Ord). */
function transitionsFrom<S extends string>(sm: StateMachine<S>, state: S) {
  return sm.transitions.filter((t) => t.from === state).sort((a, b) => sm.actions.compare(a.action, b.action));
}
function transitionOf<S extends string>(sm: StateMachine<S>, state: S, a: Action) {
  return sm.transitions.find((t) => t.from === state && sm.actions.compare(t.action, a) === 0);
}

function authOf(sm: StateMachine<string>, authState: ActionAuthorizers, a: Action): string[] {
  return authState.find(([k]) => sm.actions.compare(k, a) === 0)?.[1] ?? [];
}

/** List difference `xs \\ ys` (keeps the order of `xs`). */
function minus(xs: readonly string[], ys: readonly string[]): string[] {
  const rest = [...ys];
  return xs.filter((x) => {
    const i = rest.indexOf(x);
    if (i < 0) return true;
    rest.splice(i, 1);
    return false;
  });
}

function neededAuthorizers(sm: StateMachine<string>, admin: string, spec: AuthSpec, authState: ActionAuthorizers): string[] {
  switch (spec.kind) {
    case 'account':
      return accountParties(admin, spec.account);
    case 'action':
      return authOf(sm, authState, spec.action);
    case 'parties':
      return spec.parties;
  }
}

function missingAuthorizers(sm: StateMachine<string>, admin: string, a: Action, spec: AuthSpec, authState: ActionAuthorizers): string[] {
  return minus(neededAuthorizers(sm, admin, spec, authState), authOf(sm, authState, a));
}

/**
 * `nextActors'`: who can act next on a partially authorised account action: the owner or provider
 * alone (when missing and allowed to initiate, or once someone has started), or all missing parties
 * jointly.
 */
function nextActorsForAccount(admin: string, missing: string[], config: AccountConfig): string[][] {
  const isInitialized = compareList(missing, accountParties(admin, config.account), compareText) !== 0;
  const groups: string[][] = [];
  const owner = config.account.owner;
  const provider = config.account.provider;
  if (owner !== null && missing.includes(owner) && (isInitialized || config.ownerConfig.canInitiate)) groups.push([owner]);
  if (provider !== null && missing.includes(provider) && (isInitialized || config.providerConfig.canInitiate)) groups.push([provider]);
  if (missing.length > 0) groups.push(missing);
  return dedupSortGroups(groups);
}

function nextActors(
  ctx: UpdateContext,
  sm: StateMachine<string>,
  admin: string,
  a: Action,
  spec: AuthSpec,
  authState: ActionAuthorizers,
  accountMap: AccountConfigMap,
): string[][] {
  switch (spec.kind) {
    case 'parties':
      return [dedupSortParties(spec.parties)];
    case 'action': {
      const g = dedupSortParties(authOf(sm, authState, spec.action));
      return g.length === 0 ? [] : [g];
    }
    case 'account': {
      const entry = accountMap.get(accountKey(spec.account));
      if (!entry) return fail(ctx, `Cannot compute next actors. No account config found for Account ${showAccount(spec.account)}`);
      return nextActorsForAccount(admin, missingAuthorizers(sm, admin, a, spec, authState), entry.config);
    }
  }
}

/** `getState`: from the initial state, follow any fully authorised transition (first in action order). */
export function getState<S extends string>(sm: StateMachine<S>, admin: string, authState: ActionAuthorizers): S {
  let state = sm.states[0]!;
  for (;;) {
    const next = transitionsFrom(sm, state).find(
      (t) => authOf(sm as StateMachine<string>, authState, t.action).length > 0 && missingAuthorizers(sm as StateMachine<string>, admin, t.action, t.auth, authState).length === 0,
    );
    if (!next) return state;
    state = next.to;
  }
}

/** `mkAvailableActions`: for each transition out of the current state, the groups that can act next. */
export function mkAvailableActions<S extends string>(
  ctx: UpdateContext,
  sm: StateMachine<S>,
  admin: string,
  authState: ActionAuthorizers,
  accountMap: AccountConfigMap,
): AvailableActions {
  const state = getState(sm, admin, authState);
  const out: AvailableActions = [];
  for (const t of transitionsFrom(sm, state)) {
    const groups = nextActors(ctx, sm as StateMachine<string>, admin, t.action, t.auth, authState, accountMap);
    if (groups.length > 0) out.push([t.action, groups]);
  }
  return out;
}

/** `insertWithUnion`: adds the actors to the authorisers of an action (sorted, deduplicated). */
export function insertWithUnion(actions: ActionType, authState: ActionAuthorizers, a: Action, actors: readonly string[]): ActionAuthorizers {
  const existing = authState.find(([k]) => actions.compare(k, a) === 0);
  const rest = authState.filter(([k]) => actions.compare(k, a) !== 0);
  const merged: ActionAuthorizers = [...rest, [a, dedupSortParties([...(existing?.[1] ?? []), ...actors])]];
  return merged.sort((x, y) => actions.compare(x[0], y[0]));
}

export interface Transitions<S extends string, R> {
  admin: string;
  authState: ActionAuthorizers;
  actors: string[];
  action: Action;
  sm: StateMachine<S>;
  accountMap: AccountConfigMap;
  transition(from: S, to: S): R;
  mkPending(newAuthState: ActionAuthorizers, newAvailable: AvailableActions): R;
  /** Completes a Pending result through an AccountConfig authority transfer, if one applies. */
  tryUseAccountAuthority(actors: string[], a: Action, result: R, newAuthState: ActionAuthorizers, accountMap: AccountConfigMap): R | undefined;
}

/**
 * `applyStateMachineTransitions`: checks that the actors are one of the groups allowed to take the
 * action now, records their authorisation, and either runs the transition body (the state changed)
 * or re-creates the contract with the new authorisers (Pending).
 */
export function applyStateMachineTransitions<S extends string, R>(ctx: UpdateContext, t: Transitions<S, R>): R {
  const before = getState(t.sm, t.admin, t.authState);
  const available = mkAvailableActions(ctx, t.sm, t.admin, t.authState, t.accountMap);
  const possible = available.find(([k]) => t.sm.actions.compare(k, t.action) === 0)?.[1];
  if (possible === undefined) return fail(ctx, `Unexpected: applyStateMachineTransitions called with unavailable action ${t.sm.actions.show(t.action)}`);
  checkActors(ctx, t.actors, possible);
  const newAuth = insertWithUnion(t.sm.actions, t.authState, t.action, t.actors);
  const after = getState(t.sm, t.admin, newAuth);
  const res = before !== after ? t.transition(before, after) : t.mkPending(newAuth, mkAvailableActions(ctx, t.sm, t.admin, newAuth, t.accountMap));
  return t.tryUseAccountAuthority(t.actors, t.action, res, newAuth, t.accountMap) ?? res;
}

// ---- authority transfers --------------------------------------------------------------------------

/**
 * `authorizationTransfers`: (p, q) when p is owner or provider and can initiate, and q is the
 * other one and need not approve; p may then act with q's authority through the AccountConfig.
 */
export function authorizationTransfers(config: AccountConfig): Array<[string, string]> {
  const { owner, provider } = config.account;
  if (owner === null || provider === null) return [];
  const cs: Array<[string, AccountConfig['ownerConfig']]> = [
    [owner, config.ownerConfig],
    [provider, config.providerConfig],
  ];
  const out: Array<[string, string]> = [];
  for (const [p, pc] of cs) for (const [q, qc] of cs) if (q !== p && !qc.mustApprove && pc.canInitiate) out.push([p, q]);
  return out;
}

/** `authorizationTransferFromState`: the one authority transfer that completes the action, if any. */
function authorizationTransferFromState<S extends string>(
  ctx: UpdateContext,
  admin: string,
  actors: readonly string[],
  a: Action,
  state: S,
  sm: StateMachine<S>,
  authState: ActionAuthorizers,
  accountMap: AccountConfigMap,
): { actor: string; authorizer: string; cid: string } | undefined {
  const t = transitionOf(sm, state, a);
  if (!t || t.auth.kind !== 'account') return undefined;
  const entry = accountMap.get(accountKey(t.auth.account));
  if (!entry || entry.cid === null) return undefined;
  const smS = sm as StateMachine<string>;
  const next = nextActors(ctx, smS, admin, a, t.auth, authState, accountMap);
  const ts = authorizationTransfers(entry.config).filter(
    ([actor, authorizer]) => actors.includes(actor) && next.some((g) => g.length === 1 && g[0] === authorizer),
  );
  if (ts.length === 0) return undefined;
  if (ts.length > 1) return fail(ctx, `Unexpected: multiple authority transfers possible for action ${sm.actions.show(a)}`);
  const [actor, authorizer] = ts[0]!;
  const missing = missingAuthorizers(smS, admin, a, t.auth, authState);
  if (!(missing.length === 1 && missing[0] === authorizer)) {
    return fail(ctx, `Unexpected: the authority transfer form ${showParty(actor)} to ${showParty(authorizer)} does not fully authorizer action ${sm.actions.show(a)}`);
  }
  const found = { actor, authorizer, cid: entry.cid };
  // If the same action then needs the next account too, the actors must also be able to transfer
  // authority for that step; otherwise the transfer would get stuck half-way.
  const after = transitionOf(sm, t.to, a);
  if (after && after.auth.kind === 'account' && accountParties(admin, after.auth.account).includes(authorizer)) {
    const nextT = authorizationTransferFromState(ctx, admin, actors, a, t.to, sm, authState, accountMap);
    return nextT?.authorizer === authorizer ? found : undefined;
  }
  return found;
}

/**
 * `tryUseAccountAuthorityFor{TIA,AIA,AA}'`: after a Pending result, exercise the AccountConfig's
 * authority-transfer choice on the new contract when the configuration allows it. Never applies
 * to basic accounts (their configs have no contract).
 */
export function tryUseAccountAuthority<S extends string, V>(
  ctx: UpdateContext,
  kind: 'transferInstruction' | 'allocationInstruction' | 'allocation',
  pendingCid: string,
  actors: string[],
  a: Action,
  authState: ActionAuthorizers,
  accountMap: AccountConfigMap,
  extraArgs: ExtraArgs,
  smOf: (view: V) => { admin: string; sm: StateMachine<S> },
): unknown | undefined {
  const iface = kind === 'transferInstruction' ? TS.TransferInstructionV2 : kind === 'allocationInstruction' ? TS.AllocationInstructionV2 : TS.AllocationV2;
  const { view } = fetchView<V>(ctx, pendingCid, iface);
  const { admin, sm } = smOf(view);
  const state = getState(sm, admin, authState);
  const tr = authorizationTransferFromState(ctx, admin, actors, a, state, sm, authState, accountMap);
  if (!tr) return undefined;
  const choice =
    kind === 'transferInstruction' ? 'AuthorizeTransferInstructionAction' : kind === 'allocationInstruction' ? 'AuthorizeAllocationInstructionAction' : 'AuthorizeAllocationAction';
  const cidField = kind === 'allocation' ? 'allocationCid' : 'instrCid';
  return ctx.exercise(tr.cid, choice, { actor: tr.actor, authorizer: tr.authorizer, action: a, [cidField]: pendingCid, extraArgs }, { templateId: TestTokenV2Ids.AccountConfig });
}

// ---- choice context -------------------------------------------------------------------------------

export const basicAccountConfig = (admin: string, account: Account): AccountConfig => ({
  admin,
  account,
  ownerConfig: { canInitiate: true, mustApprove: true },
  providerConfig: { canInitiate: false, mustApprove: false },
});

/**
 * `extractAccountConfigMap admin extraArgs accounts`: the AccountConfigs supplied in the context
 * (each must be of this admin), plus the implicit config of every basic (provider-less) account
 * in `accounts`; a provider account without a supplied config fails.
 */
export function extractAccountConfigMap(ctx: UpdateContext, admin: string, extraArgs: ExtraArgs, accounts: Account[]): AccountConfigMap {
  const val = extraArgs.context.values[ACCOUNT_CONFIGS_CONTEXT_KEY];
  let cids: string[] = [];
  if (val !== undefined) {
    if (val.tag !== 'AV_List' || !Array.isArray(val.value)) fail(ctx, `unexpected value ${JSON.stringify(val)} in ${ACCOUNT_CONFIGS_CONTEXT_KEY}`);
    cids = (val.value as Array<{ tag?: unknown; value?: unknown }>).map((v) => {
      if (v?.tag !== 'AV_ContractId' || typeof v.value !== 'string') return fail(ctx, `unexpected value ${JSON.stringify(v)} in ${ACCOUNT_CONFIGS_CONTEXT_KEY}`);
      return v.value;
    });
  }
  const map: AccountConfigMap = new Map();
  for (const cid of cids) {
    const config = ctx.fetch(cid, TestTokenV2Ids.AccountConfig).payload as AccountConfig;
    requireMatchExpected(ctx, 'admin on supplied AccountConfig', config.admin, admin, showParty);
    map.set(accountKey(config.account), { account: config.account, config, cid });
  }
  const seen = new Set<string>();
  for (const account of accounts) {
    const k = accountKey(account);
    if (seen.has(k)) continue;
    seen.add(k);
    if (account.provider === null) {
      assertMsg(ctx, 'Not expecting account contract for self-custodial account', !map.has(k));
      map.set(k, { account, config: basicAccountConfig(admin, account), cid: null });
    } else {
      assertMsg(ctx, `No account config supplied for account ${showAccount(account)}`, map.has(k));
    }
  }
  return map;
}

/** `storeAccountConfigFor`: the context with only this account's AccountConfig (if it has one). */
export function storeAccountConfigFor(account: Account, accountMap: AccountConfigMap, extraArgs: ExtraArgs): ExtraArgs {
  const entry = accountMap.get(accountKey(account));
  const cids = entry?.cid ? [entry.cid] : [];
  return withContextValue(extraArgs, ACCOUNT_CONFIGS_CONTEXT_KEY, { tag: 'AV_List', value: cids.map((c) => ({ tag: 'AV_ContractId', value: c })) });
}

// ---- templates ------------------------------------------------------------------------------------

const optParties = (...ps: Array<string | null>): string[] => ps.filter((p): p is string => p !== null);

interface AuthorizeArg {
  actor: string;
  authorizer: string;
  action: Action;
  cid: string;
  extraArgs: ExtraArgs;
}

/**
 * An `Authorize*Action` choice. The parsed argument stays the LF record (its contract id under
 * `instrCid` or `allocationCid`), as the exercise node carries it; the body gets it as `AuthorizeArg`.
 */
function authorizeChoice(
  name: 'AuthorizeTransferInstructionAction' | 'AuthorizeAllocationAction' | 'AuthorizeAllocationInstructionAction',
  actions: ActionType,
  cidField: 'instrCid' | 'allocationCid',
  run: (ctx: UpdateContext, config: AccountConfig, arg: AuthorizeArg) => unknown,
): ChoiceDef<AccountConfig, Record<string, unknown>> {
  const parse = pArg<Record<string, unknown>>({
    actor: [pParty, 'req'],
    authorizer: [pParty, 'req'],
    action: [actions.parse, 'req'],
    [cidField]: [pCid, 'req'],
    extraArgs: [pExtraArgs, 'req'],
  });
  const authorizeArg = (r: Record<string, unknown>): AuthorizeArg => ({
    actor: r.actor as string,
    authorizer: r.authorizer as string,
    action: r.action as Action,
    cid: r[cidField] as string,
    extraArgs: r.extraArgs as ExtraArgs,
  });
  return {
    name,
    consuming: false,
    controllers: (p, arg) => [authorizeArg(arg).actor, p.admin],
    parseArgument: parse,
    argumentType: Tt2Types[name],
    body: (ctx, self, arg) => run(ctx, self.payload, authorizeArg(arg)),
  };
}

function checkTransferAllowed(ctx: UpdateContext, config: AccountConfig, actor: string, authorizer: string, asRequire: boolean): void {
  const ok = authorizationTransfers(config).some(([p, q]) => p === actor && q === authorizer);
  if (asRequire) {
    const showPair = ([p, q]: [string, string]) => `(${showParty(p)},${showParty(q)})`;
    requireR(ctx, ok, '(actor, authorizer)', showPair([actor, authorizer]), 'is not a member of', 'authorizationTransfers', showList(authorizationTransfers(config), showPair));
  } else {
    assertMsg(ctx, `Authorization transfer from ${showParty(actor)} to ${showParty(authorizer)} is not allowed.`, ok);
  }
}

export const accountConfigTemplate: TemplateDef<AccountConfig> = {
  id: TestTokenV2Ids.AccountConfig,
  kind: 'native',
  signatories: (p) => optParties(p.account.owner, p.account.provider),
  observers: (p) => [p.admin],
  ensure: (p) =>
    (p.ownerConfig.canInitiate || p.providerConfig.canInitiate) && (p.ownerConfig.mustApprove || p.providerConfig.mustApprove) && p.account.provider !== null
      ? undefined
      : 'isValidAccountConfig this && isSome account.provider',
  parsePayload: (raw) => pAccountConfig(raw, 'createArguments'),
  payloadType: Tt2Types.AccountConfig,
  choices: {
    AuthorizeTransferInstructionAction: authorizeChoice('AuthorizeTransferInstructionAction', TIA, 'instrCid', (ctx, config, arg) => {
      checkTransferAllowed(ctx, config, arg.actor, arg.authorizer, true);
      const { view } = fetchView<{ transfer: { instrumentId: { admin: string } } }>(ctx, arg.cid, TS.TransferInstructionV2);
      requireMatchExpected(ctx, 'trasferInstruction.transfer.instrumentId.admin', view.transfer.instrumentId.admin, config.admin, showParty);
      const choice = { TIA_Accept: 'TransferInstruction_Accept', TIA_Reject: 'TransferInstruction_Reject', TIA_Withdraw: 'TransferInstruction_Withdraw' }[
        arg.action.tag as 'TIA_Accept'
      ];
      if (!choice) return fail(ctx, 'Custom actions are not supported.');
      return ctx.exercise(arg.cid, choice, { actors: [arg.authorizer], extraArgs: arg.extraArgs }, { interfaceId: TS.TransferInstructionV2.id });
    }),
    AuthorizeAllocationAction: authorizeChoice('AuthorizeAllocationAction', AA, 'allocationCid', (ctx, config, arg) => {
      checkTransferAllowed(ctx, config, arg.actor, arg.authorizer, false);
      const { view } = fetchView<{ allocation: { admin: string } }>(ctx, arg.cid, TS.AllocationV2);
      requireMatchExpected(ctx, 'allocation.admin', view.allocation.admin, config.admin, showParty);
      if (arg.action.tag !== 'AA_Withdraw') return fail(ctx, 'Only withdraw is supported.');
      return ctx.exercise(arg.cid, 'Allocation_Withdraw', { actors: [arg.authorizer], extraArgs: arg.extraArgs }, { interfaceId: TS.AllocationV2.id });
    }),
    AuthorizeAllocationInstructionAction: authorizeChoice('AuthorizeAllocationInstructionAction', AIA, 'instrCid', (ctx, config, arg) => {
      checkTransferAllowed(ctx, config, arg.actor, arg.authorizer, false);
      const { view } = fetchView<{ allocation: { admin: string } }>(ctx, arg.cid, TS.AllocationInstructionV2);
      requireMatchExpected(ctx, 'allocation.admin', view.allocation.admin, config.admin, showParty);
      const choice = { AIA_Accept: 'AllocationInstruction_Accept', AIA_Withdraw: 'AllocationInstruction_Withdraw' }[arg.action.tag as 'AIA_Accept'];
      if (!choice) return fail(ctx, 'Custom actions are not supported.');
      return ctx.exercise(arg.cid, choice, { actors: [arg.authorizer], extraArgs: arg.extraArgs }, { interfaceId: TS.AllocationInstructionV2.id });
    }),
  },
  implements: [],
};

export interface AccountProposalPayload {
  config: AccountConfig;
}

const emptyArg = pArg<Record<string, never>>({});

export const accountProposalTemplate: TemplateDef<AccountProposalPayload> = {
  id: TestTokenV2Ids.AccountProposal,
  kind: 'native',
  signatories: (p) => optParties(p.config.account.provider),
  observers: (p) => optParties(p.config.account.owner),
  parsePayload: pPayload<AccountProposalPayload & Record<string, unknown>>({ config: [pAccountConfig, 'req'] }),
  payloadType: Tt2Types.AccountProposal,
  choices: {
    AccountProposal_Accept: {
      name: 'AccountProposal_Accept',
      consuming: true,
      controllers: (p) => optParties(p.config.account.owner),
      parseArgument: emptyArg,
      argumentType: Tt2Types.NoFields,
      body: (ctx, self) => ({ accountConfig: ctx.create(TestTokenV2Ids.AccountConfig, self.payload.config) }),
    },
    AccountProposal_Reject: {
      name: 'AccountProposal_Reject',
      consuming: true,
      controllers: (p) => optParties(p.config.account.owner),
      parseArgument: emptyArg,
      argumentType: Tt2Types.NoFields,
      body: () => ({}),
    },
    AccountProposal_Withdraw: {
      name: 'AccountProposal_Withdraw',
      consuming: true,
      controllers: (p) => optParties(p.config.account.provider),
      parseArgument: emptyArg,
      argumentType: Tt2Types.NoFields,
      body: () => ({}),
    },
  },
  implements: [],
};

