/**
 * allocation-instruction-v1.yaml (allocation factory only) and allocation-instruction-v2.yaml
 * (allocation factory, and accept/withdraw contexts of an allocation instruction).
 */
import type { AllocationInstructionAction, ApiVersion } from '../api.js';
import { FactoryWithChoiceContextSchema } from '../schemas.js';
import { contextRoute, factoryRoute, type PostEndpoint } from './common.js';

const ERRORS = [400, 404, 409, 503];

function factory(version: ApiVersion): PostEndpoint {
  return {
    route: factoryRoute({
      path: `/registry/allocation-instruction/v${version}/allocation-factory`,
      operationId: `getAllocationFactory${version === 2 ? 'V2' : ''}`,
      description: `Get the factory and choice context for creating allocations (AllocationFactory_Allocate, v${version}).`,
      response: FactoryWithChoiceContextSchema,
      errors: ERRORS,
    }),
    body: 'factory',
    call: (api, _params, body, ctx) => api.getAllocationFactory(version, body, ctx),
  };
}

export const allocationInstructionV1Endpoints = (): PostEndpoint[] => [factory(1)];

const V2_ACTIONS: Array<{ action: AllocationInstructionAction; operationId: string }> = [
  { action: 'accept', operationId: 'getAllocationInstructionAcceptContextV2' },
  { action: 'withdraw', operationId: 'getAllocationInstructionWithdrawContextV2' },
];

export const allocationInstructionV2Endpoints = (): PostEndpoint[] => [
  factory(2),
  ...V2_ACTIONS.map(
    ({ action, operationId }): PostEndpoint => ({
      route: contextRoute({
        path: `/registry/allocation-instruction/v2/{allocationInstructionId}/choice-contexts/${action}`,
        param: 'allocationInstructionId',
        operationId,
        description: `Get the choice context to ${action} an allocation instruction (v2).`,
        errors: ERRORS,
      }),
      body: 'context',
      call: (api, params, body, ctx) => api.getAllocationInstructionContext(params.allocationInstructionId!, action, body, ctx),
    }),
  ),
];
