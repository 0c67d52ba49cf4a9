/**
 * RegistryService: the token-standard registry API over the admin's ledger node. Plain
 * TypeScript (no Hono). For each request it
 *  1. parses and pre-checks `choiceArguments` (what the token would reject anyway is a 400 that
 *     says why; never stricter than the ledger),
 *  2. picks the recipe of the instrument (factories) or of the contract (per-contract contexts),
 *  3. lets the recipe name the factory and the context contracts, from the contract index,
 *  4. builds the choice context: context data, disclosed contracts with their real synchronizer
 *     (409 while one is being reassigned or when they span synchronizers), debug fields unless
 *     `excludeDebugFields`.
 * Ledger failures map to 503 + Retry-After here, in one place.
 */
import type { Logger } from 'pino';
import type { RequestContext } from '../http/request-context.js';
import type { z } from 'zod';
import type { ContractIndex } from '../contracts/contract-index.js';
import type { IndexedContract } from '../contracts/indexed-contract.js';
import type { Clock } from '../canton/clock.js';
import { decimalFacts, formatDecimal, parseDecimal, type DecimalFacts } from '../canton/lf-value.js';
import { parseInstant } from '../canton/clock.js';
import type { LedgerClient } from '../ledger-client/client.js';
import { LedgerError, LedgerUnavailableError } from '../ledger-client/errors.js';
import { IndexNotReadyError } from '../contracts/index-state.js';
import type {
  AllocationAction,
  AllocationInstructionAction,
  ApiVersion,
  ChoiceContextResponse,
  GetChoiceContextRequest,
  GetFactoryRequest,
  RegistryApi,
  TransferInstructionAction,
} from './api.js';
import {
  AllocateV1ArgsSchema,
  AllocateV2ArgsSchema,
  describeIssue,
  SettleBatchArgsSchema,
  TransferV1ArgsSchema,
  TransferV2ArgsSchema,
  V2_LIMITS,
  type Account,
} from './choice-arguments.js';
import { badRequest, conflict, notFound, RegistryError } from './errors.js';
import type { ContextParts, ContractKind, Recipe, RecipeEnv, RecipeIndex } from './recipes/recipe.js';
import { UnsupportedOperation } from './recipes/recipe.js';
import { checkInstrumentRecipes } from './recipes/index.js';
import type { DisclosedContract, Instrument } from './schemas.js';
import { isPromise, thenMaybe, type MaybePromise } from './maybe-promise.js';
import { inPlace, type InPlaceSchema } from './in-place.js';
import type { InstrumentConfig } from './instrument-config.js';

export interface RegistryServiceOptions {
  admin: string;
  instruments: readonly InstrumentConfig[];
  recipes: readonly Recipe[];
  index: ContractIndex;
  ledger: LedgerClient;
  clock: Clock;
  logger?: Logger;
  /** How long a computed total supply is reused (ms). */
  totalSupplyTtlMs?: number;
}

const HOLDING_V1 = '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding';

export class RegistryService implements RegistryApi {
  private readonly instruments: InstrumentConfig[];
  private readonly recipes = new Map<string, Recipe>();
  private readonly env: RecipeEnv;
  private supply?: { at: number; asOf: string; totals: Map<string, bigint>; pending?: Promise<void> };
  private readonly leanDisclosures = new WeakMap<IndexedContract, DisclosedContract>();
  private readonly fullDisclosures = new WeakMap<IndexedContract, DisclosedContract>();

  constructor(private readonly opts: RegistryServiceOptions) {
    for (const r of opts.recipes) this.recipes.set(r.name, r);
    checkInstrumentRecipes(opts.instruments, [...this.recipes.keys()]);
    // A stable order: instruments sorted by id, so page tokens stay valid across restarts.
    this.instruments = [...opts.instruments].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    this.env = { admin: opts.admin, index: opts.index, nowMicros: () => opts.clock.nowMicros() };
  }

  // ---- metadata ------------------------------------------------------------------------------

  async getRegistryInfo() {
    return { adminId: this.opts.admin, supportedApis: { 'splice-api-token-metadata-v1': 1 } };
  }

