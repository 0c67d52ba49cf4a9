/**
 * The token-standard API packages (CIP-0056 v1 and the CIP-0112 v2 preview) as the emulator
 * knows them: real package names and package ids (from the
 * DARs in canton-network/splice `daml/dars` @f819bd6f), and each interface with its choices.
 *
 * Token implementations (src/emulator/templates/*) implement these interfaces; registering them
 * makes interface filters, interface views and interface-id exercises work for wallets.
 */
import type { InterfaceDef, InterfaceImpl, TemplateRegistry } from '../participant/templates.js';
import type { QualifiedId } from '../participant/types.js';
import { list, opt, rec, type NativeValueType } from '../lf-value/native-type.js';

export const TOKEN_STANDARD_PACKAGES = {
  'splice-api-token-metadata-v1': { id: '4ded6b668cb3b64f7a88a30874cd41c75829f5e064b3fbbadf41ec7e8363354f', module: 'Splice.Api.Token.MetadataV1' },
  'splice-api-token-holding-v1': { id: '718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b', module: 'Splice.Api.Token.HoldingV1' },
  'splice-api-token-transfer-instruction-v1': { id: '55ba4deb0ad4662c4168b39859738a0e91388d252286480c7331b3f71a517281', module: 'Splice.Api.Token.TransferInstructionV1' },
  'splice-api-token-allocation-v1': { id: '93c942ae2b4c2ba674fb152fe38473c507bda4e82b4e4c5da55a552a9d8cce1d', module: 'Splice.Api.Token.AllocationV1' },
  'splice-api-token-allocation-instruction-v1': { id: '275064aacfe99cea72ee0c80563936129563776f67415ef9f13e4297eecbc520', module: 'Splice.Api.Token.AllocationInstructionV1' },
  'splice-api-token-allocation-request-v1': { id: '6fe848530b2404017c4a12874c956ad7d5c8a419ee9b040f96b5c13172d2e193', module: 'Splice.Api.Token.AllocationRequestV1' },
  'splice-api-token-burn-mint-v1': { id: '9cc2cbc838ef38dc2c7f34014c9c452bcf71b8e2a4f939235fc0b5d0924b185e', module: 'Splice.Api.Token.BurnMintV1' },
  'splice-api-token-holding-v2': { id: '4b7ecfc366d79ccc5ed07c80f26fe489cf2dfd43ce2856c06a78e6a048db7032', module: 'Splice.Api.Token.HoldingV2' },
  'splice-api-token-transfer-instruction-v2': { id: '29317e3b7b165d2bbf16721bcca0ec4869e53eddb2738bddf790d61af28e0099', module: 'Splice.Api.Token.TransferInstructionV2' },
  'splice-api-token-allocation-v2': { id: '051a3b0563a6fa4df4cb34448081e48b061e555aa1a265abf6ae8f3f4cafe439', module: 'Splice.Api.Token.AllocationV2' },
  'splice-api-token-allocation-instruction-v2': { id: '9818a0b5b827109de03a04c8f6151cde9d1e7fe5123dbb2dfeb0e52d7271287c', module: 'Splice.Api.Token.AllocationInstructionV2' },
  'splice-api-token-allocation-request-v2': { id: 'adc16315a8943a8433886694720a2a000ae84c2315c4414bd6d0db4d1660de9c', module: 'Splice.Api.Token.AllocationRequestV2' },
  'splice-api-token-transfer-events-v2': { id: '5c1097a9bad0af4bcfe6d3fb0fe55112d3d11f18eae57ddfb14c20836fee226c', module: 'Splice.Api.Token.TransferEventsV2' },
} as const;
export type TokenStandardPackage = keyof typeof TOKEN_STANDARD_PACKAGES;

function iface(pkg: TokenStandardPackage, entity: string, choices: string[]): InterfaceDef {
  const p = TOKEN_STANDARD_PACKAGES[pkg];
  const id: QualifiedId = { packageId: p.id, packageName: pkg, moduleName: p.module, entityName: entity };
  return { id, choices };
}

