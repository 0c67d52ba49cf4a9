/**
 * allocation-v1.yaml (note the plural `allocations`: execute-transfer, withdraw, cancel) and
 * allocation-v2.yaml (singular `allocation/v2/settlement-factory` as the spec has it, plus
 * withdraw and cancel contexts; no execute-transfer in v2).
 */
import type { AllocationAction, ApiVersion } from '../api.js';
import { FactoryWithChoiceContextSchema } from '../schemas.js';
import { contextRoute, factoryRoute, type PostEndpoint } from './common.js';

const ERRORS = [400, 404, 409, 503];

function contexts(version: ApiVersion, actions: Array<{ action: AllocationAction; operationId: string }>): PostEndpoint[] {
  return actions.map(({ action, operationId }) => ({
    route: contextRoute({
      path: `/registry/allocations/v${version}/{allocationId}/choice-contexts/${action}`,
      param: 'allocationId',
      operationId,
      description: `Get the choice context to ${action} an allocation (v${version}).`,
      errors: ERRORS,
    }),
    body: 'context',
    call: (api, params, body, ctx) => api.getAllocationContext(version, params.allocationId!, action, body, ctx),
  }));
}

export const allocationV1Endpoints = (): PostEndpoint[] =>
  contexts(1, [
    { action: 'execute-transfer', operationId: 'getAllocationTransferContext' },
    { action: 'withdraw', operationId: 'getAllocationWithdrawContext' },
    { action: 'cancel', operationId: 'getAllocationCancelContext' },
  ]);

export const allocationV2Endpoints = (): PostEndpoint[] => [
  {
    route: factoryRoute({
      path: '/registry/allocation/v2/settlement-factory',
      operationId: 'getSettlementFactory',
      description: 'Get the factory and choice context for settling a batch of allocations (SettlementFactory_SettleBatch).',
      response: FactoryWithChoiceContextSchema,
      errors: ERRORS,
    }),
    body: 'factory',
    call: (api, _params, body, ctx) => api.getSettlementFactory(body, ctx),
  },
  ...contexts(2, [
    { action: 'withdraw', operationId: 'getAllocationWithdrawContextV2' },
    { action: 'cancel', operationId: 'getAllocationCancelContextV2' },
  ]),
];