  async listInstruments(pageSize: number, pageToken: string | undefined, ctx?: RequestContext) {
    let start = 0;
    if (pageToken !== undefined) {
      const after = decodePageToken(pageToken);
      // token-metadata-v1.yaml lists 200, 404 and 500 for listInstruments (no 400); Splice's Scan
      // ignores pageToken altogether. A token we never issued names no page: 404, saying so.
      if (after === undefined) throw notFound(`No page for pageToken "${pageToken}": use the nextPageToken of a previous page, or no pageToken for the first page`);
      start = this.instruments.findIndex((i) => i.id > after);
      if (start < 0) start = this.instruments.length;
    }
    const page = this.instruments.slice(start, start + pageSize);
    const instruments = await this.guard(() => Promise.all(page.map((i) => this.instrumentJson(i, ctx))));
    const more = start + pageSize < this.instruments.length;
    return more ? { instruments, nextPageToken: encodePageToken(page[page.length - 1]!.id) } : { instruments };
  }

  async getInstrument(instrumentId: string, ctx?: RequestContext) {
    const cfg = this.instruments.find((i) => i.id === instrumentId);
    if (!cfg) throw notFound(`No instrument with id ${instrumentId} found`);
    return this.guard(() => this.instrumentJson(cfg, ctx));
  }

  private async instrumentJson(cfg: InstrumentConfig, ctx: RequestContext | undefined): Promise<Instrument> {
    const out: Instrument = {
      id: cfg.id,
      name: cfg.name,
      symbol: cfg.symbol,
      decimals: cfg.decimals,
      supportedApis: cfg.supportedApis ?? { ...this.recipes.get(cfg.recipe)!.supportedApis },
    };
    if (cfg.totalSupply === 'ledger') {
      const s = await this.totalSupply(ctx);
      out.totalSupply = formatDecimal(s.totals.get(cfg.id) ?? 0n);
      out.totalSupplyAsOf = s.asOf;
    }
    if (cfg.paused !== undefined) out.paused = cfg.paused;
    if (cfg.pauseInfo) out.pauseInfo = cfg.pauseInfo;
    if (cfg.accountInputFieldsToShow) out.accountInputFieldsToShow = cfg.accountInputFieldsToShow;
    return out;
  }

  /** Sum of the admin's HoldingV1 views per instrument id, recomputed at most every TTL. */
  private async totalSupply(ctx: RequestContext | undefined): Promise<{ asOf: string; totals: Map<string, bigint> }> {
    const ttl = this.opts.totalSupplyTtlMs ?? 5000;
    const now = Date.now();
    if (this.supply && now - this.supply.at < ttl) return this.supply;
    const acs = await this.opts.ledger.activeContracts({
      parties: [this.opts.admin],
      interfaceIds: [HOLDING_V1],
      includeInterfaceView: true,
      context: ctx,
    });
    const totals = new Map<string, bigint>();
    for (const entry of acs.contracts) {
      const view = entry.createdEvent.interfaceViews?.find((v) => v.interfaceId.endsWith(':Splice.Api.Token.HoldingV1:Holding'))?.viewValue as
        | { instrumentId?: { admin: string; id: string }; amount?: string }
        | undefined;
      if (!view?.instrumentId || view.instrumentId.admin !== this.opts.admin || view.amount === undefined) continue;
      totals.set(view.instrumentId.id, (totals.get(view.instrumentId.id) ?? 0n) + parseDecimal(view.amount));
    }
    this.supply = { at: now, asOf: new Date(Number(this.opts.clock.nowMicros() / 1000n)).toISOString(), totals };
    return this.supply;
  }

  // ---- factories -----------------------------------------------------------------------------

  // The POST operations below are not `async`: a warm answer (recipe and index in memory) is
  // returned at once, and invalid input throws at once (see MaybePromise).