/** Every token-standard interface, with its choices (Splice `token-standard/splice-api-token-<api>-v<n>/daml/`). */
export const TS = {
  AnyContract: iface('splice-api-token-metadata-v1', 'AnyContract', []),
  HoldingV1: iface('splice-api-token-holding-v1', 'Holding', []),
  HoldingV2: iface('splice-api-token-holding-v2', 'Holding', []),
  TransferFactoryV1: iface('splice-api-token-transfer-instruction-v1', 'TransferFactory', ['TransferFactory_Transfer', 'TransferFactory_PublicFetch']),
  TransferInstructionV1: iface('splice-api-token-transfer-instruction-v1', 'TransferInstruction', [
    'TransferInstruction_Accept',
    'TransferInstruction_Reject',
    'TransferInstruction_Withdraw',
    'TransferInstruction_Update',
  ]),
  TransferFactoryV2: iface('splice-api-token-transfer-instruction-v2', 'TransferFactory', ['TransferFactory_Transfer', 'TransferFactory_PublicFetch']),
  TransferInstructionV2: iface('splice-api-token-transfer-instruction-v2', 'TransferInstruction', [
    'TransferInstruction_Accept',
    'TransferInstruction_Reject',
    'TransferInstruction_Withdraw',
  ]),
  AllocationFactoryV1: iface('splice-api-token-allocation-instruction-v1', 'AllocationFactory', ['AllocationFactory_Allocate', 'AllocationFactory_PublicFetch']),
  AllocationInstructionV1: iface('splice-api-token-allocation-instruction-v1', 'AllocationInstruction', [
    'AllocationInstruction_Withdraw',
    'AllocationInstruction_Update',
  ]),
  AllocationV1: iface('splice-api-token-allocation-v1', 'Allocation', ['Allocation_ExecuteTransfer', 'Allocation_Cancel', 'Allocation_Withdraw']),
  AllocationFactoryV2: iface('splice-api-token-allocation-instruction-v2', 'AllocationFactory', ['AllocationFactory_Allocate', 'AllocationFactory_PublicFetch']),
  AllocationInstructionV2: iface('splice-api-token-allocation-instruction-v2', 'AllocationInstruction', [
    'AllocationInstruction_Accept',
    'AllocationInstruction_Withdraw',
  ]),
  AllocationV2: iface('splice-api-token-allocation-v2', 'Allocation', ['Allocation_Settle', 'Allocation_Cancel', 'Allocation_Withdraw']),
  SettlementFactoryV2: iface('splice-api-token-allocation-v2', 'SettlementFactory', ['SettlementFactory_SettleBatch', 'SettlementFactory_PublicFetch']),
  AllocationRequestV1: iface('splice-api-token-allocation-request-v1', 'AllocationRequest', ['AllocationRequest_Reject', 'AllocationRequest_Withdraw']),
  AllocationRequestV2: iface('splice-api-token-allocation-request-v2', 'AllocationRequest', [
    'AllocationRequest_Accept',
    'AllocationRequest_Reject',
    'AllocationRequest_Withdraw',
  ]),
  EventLogV2: iface('splice-api-token-transfer-events-v2', 'EventLog', ['EventLog_HoldingsChange']),
  BurnMintFactoryV1: iface('splice-api-token-burn-mint-v1', 'BurnMintFactory', ['BurnMintFactory_BurnMint', 'BurnMintFactory_PublicFetch']),
} as const satisfies Record<string, InterfaceDef>;

/** Registers every token-standard interface, so filters on them resolve even before any token exists. */
export function registerTokenStandardInterfaces(templates: TemplateRegistry): void {
  for (const def of Object.values(TS)) templates.registerInterface(def);
}

/**
 * LF type descriptions (lf-value/native-type.ts) of the token-standard V1 records that token payloads and
 * choice arguments carry, over the token's `Metadata` descriptor (Amulet reads it as transcode
 * does, TestTokenV1 with canton/lf-value.ts `parseMetadata`).
 */
export function tokenStandardV1Types(Metadata: NativeValueType) {
  const InstrumentId = rec(['admin', 'party'], ['id', 'text']);
  const TransferV1 = rec(
    ['sender', 'party'],
    ['receiver', 'party'],
    ['amount', 'decimal'],
    ['instrumentId', InstrumentId],
    ['requestedAt', 'time'],
    ['executeBefore', 'time'],
    ['inputHoldingCids', list('cid')],
    ['meta', Metadata],
  );
  const SettlementInfoV1 = rec(
    ['executor', 'party'],
    ['settlementRef', rec(['id', 'text'], ['cid', opt('cid')])],
    ['requestedAt', 'time'],
    ['allocateBefore', 'time'],
    ['settleBefore', 'time'],
    ['meta', Metadata],
  );
  const TransferLegV1 = rec(['sender', 'party'], ['receiver', 'party'], ['amount', 'decimal'], ['instrumentId', InstrumentId], ['meta', Metadata]);
  const AllocationSpecificationV1 = rec(['settlement', SettlementInfoV1], ['transferLegId', 'text'], ['transferLeg', TransferLegV1]);
  return { InstrumentId, TransferV1, SettlementInfoV1, TransferLegV1, AllocationSpecificationV1 };
}

/**
 * `AnyValue` of `Splice.Api.Token.MetadataV1` (the values of a `ChoiceContext`): a recursive
 * variant (`AV_List [AnyValue]`, `AV_Map (TextMap AnyValue)`), described as the cyclic value it
 * is; readers and encoders recurse on the value, which is finite.
 */
