/**
 * User management and identity providers: /v2/users*, /v2/authenticated-user, /v2/idps*
 * (digital-asset/canton 3.5 `JsUserManagementService`,
 * `UserManagementServiceAuthorization`, `ApiUserManagementService`, `JsIdentityProviderService`).
 *
 * Order of checks, as on Canton: JSON-layer checks (malformed path user id, path/body
 * mismatch), then authorization (claims), then request validation, then state.
 *
 * Identity providers: the emulator has only the default IDP (""), which Canton never lists as a
 * config. So GET /v2/idps answers `[]`, GET/PATCH/DELETE /v2/idps/{id} answer IDP_CONFIG_NOT_FOUND,
 * and POST /v2/idps validates the config and then answers TOO_MANY_IDENTITY_PROVIDER_CONFIGS, as
 * a participant configured with `max-identity-provider-configs = 0` does: a clear, real Canton
 * error rather than a half-supported IDP (tokens of other issuers are not verified here).
 */
import type { Context } from 'hono';
import type { LedgerEnv, RouteModule } from './route-module.js';
import { decodeBody, queryInt } from './decode.js';
import { callerOf, matchIdentityProviderId, requireAdminOrIdpAdminClaims } from './parties.js';
import type { Claims } from '../participant/claims.js';
import { isAdmin } from '../participant/claims.js';
import { errors, LedgerApiError } from '../../canton/errors.js';
import { ledgerStringError, userIdError } from '../participant/object-meta.js';
import type { Right } from '../participant/types.js';
import type { UserDetails, UserInput } from '../participant/users.js';
import {
  CreateIdentityProviderConfigRequestSchema,
  CreateUserRequestSchema,
  UpdateIdentityProviderConfigRequestSchema,
  UpdateUserIdentityProviderIdRequestSchema,
  UpdateUserRequestSchema,
  UserRightsRequestSchema,
  type RightOut,
  type RightWire,
  type UserOut,
  type UserWire,
} from '../../ledger-client/schemas/users.js';