  getTransferFactory(version: ApiVersion, req: GetFactoryRequest, ctx?: RequestContext) {
    const args = req.choiceArguments;
    let instrumentId: { admin: string; id: string };
    if (version === 1) {
      const a = parse(TransferV1Args, args, 'TransferFactory_Transfer');
      this.checkExpectedAdmin(a.expectedAdmin);
      instrumentId = a.transfer.instrumentId;
      this.checkTransfer(a.transfer);
    } else {
      const a = parse(TransferV2Args, args, 'TransferFactory_Transfer');
      instrumentId = a.transfer.instrumentId;
      this.checkTransfer(a.transfer);
    }
    const recipe = this.recipeOfInstrument(instrumentId);
    return thenMaybe(this.guard(() => this.whenCurrent(() => recipe.transferFactory(version, args, this.envFor(ctx)))), (parts) => ({
      factoryId: parts.factory.contractId,
      transferKind: parts.transferKind,
      choiceContext: this.context(parts, req.excludeDebugFields),
    }));
  }

  getAllocationFactory(version: ApiVersion, req: GetFactoryRequest, ctx?: RequestContext) {
    const args = req.choiceArguments;
    let recipe: Recipe;
    if (version === 1) {
      const a = parse(AllocateV1Args, args, 'AllocationFactory_Allocate');
      this.checkExpectedAdmin(a.expectedAdmin);
      const leg = a.allocation.transferLeg;
      recipe = this.recipeOfInstrument(leg.instrumentId);
      this.checkAmount(leg.amount, leg.instrumentId.id, 'allocation.transferLeg.amount');
      this.checkNotFuture(a.requestedAt, 'requestedAt');
      this.checkNotFuture(a.allocation.settlement.requestedAt, 'allocation.settlement.requestedAt');
      this.checkFuture(a.allocation.settlement.allocateBefore, 'allocation.settlement.allocateBefore');
      if (time(a.allocation.settlement.allocateBefore, 'allocateBefore') > time(a.allocation.settlement.settleBefore, 'settleBefore')) {
        throw badRequest('allocation.settlement.allocateBefore must not be after allocation.settlement.settleBefore');
      }
    } else {
      const a = parse(AllocateV2Args, args, 'AllocationFactory_Allocate');
      if (a.allocation.admin !== this.opts.admin) {
        throw badRequest(`allocation.admin ${a.allocation.admin} is not the admin of this registry (${this.opts.admin})`);
      }
      const sides = a.allocation.transferLegSides;
      if (sides.length === 0) throw badRequest('allocation.transferLegSides must not be empty');
      checkLimit(sides.length, V2_LIMITS.transferLegs, 'transfer legs');
      const ids = new Set(sides.map((s) => s.instrumentId));
      checkLimit(ids.size, V2_LIMITS.instrumentIds, 'instrument ids');
      checkLimit(new Set([a.allocation.authorizer, ...sides.map((s) => s.otherside)].map(accountKey)).size, V2_LIMITS.accounts, 'accounts');
      recipe = this.recipeOfInstruments([...ids]);
      for (const s of sides) this.checkAmount(s.amount, s.instrumentId, `transferLegSides[${s.transferLegId}].amount`);
      this.checkNotFuture(a.requestedAt, 'requestedAt');
      if (a.allocation.settlementDeadline) this.checkFuture(a.allocation.settlementDeadline, 'allocation.settlementDeadline');
    }
    return thenMaybe(this.guard(() => this.whenCurrent(() => recipe.allocationFactory(version, args, this.envFor(ctx)))), (parts) => ({
      factoryId: parts.factory.contractId,
      choiceContext: this.context(parts, req.excludeDebugFields),
    }));
  }

