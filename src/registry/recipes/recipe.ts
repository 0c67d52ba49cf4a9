/**
 * A recipe says how one token implementation maps registry requests to ledger contracts: which
 * contract is the factory, which contracts form a choice context (and under which keys), and
 * which templates the contract index must follow. The service does everything else (parsing,
 * validation, disclosure, synchronizer checks, errors), so a recipe stays small.
 */
import type { AnyValue } from '../../canton/lf-value.js';
import type { ContractIndex } from '../../contracts/contract-index.js';
import type { IndexedContract } from '../../contracts/indexed-contract.js';
import type { ApiVersion, AllocationAction, AllocationInstructionAction, TransferInstructionAction } from '../api.js';
import { isObject } from '../../canton/json-shape.js';
import type { MaybePromise } from '../maybe-promise.js';

/**
 * What recipes read from the contract index. The service hands each request a view whose lookups
 * that may reach the ledger (getById, catchUp) carry that request's context.
 */
export type RecipeIndex = Pick<ContractIndex, 'find' | 'getById' | 'catchUp'>;

export interface RecipeEnv {
  admin: string;
  index: RecipeIndex;
  /** Registry time (epoch micros). */
  nowMicros(): bigint;
}

/** Context data plus the contracts to disclose with it. */
export interface ContextParts {
  values: Record<string, AnyValue>;
  disclose: IndexedContract[];
}

export interface FactoryParts extends ContextParts {
  factory: IndexedContract;
}

export interface TransferFactoryParts extends FactoryParts {
  transferKind: 'self' | 'direct' | 'offer';
}

/** A per-contract request: the contract the wallet named, already looked up. */
export interface ContractRequest<A> {
  version: ApiVersion;
  action: A;
  contract: IndexedContract;
  /**
   * The token-standard APIs the contract's instrument supports (its configured `supportedApis`,
   * else the recipe's): a recipe answers only the versions listed. Absent: the recipe's own.
   */
  supportedApis?: Readonly<Record<string, number>>;
}

export type ContractKind = 'transfer-instruction' | 'allocation-instruction' | 'allocation';

export interface Recipe {
  /** What an instrument's `recipe` names: `splice-test-token-v1`, `splice-test-token-v2`, `amulet`, or a declarative recipe's `name`. */
  readonly name: string;
  /** Token-standard APIs this token supports (name → minor version), reported per instrument. */
  readonly supportedApis: Readonly<Record<string, number>>;
  /** `#package:Module:Entity` kept in the in-memory index (factories, rules, configs). */
  readonly indexedTemplates: readonly string[];
  /** `#package:Module:Entity` cached by id (instructions, allocations, locked holdings). */
  readonly cachedTemplates: readonly string[];
  /** `#package:Module:Entity` of interfaces whose implementations are kept in the index (found by interface). */
  readonly indexedInterfaces?: readonly string[];

  /** What a per-contract object of this token is, or undefined when it is none of its objects. */
  kindOf(contract: IndexedContract): ContractKind | undefined;
  /** The instrument id of a per-contract object, to check it is one of this admin's. */
  instrumentOf(contract: IndexedContract): { admin: string; id: string } | undefined;

  transferFactory(version: ApiVersion, choiceArguments: Record<string, unknown>, env: RecipeEnv): MaybePromise<TransferFactoryParts>;
  transferInstructionContext(req: ContractRequest<TransferInstructionAction>, env: RecipeEnv): MaybePromise<ContextParts>;
  allocationFactory(version: ApiVersion, choiceArguments: Record<string, unknown>, env: RecipeEnv): MaybePromise<FactoryParts>;
  allocationInstructionContext(req: ContractRequest<AllocationInstructionAction>, env: RecipeEnv): MaybePromise<ContextParts>;
  allocationContext(req: ContractRequest<AllocationAction>, env: RecipeEnv): MaybePromise<ContextParts>;
  settlementFactory(choiceArguments: Record<string, unknown>, env: RecipeEnv): MaybePromise<FactoryParts>;
}

/** Thrown by a recipe for an operation its token does not have (→ 400 with this message). */
export class UnsupportedOperation extends Error {}

export const contractIdValue = (cid: string): AnyValue => ({ tag: 'AV_ContractId', value: cid });

/** An `InstrumentId` record (`{admin, id}`) read from a payload; undefined when `v` is not one. */
export function instrumentIdOf(v: unknown): { admin: string; id: string } | undefined {
  if (!isObject(v)) return undefined;
  const { admin, id } = v;
  return typeof admin === 'string' && typeof id === 'string' ? { admin, id } : undefined;
}

/** The registry and holding APIs of the V1 token standard (CIP-0056), at minor version 1. */
export const TOKEN_STANDARD_V1_APIS: Readonly<Record<string, number>> = {
  'splice-api-token-metadata-v1': 1,
  'splice-api-token-holding-v1': 1,
  'splice-api-token-transfer-instruction-v1': 1,
  'splice-api-token-allocation-v1': 1,
  'splice-api-token-allocation-instruction-v1': 1,
};
