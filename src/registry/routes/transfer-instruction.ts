/** transfer-instruction-v1.yaml and transfer-instruction-v2.yaml: the same operations under /v1 and /v2. */
import type { ApiVersion, TransferInstructionAction } from '../api.js';
import { TransferFactoryWithChoiceContextSchema } from '../schemas.js';
import { contextRoute, factoryRoute, type PostEndpoint } from './common.js';

const ACTIONS: Array<{ action: TransferInstructionAction; operationId: string }> = [
  { action: 'accept', operationId: 'getTransferInstructionAcceptContext' },
  { action: 'reject', operationId: 'getTransferInstructionRejectContext' },
  { action: 'withdraw', operationId: 'getTransferInstructionWithdrawContext' },
];

function endpoints(version: ApiVersion, errors: number[]): PostEndpoint[] {
  const base = `/registry/transfer-instruction/v${version}`;
  const suffix = version === 2 ? 'V2' : '';
  return [
    {
      route: factoryRoute({
        path: `${base}/transfer-factory`,
        operationId: `getTransferFactory${suffix}`,
        description: `Get the factory and choice context for executing a direct transfer (TransferFactory_Transfer, v${version}).`,
        response: TransferFactoryWithChoiceContextSchema,
        errors,
      }),
      body: 'factory',
      call: (api, _params, body, ctx) => api.getTransferFactory(version, body, ctx),
    },
    ...ACTIONS.map(
      ({ action, operationId }): PostEndpoint => ({
        route: contextRoute({
          path: `${base}/{transferInstructionId}/choice-contexts/${action}`,
          param: 'transferInstructionId',
          operationId: `${operationId}${suffix}`,
          description: `Get the choice context to ${action} a transfer instruction (v${version}).`,
          errors,
        }),
        body: 'context',
        call: (api, params, body, ctx) => api.getTransferInstructionContext(version, params.transferInstructionId!, action, body, ctx),
      }),
    ),
  ];
}

export const transferInstructionV1Endpoints = (): PostEndpoint[] => endpoints(1, [400, 404, 409, 503]);
export const transferInstructionV2Endpoints = (): PostEndpoint[] => endpoints(2, [400, 404, 409, 503]);