  getSettlementFactory(req: GetFactoryRequest, ctx?: RequestContext) {
    const a = parse(SettleBatchArgs, req.choiceArguments, 'SettlementFactory_SettleBatch');
    if (a.transferLegs.length === 0) throw badRequest('transferLegs must not be empty');
    checkLimit(a.transferLegs.length, V2_LIMITS.transferLegs, 'transfer legs');
    checkLimit(a.allocations.length, V2_LIMITS.allocations, 'allocations');
    const ids = new Set(a.transferLegs.map((l) => l.instrumentId));
    checkLimit(ids.size, V2_LIMITS.instrumentIds, 'instrument ids');
    const accounts = new Set(a.transferLegs.flatMap((l) => [l.sender, l.receiver]).map(accountKey));
    checkLimit(accounts.size, V2_LIMITS.accounts, 'accounts');
    const parties = new Set(a.transferLegs.flatMap((l) => [l.sender.owner, l.sender.provider, l.receiver.owner, l.receiver.provider]).filter(Boolean));
    checkLimit(parties.size, V2_LIMITS.parties, 'parties');
    for (const l of a.transferLegs) this.checkAmount(l.amount, l.instrumentId, `transferLegs[${l.transferLegId}].amount`);
    const recipe = this.recipeOfInstruments([...ids]);
    const cids = a.allocations.map((x) => x.allocationCid);
    return thenMaybe(this.guard(() => this.whenCurrent(() => recipe.settlementFactory(req.choiceArguments, this.envFor(ctx))), `allocationCid ${cids.join(', ')}`), (parts) => ({
      factoryId: parts.factory.contractId,
      choiceContext: this.context(parts, req.excludeDebugFields),
    }));
  }

  // ---- per-contract contexts -----------------------------------------------------------------

  async getTransferInstructionContext(version: ApiVersion, cid: string, action: TransferInstructionAction, req: GetChoiceContextRequest, ctx?: RequestContext) {
    const { recipe, contract, supportedApis } = await this.perContract(cid, 'transfer-instruction', 'Transfer instruction', ctx);
    const parts = await this.guard(() => recipe.transferInstructionContext({ version, action, contract, supportedApis }, this.envFor(ctx)));
    return this.context(parts, req.excludeDebugFields);
  }

  async getAllocationInstructionContext(cid: string, action: AllocationInstructionAction, req: GetChoiceContextRequest, ctx?: RequestContext) {
    const { recipe, contract, supportedApis } = await this.perContract(cid, 'allocation-instruction', 'Allocation instruction', ctx);
    const parts = await this.guard(() => recipe.allocationInstructionContext({ version: 2, action, contract, supportedApis }, this.envFor(ctx)));
    return this.context(parts, req.excludeDebugFields);
  }

  async getAllocationContext(version: ApiVersion, cid: string, action: AllocationAction, req: GetChoiceContextRequest, ctx?: RequestContext) {
    const { recipe, contract, supportedApis } = await this.perContract(cid, 'allocation', 'Allocation', ctx);
    const parts = await this.guard(() => recipe.allocationContext({ version, action, contract, supportedApis }, this.envFor(ctx)));
    return this.context(parts, req.excludeDebugFields);
  }

  /** Looks a contract up by id (index, then ledger) and checks it is one of this admin's. */
  private async perContract(
    cid: string,
    kind: ContractKind,
    what: string,
    ctx: RequestContext | undefined,
  ): Promise<{ recipe: Recipe; contract: IndexedContract; supportedApis: Readonly<Record<string, number>> }> {
    if (!/^[0-9a-f]{2,}$/.test(cid)) throw badRequest(`${what} id "${cid}" is not a contract id`);
    // An archive the ledger acknowledged before this request must be applied before the answer
    // (ContractIndex.syncToLedgerEnd): wallets ask for an instruction's context right after
    // acting on it, and an answer for an archived one offers an action that cannot succeed.
    await this.guard(() => this.opts.index.syncToLedgerEnd(ctx));
    const contract = await this.guard(() => this.opts.index.getById(cid, ctx), `${what} id "${cid}"`);
    if (!contract) throw notFound(`${what} ${cid} not found: it does not exist, is archived, or is not visible to the registry admin`);
    for (const recipe of this.recipes.values()) {
      const k = recipe.kindOf(contract);
      if (k === undefined) continue;
      if (k !== kind) throw notFound(`${what} ${cid} not found: contract ${cid} is a ${k} (${contract.templateId})`);
      const inst = recipe.instrumentOf(contract);
      const cfg = inst && inst.admin === this.opts.admin ? this.instruments.find((i) => i.id === inst.id) : undefined;
      if (!cfg) {
        throw notFound(`${what} ${cid} not found: it is for instrument ${inst ? `${inst.id} of ${inst.admin}` : '(unknown)'}, not one of this registry's`);
      }
      return { recipe, contract, supportedApis: cfg.supportedApis ?? recipe.supportedApis };
    }
    throw notFound(`${what} ${cid} not found: contract ${cid} (${contract.templateId}) is not a ${kind} of a token this registry serves`);
  }

