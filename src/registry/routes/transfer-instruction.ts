/** transfer-instruction-v1.yaml and transfer-instruction-v2.yaml: the same operations under /v1 and /v2. */
import type { ApiVersion, TransferInstructionAction } from '../api.js';
import { TransferFactoryWithChoiceContextSchema } from '../schemas.js';
import { contextRoute, factoryRoute, type RegistryApp } from './common.js';

const ACTIONS: Array<{ action: TransferInstructionAction; operationId: string }> = [
  { action: 'accept', operationId: 'getTransferInstructionAcceptContext' },
  { action: 'reject', operationId: 'getTransferInstructionRejectContext' },
  { action: 'withdraw', operationId: 'getTransferInstructionWithdrawContext' },
];

function register(app: RegistryApp, version: ApiVersion, errors: number[]): void {
  const base = `/registry/transfer-instruction/v${version}`;
  app.openapi(
    factoryRoute({
      path: `${base}/transfer-factory`,
      operationId: `getTransferFactory${version === 2 ? 'V2' : ''}`,
      description: `Get the factory and choice context for executing a direct transfer (TransferFactory_Transfer, v${version}).`,
      response: TransferFactoryWithChoiceContextSchema,
      errors,
    }),
    async (c) => c.json(await c.var.registry.getTransferFactory(version, c.req.valid('json')), 200),
  );
  for (const { action, operationId } of ACTIONS) {
    app.openapi(
      contextRoute({
        path: `${base}/{transferInstructionId}/choice-contexts/${action}`,
        param: 'transferInstructionId',
        operationId: `${operationId}${version === 2 ? 'V2' : ''}`,
        description: `Get the choice context to ${action} a transfer instruction (v${version}).`,
        errors,
      }),
      async (c) =>
        c.json(await c.var.registry.getTransferInstructionContext(version, c.req.valid('param').transferInstructionId as string, action, c.req.valid('json')), 200),
    );
  }
}

export const registerTransferInstructionV1 = (app: RegistryApp) => register(app, 1, [400, 404, 409, 503]);
export const registerTransferInstructionV2 = (app: RegistryApp) => register(app, 2, [400, 404, 409, 503]);
