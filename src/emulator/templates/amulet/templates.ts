/**
 * The Amulet templates of `splice-amulet` as native emulator templates: AmuletRules (transfer,
 * DevNet tap and mint, featured-app self-grant, round bootstrap and advance), OpenMiningRound,
 * SummarizingMiningRound, Amulet and LockedAmulet (HoldingV1/V2), FeaturedAppRight (with the
 * featured-app API's activity markers, ./featured-app-activity.ts),
 * TransferPreapproval, ExternalPartyAmuletRules (the token-standard TransferFactory V1/V2,
 * AllocationFactory V1/V2 and SettlementFactory V2), AmuletTransferInstruction (TransferInstruction
 * V1/V2), AmuletAllocation (Allocation V1) and AmuletAllocationV2 (Allocation V2, in
 * ./allocation-v2.ts). Choice by choice as the Daml code does it, with its checks, results and
 * failure messages; see LIMITATIONS in ./index.ts for the deviations. One module per template
 * (or small family); this one only assembles them.
 */
import type { TemplateDef, TemplateRegistry } from '../../participant/templates.js';
import { amuletAllocationTemplate } from './allocation-v1.js';
import { amuletAllocationV2Template } from './allocation-v2.js';
import { amuletTemplate, lockedAmuletTemplate } from './amulet-holdings.js';
import { amuletRulesTemplate } from './amulet-rules.js';
import { externalPartyAmuletRulesTemplate } from './external-party-amulet-rules.js';
import { externalPartyConfigStateTemplate } from './external-party-config-state.js';
import { featuredAppActivityMarkerTemplate, featuredAppRightTemplate } from './featured-app-activity.js';
import { openMiningRoundTemplate, summarizingMiningRoundTemplate } from './mining-rounds.js';
import type { AmuletBehaviour } from './transfer.js';
import { amuletTransferInstructionTemplate } from './transfer-instruction.js';
import { transferPreapprovalTemplate } from './transfer-preapproval.js';

export function amuletTemplates(templates: TemplateRegistry, behaviour: AmuletBehaviour): TemplateDef[] {
  return [
    amuletRulesTemplate(behaviour),
    externalPartyAmuletRulesTemplate(templates),
    openMiningRoundTemplate(),
    summarizingMiningRoundTemplate(),
    amuletTemplate(),
    lockedAmuletTemplate(),
    featuredAppRightTemplate(),
    featuredAppActivityMarkerTemplate(),
    transferPreapprovalTemplate(),
    amuletTransferInstructionTemplate(),
    amuletAllocationTemplate(),
    amuletAllocationV2Template(),
    externalPartyConfigStateTemplate(),
  ] as TemplateDef[];
}