  /** The recipes' environment for one request: index lookups that may reach the ledger carry `ctx`. */
  private envFor(ctx: RequestContext | undefined): RecipeEnv {
    if (!ctx) return this.env;
    return { admin: this.env.admin, nowMicros: this.env.nowMicros, index: new RequestIndex(this.opts.index, ctx) };
  }

  // ---- building the answer -------------------------------------------------------------------

  private context(parts: ContextParts, excludeDebugFields: boolean | undefined): ChoiceContextResponse {
    const contracts = distinctContracts(parts.disclose);
    for (const c of contracts) {
      if (c.inReassignment || c.synchronizerId === '') {
        throw conflict(`Contract ${c.contractId} (${c.templateId}) is being reassigned between synchronizers; retry when it is assigned`);
      }
    }
    if (contracts.some((c) => c.synchronizerId !== contracts[0]!.synchronizerId)) {
      throw conflict(
        `The contracts of this choice context are assigned to different synchronizers: ${contracts.map((c) => `${c.contractId} on ${c.synchronizerId}`).join(', ')}`,
      );
    }
    const disclosedContracts: DisclosedContract[] = new Array<DisclosedContract>(contracts.length);
    for (let i = 0; i < contracts.length; i++) disclosedContracts[i] = this.disclosed(contracts[i]!, excludeDebugFields ?? false);
    return { choiceContextData: { values: parts.values }, disclosedContracts };
  }

  /**
   * The disclosure of an indexed contract: one frozen object per contract and flavour, so that
   * its JSON text is made once (AnswerJson). Indexed contracts are never changed in place (the
   * index replaces them), so a remembered disclosure cannot go stale.
   */
  private disclosed(c: IndexedContract, excludeDebugFields: boolean): DisclosedContract {
    const memo = excludeDebugFields ? this.leanDisclosures : this.fullDisclosures;
    let d = memo.get(c);
    if (d === undefined) {
      d = Object.freeze(disclosed(c, excludeDebugFields));
      memo.set(c, d);
    }
    return d;
  }

  // ---- checks --------------------------------------------------------------------------------

  private checkExpectedAdmin(expectedAdmin: string): void {
    if (expectedAdmin !== this.opts.admin) {
      throw badRequest(`expectedAdmin ${expectedAdmin} is not the admin of this registry (${this.opts.admin})`);
    }
  }

  private checkTransfer(t: { amount: string | number; instrumentId: { admin: string; id: string }; requestedAt: string; executeBefore: string }): void {
    this.checkAmount(t.amount, t.instrumentId.id, 'transfer.amount');
    this.checkNotFuture(t.requestedAt, 'transfer.requestedAt');
    this.checkFuture(t.executeBefore, 'transfer.executeBefore');
  }

  private instrumentConfig(instrumentId: string): InstrumentConfig {
    const cfg = this.instruments.find((i) => i.id === instrumentId);
    if (!cfg) throw badRequest(`Unknown instrument ${instrumentId}: this registry serves ${this.instruments.map((i) => i.id).join(', ') || 'no instruments'}`);
    if (cfg.paused) {
      const until = cfg.pauseInfo?.until ? ` until ${cfg.pauseInfo.until}` : '';
      throw badRequest(`Instrument ${instrumentId} is paused${until}${cfg.pauseInfo?.reason ? `: ${cfg.pauseInfo.reason}` : ''}`);
    }
    return cfg;
  }