export const usersRoutes: RouteModule = (app) => {
  app.get('/v2/users', (c) => {
    const engine = c.get('engine');
    const pageSize = queryInt(c, 'pageSize');
    const claims = c.get('claims');
    requireAdminOrIdpAdminClaims(claims);
    const idp = matchIdentityProviderId(claims, '');
    const { users, nextPageToken } = engine.users.list({
      pageSize: pageSize ?? 0,
      pageToken: c.req.query('pageToken') ?? '',
      identityProviderId: idp,
    });
    return c.json({ users: users.map(userJson), nextPageToken });
  });

  app.post('/v2/users', async (c) => {
    const engine = c.get('engine');
    const req = await decodeBody(c, CreateUserRequestSchema);
    const claims = c.get('claims');
    requireManageRights(claims, req.rights);
    const idp = matchIdentityProviderId(claims, req.user?.identityProviderId ?? '');
    if (!req.user) throw errors.missingField('user');
    const user = engine.users.create(userInput(req.user, idp), req.rights.map(fromWireRight), callerOf(claims));
    return c.json({ user: userJson(user) });
  });

  app.get('/v2/authenticated-user', (c) => {
    const engine = c.get('engine');
    const claims = c.get('claims');
    if (claims.kind === 'wildcard') {
      // Authorizer.defaultToAuthenticatedUser: no authenticated user behind wildcard claims.
      throw new LedgerApiError(
        'INVALID_TOKEN',
        'The submitted request is missing a user-id: requests with an empty user-id are only supported if there is an authenticated user',
      );
    }
    const idp = matchIdentityProviderId(claims, c.req.query('identity-provider-id') ?? '');
    return c.json({ user: userJson(engine.users.getUser(claims.userId, idp)) });
  });

  app.get('/v2/users/:userId', (c) => {
    const engine = c.get('engine');
    const id = pathUserId(c.req.param('userId'));
    const claims = c.get('claims');
    requireUserReader(claims, id);
    const idp = matchIdentityProviderId(claims, c.req.query('identity-provider-id') ?? '');
    return c.json({ user: userJson(engine.users.getUser(id, idp)) });
  });

  app.patch('/v2/users/:userId', async (c) => {
    const engine = c.get('engine');
    const path = c.req.param('userId');
    const req = await decodeBody(c, UpdateUserRequestSchema);
    if (!req.user || req.user.id !== path) throw unmatchedUserId(path, req.user ? req.user.id : undefined);
    const claims = c.get('claims');
    requireAdminOrIdpAdminClaims(claims);
    const idp = matchIdentityProviderId(claims, req.user.identityProviderId);
    const user = engine.users.update(userInput(req.user, idp), req.updateMask?.paths, callerOf(claims));
    return c.json({ user: userJson(user) });
  });

  app.delete('/v2/users/:userId', (c) => {
    const engine = c.get('engine');
    const id = pathUserId(c.req.param('userId'));
    const claims = c.get('claims');
    requireAdminOrIdpAdminClaims(claims);
    const idp = matchIdentityProviderId(claims, '');
    engine.users.delete(id, idp, callerOf(claims));
    return c.json({});
  });

  app.get('/v2/users/:userId/rights', (c) => {
    const engine = c.get('engine');
    const id = pathUserId(c.req.param('userId'));
    const claims = c.get('claims');
    requireUserReader(claims, id);
    const idp = matchIdentityProviderId(claims, '');
    return c.json({ rights: engine.users.listRights(id, idp).map(rightJson) });
  });

  // Grant (POST) and revoke (PATCH) take the same request and answer with the rights that changed.
  const rightsChange = (op: 'grant' | 'revoke', field: 'newlyGrantedRights' | 'newlyRevokedRights') => async (c: Context<LedgerEnv>) => {
    const engine = c.get('engine');
    const path = c.req.param('userId')!;
    const req = await decodeBody(c, UserRightsRequestSchema);
    if (req.userId !== path) throw unmatchedUserId(path, req.userId);
    const claims = c.get('claims');
    requireManageRights(claims, req.rights);
    const idp = matchIdentityProviderId(claims, req.identityProviderId);
    const changed = engine.users[op](req.userId, req.rights.map(fromWireRight), idp, callerOf(claims));
    return c.json({ [field]: changed.map(rightJson) });
  };
  app.post('/v2/users/:userId/rights', rightsChange('grant', 'newlyGrantedRights'));
  app.patch('/v2/users/:userId/rights', rightsChange('revoke', 'newlyRevokedRights'));

  app.patch('/v2/users/:userId/identity-provider-id', async (c) => {
    const engine = c.get('engine');
    const path = c.req.param('userId');
    const req = await decodeBody(c, UpdateUserIdentityProviderIdRequestSchema);
    if (req.userId !== path) throw unmatchedUserId(path, req.userId);
    requireAdminClaims(c.get('claims'));
    engine.users.updateIdentityProviderId(req.userId, req.sourceIdentityProviderId, req.targetIdentityProviderId);
    return c.json({});
  });

  // ---- identity provider configs (all RequiredClaim.Admin) -------------------------------------

  app.get('/v2/idps', (c) => {
    requireAdminClaims(c.get('claims'));
    return c.json({ identityProviderConfigs: [] });
  });

  app.post('/v2/idps', async (c) => {
    const req = await decodeBody(c, CreateIdentityProviderConfigRequestSchema);
    requireAdminClaims(c.get('claims'));
    const cfg = req.identityProviderConfig;
    if (!cfg) throw errors.missingField('identity_provider_config');
    requireIdpId(cfg.identityProviderId);
    if (cfg.jwksUrl === '') throw errors.missingField('jwks_url');
    if (!URL.canParse(cfg.jwksUrl)) throw errors.invalidField('jwks_url', `Malformed URL: ${cfg.jwksUrl}`);
    if (cfg.issuer === '') throw errors.missingField('issuer');
    throw new LedgerApiError('TOO_MANY_IDENTITY_PROVIDER_CONFIGS', 'creating identity provider config failed.');
  });

  app.get('/v2/idps/:idpId', (c) => {
    requireAdminClaims(c.get('claims'));
    throw idpNotFound('getting identity provider config', requireIdpId(c.req.param('idpId')));
  });

  app.patch('/v2/idps/:idpId', async (c) => {
    const path = c.req.param('idpId');
    const req = await decodeBody(c, UpdateIdentityProviderConfigRequestSchema);
    const cfg = req.identityProviderConfig;
    if (!cfg || cfg.identityProviderId !== path) {
      throw errors.invalidArgument(
        `${path} does not match idp in body: ${cfg ? `Some(IdentityProviderConfig(${cfg.identityProviderId}))` : 'None'}`,
      );
    }
    requireAdminClaims(c.get('claims'));
    requireIdpId(cfg.identityProviderId);
    if (!req.updateMask) throw errors.missingField('update_mask');
    throw idpNotFound('updating identity provider config', cfg.identityProviderId);
  });

  app.delete('/v2/idps/:idpId', (c) => {
    requireAdminClaims(c.get('claims'));
    throw idpNotFound('deleting identity provider config', requireIdpId(c.req.param('idpId')));
  });
};

