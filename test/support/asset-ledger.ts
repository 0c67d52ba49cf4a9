/**
 * A bare emulated ledger with one declared template (`index-test:M:Asset`, signed by its owner)
 * and an admin party, for the contract-index tests: `create(n)` commits one Asset of the admin
 * through the command service (command id `c<n>`) and returns its contract id.
 */
import { buildEmulator } from '../../src/emulator/index.js';

export const ASSET = { packageName: 'index-test', moduleName: 'M', entityName: 'Asset', signatories: ['owner'], observers: [], implements: [] };
export const ASSET_ID = '#index-test:M:Asset';

export function assetLedger() {
  const emu = buildEmulator({ config: { demoWorld: false, logLevel: 'silent', declaredTemplates: [ASSET] } });
  const admin = emu.engine.parties.allocate('admin').party;
  /** Creates Asset number `n` (its field `n` = `value`, default `n`). */
  const create = (n: number, value: number = n): string => {
    const tx = emu.engine.commands.submit({
      userId: 'u', actAs: [admin], readAs: [], commandId: `c${n}`, workflowId: '', submissionId: `s${n}`, disclosedContracts: [],
      commands: [{ kind: 'create', template: { package: { name: 'index-test' }, moduleName: 'M', entityName: 'Asset' }, createArguments: { owner: admin, n: String(value) } }],
    });
    return (tx.nodes[0] as { contract: { contractId: string } }).contract.contractId;
  };
  return { emu, admin, create };
}