  private recipeOfInstrument(instrumentId: { admin: string; id: string }): Recipe {
    if (instrumentId.admin !== this.opts.admin) {
      throw badRequest(`instrumentId.admin ${instrumentId.admin} is not the admin of this registry (${this.opts.admin})`);
    }
    return this.recipes.get(this.instrumentConfig(instrumentId.id).recipe)!;
  }

  private recipeOfInstruments(ids: string[]): Recipe {
    const recipes = new Set(ids.map((id) => this.instrumentConfig(id).recipe));
    if (recipes.size > 1) throw badRequest(`Instruments ${ids.join(', ')} belong to different token implementations; settle them separately`);
    return this.recipes.get([...recipes][0]!)!;
  }

  private checkAmount(amount: string | number, instrumentId: string, field: string): void {
    const cfg = this.instrumentConfig(instrumentId);
    let amountIs: DecimalFacts;
    try {
      amountIs = decimalFacts(amount, field);
    } catch (e) {
      throw badRequest((e as Error).message);
    }
    if (amountIs.sign <= 0) throw badRequest(`${field} must be positive, got ${amount}`);
    if (amountIs.places > cfg.decimals) {
      throw badRequest(`${field} ${amount} has more decimal places than instrument ${instrumentId} allows (${cfg.decimals})`);
    }
  }

  private checkNotFuture(t: string, field: string): void {
    const now = this.opts.clock.nowMicros();
    if (time(t, field) > now) throw badRequest(`${field} ${t} is in the future: it must be in the past`);
  }

  private checkFuture(t: string, field: string): void {
    const now = this.opts.clock.nowMicros();
    if (time(t, field) <= now) throw badRequest(`${field} ${t} is in the past: it must be in the future`);
  }

  /**
   * Runs ledger-backed work, mapping ledger failures to the registry's errors in one place.
   * `clientIds` names the contract ids from the request that `f` looks up on the ledger: the only
   * client input the registry forwards to its node. A node that rejects such a lookup as malformed
   * (400: Canton validates the contract id field, INVALID_FIELD / INVALID_ARGUMENT) rejects the
   * client's id, so that is a 400 naming it, not a 503 (never a 5xx for bad input).
   */
  /**
   * `f`'s answer once the index has applied what the ledger is known to have reported
   * (ContractIndex.current): at once when it has, which is the hot path of factory answers (no
   * ledger call, no promise); after a read of the gap when it is known to be behind.
   */
  private whenCurrent<T>(f: () => MaybePromise<T>): MaybePromise<T> {
    const wait = this.opts.index.current();
    return wait === undefined ? f() : wait.then(f);
  }

  private guard<T>(f: () => MaybePromise<T>, clientIds?: string): MaybePromise<T> {
    let r: MaybePromise<T>;
    try {
      r = f();
    } catch (e) {
      return this.fail(e, clientIds);
    }
    return isPromise(r) ? r.catch((e: unknown) => this.fail(e, clientIds)) : r;
  }

  /** The registry's error for a failure of ledger-backed work (see guard). */
  private fail(e: unknown, clientIds: string | undefined): never {
    if (e instanceof RegistryError) throw e;
    if (e instanceof UnsupportedOperation) throw badRequest(e.message);
    if (e instanceof IndexNotReadyError) {
      throw new RegistryError('LEDGER_UNAVAILABLE', `The registry is not ready (${e.message}); retry shortly`, e.retryAfterSeconds);
    }
    if (e instanceof LedgerUnavailableError) {
      // Obtaining a token failed: what the identity provider said is for the operator's log
      // (redacted there too), never for an anonymous caller.
      if (e.reason === 'auth') {
        this.opts.logger?.warn({ err: e.message }, 'no ledger access token for a registry read');
        throw new RegistryError('LEDGER_UNAVAILABLE', 'The ledger node is unavailable (the registry could not authenticate to it); retry shortly', e.retryAfterSeconds);
      }
      throw new RegistryError('LEDGER_UNAVAILABLE', `The ledger node is unavailable (${e.message}); retry shortly`, e.retryAfterSeconds);
    }
    if (e instanceof LedgerError && e.status === 400 && clientIds !== undefined) {
      throw badRequest(`${clientIds}: not a contract id the ledger node accepts (${e.code}: ${e.cause})`);
    }
    if (e instanceof LedgerError) {
      this.opts.logger?.error({ code: e.code, status: e.status }, 'ledger node refused a registry read');
      throw new RegistryError('LEDGER_UNAVAILABLE', `The ledger node refused the registry's read (${e.code}); retry shortly`, 5);
    }
    throw e;
  }
}

