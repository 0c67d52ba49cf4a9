/**
 * Package service endpoints (Canton JSON Ledger API openapi.yaml, `JsPackageService.scala`):
 *  - POST /v2/dars, POST /v2/packages (legacy): upload a DAR given as the raw body (any or no
 *    content type), `{}` back; ParticipantAdmin only;
 *  - POST /v2/dars/validate: the same checks, nothing stored, 200 with an empty body;
 *  - GET /v2/packages, /v2/packages/{id} (the ArchivePayload bytes; a 404 for a built-in package,
 *    whose bytes the emulator does not have), /v2/packages/{id}/status;
 *  - POST /v2/package-vetting/list: what is vetted where (any authenticated user).
 */
import type { Context } from 'hono';
import { requireAdmin } from '../participant/claims.js';
import { errors, LedgerApiError, PlainTextBadRequest } from '../../canton/errors.js';
import { compareVersions } from '../participant/packages.js';
import {
  ListVettedPackagesRequestSchema,
  type ListVettedPackagesResponse,
} from '../../ledger-client/schemas/packages.js';
import type { LedgerEnv, RouteModule } from './route-module.js';
import { decodeBody } from './decode.js';

/** `packageFeature.maxVettedPackagesPageSize` of `/v2/version`. */
const MAX_VETTED_PACKAGES_PAGE_SIZE = 100;

export const packagesRoutes: RouteModule = (app) => {
  const upload = async (c: Context<LedgerEnv>) => {
    requireAdmin(c.get('claims'));
    const vetAllPackages = queryBool(c, 'vetAllPackages') ?? true;
    checkSynchronizer(c);
    c.get('engine').packages.uploadDar(await rawBody(c), { vetAllPackages });
    return c.json({});
  };
  app.post('/v2/dars', upload);
  app.post('/v2/packages', upload);

  app.post('/v2/dars/validate', async (c) => {
    requireAdmin(c.get('claims'));
    checkSynchronizer(c);
    c.get('engine').packages.validateDar(await rawBody(c));
    return c.body(null, 200);
  });

  app.get('/v2/packages', (c) => c.json({ packageIds: c.get('engine').packages.list() }));

  app.get('/v2/packages/:packageId', (c) => {
    const id = c.req.param('packageId');
    const packages = c.get('engine').packages;
    const payload = packages.payload(id);
    if (!payload) {
      // A built-in package is listed and REGISTERED, but the emulator has only its metadata:
      // say so rather than serve bytes whose hash is not its id.
      const builtIn = packages.builtInPackage(id);
      const cause = builtIn
        ? `Package ${builtIn.name} ${builtIn.version} is built into the emulated participant without its archive: its bytes are not available.`
        : 'Could not find package.';
      throw new LedgerApiError('PACKAGE_NOT_FOUND', cause, { resources: [['PACKAGE', id]] });
    }
    return c.body(new Uint8Array(payload), 200, {
      'Content-Type': 'application/octet-stream',
      'Canton-Package-Hash': id,
    });
  });

  app.get('/v2/packages/:packageId/status', (c) =>
    c.json({
      packageStatus: c.get('engine').packages.has(c.req.param('packageId'))
        ? 'PACKAGE_STATUS_REGISTERED'
        : 'PACKAGE_STATUS_UNSPECIFIED',
    }),
  );

  app.post('/v2/package-vetting/list', async (c) => {
    const req = await decodeBody(c, ListVettedPackagesRequestSchema);
    if (req.pageSize < 0 || req.pageSize > MAX_VETTED_PACKAGES_PAGE_SIZE) {
      throw errors.invalidField('page_size', `must be between 0 and ${MAX_VETTED_PACKAGES_PAGE_SIZE}, got ${req.pageSize}`);
    }
    const engine = c.get('engine');
    const { serial, packages } = engine.packages.vettedPackages();
    const meta = req.packageMetadataFilter;
    const topo = req.topologyStateFilter;
    const matches = packages.filter(
      (p) =>
        !meta ||
        (meta.packageIds.length === 0 && meta.packageNamePrefixes.length === 0) ||
        meta.packageIds.includes(p.packageId) ||
        meta.packageNamePrefixes.some((prefix) => p.name.startsWith(prefix)),
    );
    const onThisNode =
      (!topo || topo.participantIds.length === 0 || topo.participantIds.includes(engine.participantId)) &&
      (!topo || topo.synchronizerIds.length === 0 || topo.synchronizerIds.includes(engine.synchronizerId));
    // One participant on one synchronizer: at most one `VettedPackages`, so one page holds it
    // all and a page token (which can only point past it) yields nothing.
    const body: ListVettedPackagesResponse = { vettedPackages: [], nextPageToken: '' };
    if (onThisNode && matches.length > 0 && req.pageToken === '') {
      matches.sort(
        (a, b) =>
          a.name.localeCompare(b.name) || compareVersions(a.version, b.version) || a.packageId.localeCompare(b.packageId),
      );
      body.vettedPackages.push({
        // Vetting on upload has no time bounds: `validFromInclusive`/`validUntilExclusive` are
        // left out (the spec types them as non-nullable strings).
        packages: matches.map((p) => ({ packageId: p.packageId, packageName: p.name, packageVersion: p.version })),
        participantId: engine.participantId,
        synchronizerId: engine.synchronizerId,
        topologySerial: serial,
      });
    }
    return c.json(body);
  });
};

async function rawBody(c: Context<LedgerEnv>): Promise<Buffer> {
  return Buffer.from(await c.req.arrayBuffer());
}

/** tapir's boolean query codec (`String.toBoolean`: `true`/`false`, any case). */
function queryBool(c: Context<LedgerEnv>, name: string): boolean | undefined {
  const raw = c.req.query(name);
  if (raw === undefined) return undefined;
  const v = raw.toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new PlainTextBadRequest(`Invalid value for: query parameter ${name}`);
}

/** The emulated participant is connected to one synchronizer; vetting elsewhere is refused. */
function checkSynchronizer(c: Context<LedgerEnv>): void {
  const sync = c.req.query('synchronizerId');
  const engine = c.get('engine');
  if (sync !== undefined && sync !== '' && sync !== engine.synchronizerId) {
    throw errors.invalidArgument(`The participant is not connected to synchronizer ${sync}`);
  }
}