// ---- wire conversion ----------------------------------------------------------------------------

/** User as Canton prints it: every field, `primaryPartyAuthentication` included (3.5). */
export function userJson(u: UserDetails): UserOut {
  return {
    id: u.id,
    primaryParty: u.primaryParty,
    isDeactivated: u.isDeactivated,
    metadata: { resourceVersion: u.metadata.resourceVersion, annotations: { ...u.metadata.annotations } },
    identityProviderId: u.identityProviderId,
    primaryPartyAuthentication: u.primaryPartyAuthentication,
  };
}

/** Right as Canton prints it: `{"kind":{"CanActAs":{"value":{"party":p}}}}`, `{"kind":{"ParticipantAdmin":{"value":{}}}}`. */
export function rightJson(r: Right): RightOut {
  return { kind: { [r.kind]: { value: 'party' in r ? { party: r.party } : {} } } };
}

/** `fromProtoRight`; the oneof's Empty case is rejected as Canton does. */
export function fromWireRight(w: RightWire): Right {
  const k = w.kind;
  if ('CanActAs' in k) return { kind: 'CanActAs', party: k.CanActAs.value.party };
  if ('CanReadAs' in k) return { kind: 'CanReadAs', party: k.CanReadAs.value.party };
  if ('CanExecuteAs' in k) return { kind: 'CanExecuteAs', party: k.CanExecuteAs.value.party };
  if ('ParticipantAdmin' in k) return { kind: 'ParticipantAdmin' };
  if ('IdentityProviderAdmin' in k) return { kind: 'IdentityProviderAdmin' };
  if ('CanReadAsAnyParty' in k) return { kind: 'CanReadAsAnyParty' };
  if ('CanExecuteAsAnyParty' in k) return { kind: 'CanExecuteAsAnyParty' };
  throw errors.invalidArgument('unknown kind of right - check that the Ledger API version of the server is recent enough');
}

function userInput(u: UserWire, idp: string): UserInput {
  return {
    id: u.id,
    primaryParty: u.primaryParty,
    isDeactivated: u.isDeactivated,
    metadata: { resourceVersion: u.metadata?.resourceVersion ?? '', annotations: u.metadata?.annotations ?? {} },
    identityProviderId: idp,
    primaryPartyAuthentication: u.primaryPartyAuthentication,
  };
}

// ---- checks --------------------------------------------------------------------------------------

/** `JsUserManagementService.malformedUserId`: the path user id must be a valid UserId. */
function pathUserId(raw: string): string {
  const err = userIdError(raw);
  if (err !== undefined) throw errors.invalidArgument(`Malformed user-id: ${err}`);
  return raw;
}

/** `JsUserManagementService.unmatchedUserId` (the Scala Option is printed as Canton prints it). */
function unmatchedUserId(path: string, body: string | undefined): LedgerApiError {
  return errors.invalidArgument(`${path} does not match user in body: ${body === undefined ? 'None' : `Some(${body})`} `);
}

/** `MatchUserIdForUserManagement`: a user may read itself; anyone else needs Adm or IdpAdm. */
function requireUserReader(claims: Claims, userId: string): void {
  if (claims.kind === 'user' && claims.userId === userId) return;
  requireAdminOrIdpAdminClaims(claims);
}

/** Managing users needs Adm or IdpAdm; granting/revoking ParticipantAdmin needs Adm. */
function requireManageRights(claims: Claims, rights: readonly RightWire[]): void {
  if (rights.some((r) => 'ParticipantAdmin' in r.kind)) requireAdminClaims(claims);
  else requireAdminOrIdpAdminClaims(claims);
}

function requireAdminClaims(claims: Claims): void {
  if (!isAdmin(claims)) throw errors.permissionDenied('Claims do not authorize the use of administrative services.');
}

function requireIdpId(id: string): string {
  if (id === '') throw errors.missingField('identity_provider_id');
  const err = ledgerStringError(id);
  if (err !== undefined) throw errors.invalidField('identity_provider_id', err);
  return id;
}

function idpNotFound(operation: string, id: string): LedgerApiError {
  return new LedgerApiError('IDP_CONFIG_NOT_FOUND', `${operation} failed for unknown identity provider id="${id}"`, {
    resources: [['IDENTITY_PROVIDER_CONFIG', id]],
  });
}