/** The factory choices' arguments, checked in place when they conform (in-place.ts). */
const TransferV1Args = inPlace(TransferV1ArgsSchema);
const TransferV2Args = inPlace(TransferV2ArgsSchema);
const AllocateV1Args = inPlace(AllocateV1ArgsSchema);
const AllocateV2Args = inPlace(AllocateV2ArgsSchema);
const SettleBatchArgs = inPlace(SettleBatchArgsSchema);

function parse<S extends z.ZodType>(schema: InPlaceSchema<S>, value: unknown, choice: string): z.infer<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw badRequest(`Field \`choiceArguments\` does not contain a valid ${choice}: ${describeIssue(r.error)}`);
  return r.data;
}

function time(t: string, field: string): bigint {
  const v = parseInstant(t);
  if (v === undefined) throw badRequest(`${field}: "${t}" is not an ISO-8601 timestamp`);
  return v;
}

function checkLimit(n: number, limit: number, what: string): void {
  if (n > limit) throw badRequest(`Too many ${what}: ${n} (this registry supports up to ${limit}, the minimum the v2 spec requires)`);
}

function accountKey(a: Account): string {
  return `${a.owner ?? ''}|${a.provider ?? ''}|${a.id}`;
}

function disclosed(c: IndexedContract, excludeDebugFields: boolean): DisclosedContract {
  const d: DisclosedContract = {
    templateId: c.templateId,
    contractId: c.contractId,
    createdEventBlob: c.createdEventBlob,
    synchronizerId: c.synchronizerId,
  };
  if (!excludeDebugFields) {
    d.debugPackageName = c.packageName;
    d.debugPayload = c.payload;
    d.debugCreatedAt = c.createdAt;
  }
  return d;
}

function encodePageToken(lastId: string): string {
  return Buffer.from(`after:${lastId}`).toString('base64url');
}
function decodePageToken(token: string): string | undefined {
  const text = Buffer.from(token, 'base64url').toString('utf8');
  return text.startsWith('after:') ? text.slice('after:'.length) : undefined;
}

/**
 * The index as one request's recipes see it: lookups that may reach the ledger carry the
 * request's context (its id and trace go to the ledger node with them).
 */
class RequestIndex implements RecipeIndex {
  constructor(
    private readonly index: RecipeIndex,
    private readonly ctx: RequestContext,
  ) {}

  find(key: string, where?: (c: IndexedContract) => boolean): IndexedContract[] {
    return this.index.find(key, where);
  }

  getById(contractId: string): Promise<IndexedContract | undefined> {
    return this.index.getById(contractId, this.ctx);
  }

  catchUp(opts: { skipIfCaughtUpWithinMs?: number } = {}): Promise<void> {
    return this.index.catchUp({ ...opts, context: this.ctx });
  }
}

/**
 * The contracts of `list` without repeats, first occurrence first. A context discloses a handful
 * of contracts, so a scan of the kept ones beats building a Set per request; a long list (a batch
 * settlement) gets the Set.
 */
function distinctContracts(list: readonly IndexedContract[]): IndexedContract[] {
  if (list.length > 16) {
    const seen = new Set<string>();
    return list.filter((c) => (seen.has(c.contractId) ? false : (seen.add(c.contractId), true)));
  }
  const out: IndexedContract[] = [];
  for (const c of list) {
    let repeat = false;
    for (let i = 0; i < out.length && !repeat; i++) repeat = out[i]!.contractId === c.contractId;
    if (!repeat) out.push(c);
  }
  return out;
}
