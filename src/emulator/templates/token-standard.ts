/**
 * The token-standard API packages (CIP-0056 v1 and the CIP-0112 v2 preview) as the emulator
 * knows them: real package names and package ids (research/test-token-model.md §1, from the
 * DARs in splice `daml/dars` @f819bd6f), and each interface with its choices.
 *
 * Token implementations (src/emulator/templates/*) implement these interfaces; registering them
 * makes interface filters, interface views and interface-id exercises work for wallets.
 */
import type { InterfaceDef, TemplateRegistry } from '../ledger/templates.js';
import type { QualifiedId } from '../ledger/types.js';
import { list, opt, rec, type LfT } from './lf-types.js';

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

/** Every token-standard interface, with its choices (research/test-token-model.md §1). */
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
 * LF type descriptors (lf-types.ts) of the token-standard V1 records that token payloads and
 * choice arguments carry, over the token's `Metadata` descriptor (Amulet reads it as transcode
 * does, TestTokenV1 with lf.ts `parseMetadata`).
 */
export function tokenStandardV1Types(Metadata: LfT) {
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
