/**
 * Canton's built-in admin-workflows package `canton-builtin-admin-workflow-ping`: every
 * participant loads the `canton-builtin-admin-workflow-ping.dar` it ships as a resource at
 * start-up (Canton's `AdminWorkflowServices`), and the participant's `ping` admin command and
 * clients such as the wallet SDK's `PingService` create its one template (module
 * `Canton.Internal.Ping`):
 *
 *   template Ping with id : Text; initiator : Party; responder : Party
 *     signatory initiator; observer responder
 *     choice Respond : ()                  controller responder   (consuming, returns ())
 *     choice AbortPing : () with anyone : Party; controller anyone (consuming, returns ())
 *
 * No ensure clause, no key. The package id and version are the ones Canton 3.4 and 3.5 report
 * (`participant.dars.list()`: main package `de2cc2f9…`, version 3.4.0, "System package").
 *
 * LIMITATIONS: only the main package is listed (a real participant also lists the DAR's
 * daml-prim/daml-stdlib dependencies), and `GET /v2/packages/{id}` cannot return its archive
 * bytes (the emulator does not have them): it answers PACKAGE_NOT_FOUND saying so.
 */
import type { LedgerEngine } from '../../participant/engine.js';
import type { TemplateDef, TemplateRegistry } from '../../participant/templates.js';
import type { QualifiedId } from '../../participant/types.js';
import { nameKey } from '../../participant/types.js';
import { recordParser } from '../../lf-value/native-json-codec.js';
import { rec } from '../../lf-value/native-type.js';
import { nativeChoice } from '../native-choice.js';

export const ADMIN_WORKFLOW_PING_PACKAGE_ID = 'de2cc2f90eb523414ff54e899951dadd8789a4c07e0f71f6d6c9eaf57d412a54';
export const ADMIN_WORKFLOW_PING_PACKAGE_NAME = 'canton-builtin-admin-workflow-ping';
export const ADMIN_WORKFLOW_PING_PACKAGE_VERSION = '3.4.0';
export const PING_MODULE = 'Canton.Internal.Ping';

export const PingId: QualifiedId = {
  packageId: ADMIN_WORKFLOW_PING_PACKAGE_ID,
  packageName: ADMIN_WORKFLOW_PING_PACKAGE_NAME,
  moduleName: PING_MODULE,
  entityName: 'Ping',
};

/** `#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping`: the by-name id clients use. */
export const PING_TEMPLATE_REF = `#${ADMIN_WORKFLOW_PING_PACKAGE_NAME}:${PING_MODULE}:Ping`;

export interface PingPayload {
  id: string;
  initiator: string;
  responder: string;
}

const PingT = rec(['id', 'text'], ['initiator', 'party'], ['responder', 'party']);

function pingTemplate(): TemplateDef<PingPayload> {
  return {
    id: PingId,
    kind: 'native',
    signatories: (p) => [p.initiator],
    observers: (p) => [p.responder],
    parsePayload: recordParser<PingPayload>(PingT, 'createArguments'),
    payloadType: PingT,
    choices: {
      Respond: nativeChoice<PingPayload, Record<string, never>>('Respond', rec(), {
        consuming: true,
        controllers: (p) => [p.responder],
        body: () => ({}),
      }),
      AbortPing: nativeChoice<PingPayload, { anyone: string }>('AbortPing', rec(['anyone', 'party']), {
        consuming: true,
        controllers: (_p, a) => [a.anyone],
        body: () => ({}),
      }),
    },
    implements: [],
  };
}

/** Registers the Ping template (idempotent). */
export function registerPingTemplate(templates: TemplateRegistry): void {
  if (templates.templateByNameKey(nameKey(PingId))) return;
  templates.register(pingTemplate());
}

/**
 * Gives the participant what a real one has from start: the admin-workflows package, listed and
 * vetted under its real id, and its Ping template. Idempotent.
 */
export function installAdminWorkflows(engine: LedgerEngine): void {
  engine.packages.registerBuiltIn({
    packageId: ADMIN_WORKFLOW_PING_PACKAGE_ID,
    name: ADMIN_WORKFLOW_PING_PACKAGE_NAME,
    version: ADMIN_WORKFLOW_PING_PACKAGE_VERSION,
  });
  registerPingTemplate(engine.templates);
}