function anyValueType(): NativeValueType {
  const constructors: Record<string, NativeValueType> = {
    AV_Text: 'text',
    AV_Int: 'int',
    AV_Decimal: 'decimal',
    AV_Bool: 'bool',
    AV_Date: 'date',
    AV_Time: 'time',
    AV_RelTime: rec(['microseconds', 'int']),
    AV_Party: 'party',
    AV_ContractId: 'cid',
  };
  const anyValue: NativeValueType = { variant: constructors };
  constructors.AV_List = list(anyValue);
  constructors.AV_Map = { textMap: anyValue };
  return anyValue;
}

/**
 * The LF types of the token-standard records (V1 and V2 API packages, as the DARs declare them,
 * field order included) and of every interface choice's argument, for describing native
 * payloads and choice arguments exactly (prepared transactions encode them with these).
 * Checked against the DARs by test/unit/emulator/templates/native-types-vs-dars.test.ts.
 */
export const TokenStandardTypes = (() => {
  const Metadata = rec(['values', { textMap: 'text' }]);
  const RelTime = rec(['microseconds', 'int']);
  const AnyValue = anyValueType();
  const ChoiceContext = rec(['values', { textMap: AnyValue }]);
  const ExtraArgs = rec(['context', ChoiceContext], ['meta', Metadata]);
  const { InstrumentId, TransferV1, SettlementInfoV1, TransferLegV1, AllocationSpecificationV1 } = tokenStandardV1Types(Metadata);
  const Lock = rec(['holders', list('party')], ['expiresAt', opt('time')], ['expiresAfter', opt(RelTime)], ['context', opt('text')]);
  const HoldingViewV1 = rec(['owner', 'party'], ['instrumentId', InstrumentId], ['amount', 'decimal'], ['lock', opt(Lock)], ['meta', Metadata]);
  // ---- V2 (HoldingV2, TransferInstructionV2, AllocationV2, AllocationInstructionV2, TransferEventsV2)
  const Account = rec(['owner', opt('party')], ['provider', opt('party')], ['id', 'text']);
  const HoldingViewV2 = rec(['account', Account], ['instrumentId', InstrumentId], ['amount', 'decimal'], ['lock', opt(Lock)], ['meta', Metadata]);
  const TransferV2 = rec(
    ['sender', Account],
    ['receiver', Account],
    ['amount', 'decimal'],
    ['instrumentId', InstrumentId],
    ['requestedAt', 'time'],
    ['executeBefore', 'time'],
    ['inputHoldingCids', list('cid')],
    ['meta', Metadata],
  );
  const SettlementInfoV2 = rec(['executors', list('party')], ['id', 'text'], ['cid', opt('cid')], ['meta', Metadata]);
  const TransferLegV2 = rec(['transferLegId', 'text'], ['sender', Account], ['receiver', Account], ['amount', 'decimal'], ['instrumentId', 'text'], ['meta', Metadata]);
  // AllocationV2 and TransferEventsV2 each declare a `TransferLegSide` (and `TransferSide`) of this shape.
  const TransferLegSide = rec(
    ['transferLegId', 'text'],
    ['side', { enum: ['SenderSide', 'ReceiverSide'] }],
    ['otherside', Account],
    ['amount', 'decimal'],
    ['instrumentId', 'text'],
    ['meta', Metadata],
  );
  const AllocationSpecificationV2 = rec(
    ['admin', 'party'],
    ['authorizer', Account],
    ['transferLegSides', list(TransferLegSide)],
    ['settlementDeadline', opt('time')],
    ['nextIterationFunding', opt({ textMap: 'decimal' })],
    ['committed', 'bool'],
    ['meta', Metadata],
  );
  const FinalizedAllocation = rec(['allocationCid', 'cid'], ['extraTransferLegSides', list(TransferLegSide)], ['nextIterationFunding', opt({ textMap: 'decimal' })]);

  const extraArgsOnly = rec(['extraArgs', ExtraArgs]);
  const update = rec(['extraActors', list('party')], ['extraArgs', ExtraArgs]);
  const publicFetchV1 = rec(['expectedAdmin', 'party'], ['actor', 'party']);
  const actorsOnly = rec(['actors', list('party')]);
  const actorsAndExtraArgs = rec(['actors', list('party')], ['extraArgs', ExtraArgs]);
  /** Argument types of the interface choices, by interface (keys of `TS`) and choice name. */
  const choiceArgs = {
    TransferFactoryV1: {
      TransferFactory_Transfer: rec(['expectedAdmin', 'party'], ['transfer', TransferV1], ['extraArgs', ExtraArgs]),
      TransferFactory_PublicFetch: publicFetchV1,
    },
    TransferInstructionV1: {
      TransferInstruction_Accept: extraArgsOnly,
      TransferInstruction_Reject: extraArgsOnly,
      TransferInstruction_Withdraw: extraArgsOnly,
      TransferInstruction_Update: update,
    },
    AllocationFactoryV1: {
      AllocationFactory_Allocate: rec(
        ['expectedAdmin', 'party'],
        ['allocation', AllocationSpecificationV1],
        ['requestedAt', 'time'],
        ['inputHoldingCids', list('cid')],
        ['extraArgs', ExtraArgs],
      ),
      AllocationFactory_PublicFetch: publicFetchV1,
    },
    AllocationInstructionV1: { AllocationInstruction_Withdraw: extraArgsOnly, AllocationInstruction_Update: update },
    AllocationV1: { Allocation_ExecuteTransfer: extraArgsOnly, Allocation_Cancel: extraArgsOnly, Allocation_Withdraw: extraArgsOnly },
    TransferFactoryV2: {
      TransferFactory_Transfer: rec(['transfer', TransferV2], ['actors', list('party')], ['extraArgs', ExtraArgs]),
      TransferFactory_PublicFetch: actorsOnly,
    },
    TransferInstructionV2: {
      TransferInstruction_Accept: actorsAndExtraArgs,
      TransferInstruction_Reject: actorsAndExtraArgs,
      TransferInstruction_Withdraw: actorsAndExtraArgs,
    },
    AllocationFactoryV2: {
      AllocationFactory_Allocate: rec(
        ['settlement', SettlementInfoV2],
        ['allocation', AllocationSpecificationV2],
        ['requestedAt', 'time'],
        ['inputHoldingCids', list('cid')],
        ['extraArgs', ExtraArgs],
        ['actors', list('party')],
      ),
      AllocationFactory_PublicFetch: actorsOnly,
    },
    AllocationInstructionV2: { AllocationInstruction_Accept: actorsAndExtraArgs, AllocationInstruction_Withdraw: actorsAndExtraArgs },
    AllocationV2: {
      Allocation_Settle: rec(
        ['actors', list('party')],
        ['extraTransferLegSides', list(TransferLegSide)],
        ['nextIterationFunding', opt({ textMap: 'decimal' })],
        ['extraArgs', ExtraArgs],
      ),
      Allocation_Cancel: actorsAndExtraArgs,
      Allocation_Withdraw: actorsAndExtraArgs,
    },
    SettlementFactoryV2: {
      SettlementFactory_SettleBatch: rec(
        ['settlement', SettlementInfoV2],
        ['transferLegs', list(TransferLegV2)],
        ['allocations', list(FinalizedAllocation)],
        ['actors', list('party')],
        ['extraArgs', ExtraArgs],
      ),
      SettlementFactory_PublicFetch: actorsOnly,
    },
    EventLogV2: {
      EventLog_HoldingsChange: rec(
        ['admin', 'party'],
        ['account', Account],
        ['inputHoldingCids', list('cid')],
        ['transferLegSides', list(TransferLegSide)],
        ['outputHoldingCids', list('cid')],
        ['observers', list('party')],
        ['extraArgs', ExtraArgs],
      ),
    },
  } as const;
  return {
    Metadata,
    RelTime,
    AnyValue,
    ChoiceContext,
    ExtraArgs,
    InstrumentId,
    Lock,
    HoldingViewV1,
    TransferV1,
    SettlementInfoV1,
    TransferLegV1,
    AllocationSpecificationV1,
    Account,
    HoldingViewV2,
    TransferV2,
    SettlementInfoV2,
    TransferLegV2,
    TransferLegSide,
    AllocationSpecificationV2,
    FinalizedAllocation,
    choiceArgs,
  } as const;
})();

/**
 * The argument type of choice `choice` of interface `iface`: a Daml interface declares its
 * choices' argument types, which every implementation shares.
 */
export function interfaceChoiceArgumentType(iface: InterfaceDef, choice: string): NativeValueType | undefined {
  if (choice === 'Archive') return rec();
  const byInterface: Readonly<Record<string, Readonly<Record<string, NativeValueType>>>> = TokenStandardTypes.choiceArgs;
  for (const [key, def] of Object.entries(TS)) {
    if (def.id.packageId === iface.id.packageId && def.id.entityName === iface.id.entityName) return byInterface[key]?.[choice];
  }
  return undefined;
}

/** Gives every interface choice a template implements without an `argumentType` the interface's. */
export function describeInterfaceChoices(impls: readonly InterfaceImpl[]): void {
  for (const impl of impls) {
    for (const [name, c] of Object.entries(impl.choices)) {
      if (c.argumentType) continue;
      const t = interfaceChoiceArgumentType(impl.interface, name);
      if (t) impl.choices[name] = { ...c, argumentType: t };
    }
  }
}
