/**
 * Every environment variable the two modes read, in one table: its name, the modes that read it,
 * the configuration field it sets in each mode's schema (whose default is the variable's default)
 * and what it means. docs/configuration.md's environment table is generated from it
 * (scripts/config-doc.ts), and a test checks that it names exactly the variables the loaders read
 * (load.ts, operations.ts, upstreams.ts, serve.ts), so a variable added there without a row fails.
 */

export type Mode = 'emulate' | 'serve';

export interface EnvironmentVariable {
  name: string;
  /**
   * The field it sets, per mode that reads it: a dotted path in that mode's schema
   * (EmulatorConfigSchema, RegistryConfigSchema, or `upstreams.<api>` for UpstreamsConfigSchema),
   * or `null` when the variable sets no single field (its default, if any, is `default`).
   */
  fields: Partial<Record<Mode, string | null>>;
  /** The default when no schema field carries it. */
  default?: string;
  meaning: string;
}

export const ENVIRONMENT_VARIABLES: readonly EnvironmentVariable[] = [
  // ---- ports and interfaces
  { name: 'PORT', fields: { emulate: 'port', serve: 'port' }, meaning: '`emulate`: the ledger JSON API port; `serve`: the registry port' },
  { name: 'HOST', fields: { emulate: 'host', serve: 'host' }, meaning: 'interface to bind (`0.0.0.0` in containers)' },
  { name: 'REGISTRY_PORT', fields: { emulate: 'registryPort' }, meaning: "the demo admin's token-standard registry" },
  { name: 'SCAN_PORT', fields: { emulate: 'scanPort' }, meaning: 'emulated scan (and the Amulet registry at its root)' },
  { name: 'VALIDATOR_PORT', fields: { emulate: 'validatorPort' }, meaning: 'emulated validator' },
  { name: 'EXAMPLE_REGISTRY_PORT', fields: { emulate: 'exampleRegistryPort' }, meaning: "the wallet repository's example test-token registry (`examples/test-token-v1-registry`; LocalNet: 5634), off when unset: its operator and TokenRules are seeded, `POST /admin/v2/offer-mint` mints TestTokenV2" },
  { name: 'ADMIN_PORT', fields: { emulate: 'adminPort' }, meaning: "the emulator's admin API (snapshots, restore, reset, clock, mint, fund, holdings)" },
  { name: 'PARTICIPANTS', fields: { emulate: 'participants' }, meaning: '`2` adds `participant2` on the same synchronizer' },
  { name: 'PARTICIPANT2_PORT', fields: { emulate: 'participant2Port' }, meaning: 'ledger JSON API of `participant2`' },
  { name: 'PARTICIPANT_NAME', fields: { emulate: 'participantName' }, meaning: 'name of the first participant (its participant id is `<name>::<fingerprint>`)' },
  { name: 'PROFILE', fields: { emulate: 'profile' }, meaning: '`localnet`: LocalNet\'s addresses, users, parties, auth and instance names (docs/localnet.md); `emulate --profile localnet` too; every setting given explicitly wins' },
  { name: 'PARTICIPANT_ID', fields: { emulate: 'participantId' }, meaning: 'the first participant\'s id, pinned (`<identifier>::1220<64 hex>`); its parties take its namespace' },
  { name: 'PARTICIPANT2_NAME', fields: { emulate: 'participant2Name' }, meaning: 'node name of the second participant' },
  { name: 'PARTICIPANT2_ID', fields: { emulate: 'participant2Id' }, meaning: 'the second participant\'s id, pinned' },
  { name: 'SYNCHRONIZER_ID', fields: { emulate: 'synchronizerId' }, meaning: 'the synchronizer\'s id, pinned' },
  { name: 'NETWORK_NAME', fields: { emulate: 'instanceNames.networkName' }, meaning: 'scan\'s `splice-instance-names`: the network\'s name' },
  { name: 'NETWORK_FAVICON_URL', fields: { emulate: 'instanceNames.networkFaviconUrl' }, meaning: 'scan\'s `splice-instance-names`: the network\'s favicon' },
  { name: 'AMULET_NAME', fields: { emulate: 'instanceNames.amuletName' }, meaning: 'Amulet\'s name (LocalNet: `Amulet`), also the Amulet registry\'s instrument name' },
  { name: 'AMULET_NAME_ACRONYM', fields: { emulate: 'instanceNames.amuletNameAcronym' }, meaning: 'Amulet\'s acronym (LocalNet: `AMT`), also the instrument symbol' },
  { name: 'NAME_SERVICE_NAME', fields: { emulate: 'instanceNames.nameServiceName' }, meaning: 'the name service\'s name (LocalNet: `Amulet Name Service`)' },
  { name: 'NAME_SERVICE_NAME_ACRONYM', fields: { emulate: 'instanceNames.nameServiceNameAcronym' }, meaning: 'the name service\'s acronym (LocalNet: `ANS`)' },
  // ---- the emulated ledger's auth
  { name: 'LEDGER_AUTH', fields: { emulate: 'auth.mode' }, default: 'none', meaning: '`none`, `jwt`, or `localnet` (= `jwt` with LocalNet\'s secret `unsafe` and audience `https://canton.network.global`)' },
  { name: 'LEDGER_AUTH_HS256_SECRET', fields: { emulate: 'auth.hs256Secret' }, meaning: 'HS256 secret (LocalNet uses `unsafe`)' },
  { name: 'LEDGER_AUTH_JWKS_URL', fields: { emulate: 'auth.jwksUrl' }, meaning: 'JWKS URL for RS256/ES256 tokens (`jwt` only)' },
  { name: 'LEDGER_AUTH_PUBLIC_KEY_FILE', fields: { emulate: 'auth.publicKeyPem' }, meaning: 'file holding a PEM public key or certificate (`jwt` only)' },
  { name: 'LEDGER_AUTH_TARGET_AUDIENCE', fields: { emulate: 'auth.targetAudience' }, meaning: "Canton's `target-audience`" },
  { name: 'LEDGER_AUTH_TARGET_SCOPE', fields: { emulate: 'auth.targetScope' }, meaning: "Canton's `target-scope`" },
  { name: 'LEDGER_AUTH_LEEWAY_SECONDS', fields: { emulate: 'auth.leewaySeconds' }, meaning: "Canton's `jwt-timestamp-leeway` for `exp`, `nbf` and `iat`" },
  { name: 'LEDGER_ADMIN_USERS', fields: { emulate: 'adminUsers' }, meaning: 'users holding ParticipantAdmin (comma-separated)' },
  { name: 'VALIDATOR_AUTH_SECRET', fields: { emulate: 'validatorAuth.secret' }, meaning: "HS256 secret of the emulated validator's JWT check" },
  { name: 'VALIDATOR_AUTH_AUDIENCE', fields: { emulate: 'validatorAuth.audience' }, meaning: "audience of the emulated validator's JWT check" },
  { name: 'VALIDATOR_AUTH_JWKS_URL', fields: { emulate: 'validatorAuth.jwksUrl' }, meaning: 'JWKS URL of the emulated validator\'s JWT check' },
  // ---- the emulated world
  { name: 'EMULATOR_SEED', fields: { emulate: 'seed' }, meaning: 'seed of every generated id (same seed, same ids)' },
  { name: 'DEMO_WORLD', fields: { emulate: 'demoWorld' }, meaning: '`false` (or `0`, `no`, `off`) starts an empty ledger' },
  { name: 'DEMO_WORLD_FILE', fields: { emulate: 'world' }, meaning: 'replace the demo world with this JSON file ([the world file](testing.md#the-world-file))' },
  { name: 'DECLARED_TEMPLATES', fields: { emulate: 'declaredTemplates' }, meaning: 'templates of Daml models the emulator does not implement (JSON)' },
  { name: 'DECLARED_TEMPLATES_FILE', fields: { emulate: 'declaredTemplates' }, meaning: 'the same, from a file (wins over `DECLARED_TEMPLATES`)' },
  { name: 'DARS_DIR', fields: { emulate: 'darsDir' }, meaning: 'upload every `*.dar` of this folder at start (their templates are evaluated)' },
  { name: 'TEMPLATE_ENGINE', fields: { emulate: 'templateEngine' }, meaning: '`daml`: TestTokenV1/V2 and Amulet run from their DARs in `DARS_DIR` through the Daml-LF evaluator' },
  { name: 'LEDGER_LIST_MAX_ELEMENTS', fields: { emulate: 'listMaxElements' }, meaning: "the JSON API's `http-list-max-elements-limit`" },
  { name: 'STATE_DIR', fields: { emulate: 'stateDir' }, meaning: 'keep the emulated world in this directory across restarts (in memory only when unset)' },
  { name: 'STATE_SNAPSHOT_EVERY', fields: { emulate: 'snapshotEvery' }, meaning: 'journaled changes between two snapshots of `STATE_DIR`' },
  { name: 'STATE_PROBE_EVERY_MS', fields: { emulate: 'stateProbeEveryMs' }, meaning: 'while `STATE_DIR` cannot be written (a full disk), how often a probe write checks whether it can again' },
  // ---- upstreams
  { name: 'SCAN_UPSTREAM', fields: { emulate: 'upstreams.scan', serve: 'upstreams.scan' }, default: 'emulate', meaning: '`emulate` or `proxy:<url>` (`serve`: proxy only, on the registry\'s port)' },
  { name: 'VALIDATOR_UPSTREAM', fields: { emulate: 'upstreams.validator', serve: 'upstreams.validator' }, default: 'emulate', meaning: '`emulate` or `proxy:<url>` (`serve`: proxy only, on the registry\'s port)' },
  { name: 'LEDGER_UPSTREAM', fields: { serve: 'upstreams.ledger' }, meaning: '`proxy:<url>` forwards `/v2` to the participant on the registry\'s port' },
  { name: 'UPSTREAM_TIMEOUT_MS', fields: { emulate: null, serve: null }, default: '30000', meaning: 'timeout of proxied requests (response head, and each idle gap in the body)' },
  // ---- the registry
  { name: 'REGISTRY_CONFIG_FILE', fields: { serve: null }, meaning: "the registry's configuration file (JSON; [reference](#serve-the-registry-configuration-file))" },
  { name: 'LEDGER_URL', fields: { serve: 'ledger.url' }, meaning: "overrides the file's `ledger.url`" },
  { name: 'LEDGER_TOKEN', fields: { serve: 'ledger.auth' }, meaning: 'a static bearer token for the ledger (`ledger.auth` of kind `static`)' },
  { name: 'LEDGER_OAUTH2_CLIENT_SECRET', fields: { serve: null }, meaning: 'overrides `ledger.auth.clientSecret` when `ledger.auth` is of kind `oauth2`' },
  { name: 'REDIS_URL', fields: { emulate: 'redisUrl', serve: 'redisUrl' }, meaning: "Redis for the registries' cache (memory when unset): one server, a Sentinel group or a Cluster ([forms](operators.md#redis))" },
  { name: 'REDIS_COMMAND_TIMEOUT_MS', fields: { serve: 'redis.commandTimeoutMs' }, meaning: 'a Redis command not answered within this is a miss; Redis is then skipped for `redis.breakerCooldownMs` before one command probes it again' },
  { name: 'AMULET_REGISTRY_COMPAT', fields: { emulate: 'amuletRegistryCompat', serve: 'amuletCompat' }, meaning: 'Amulet registry contexts: `current` (newest scan) or `legacy` (`amulet-rules`/`open-round`)' },
  { name: 'MAX_BODY_BYTES', fields: { serve: 'limits.maxBodyBytes' }, meaning: 'larger request bodies get 413' },
  { name: 'MAX_CONNECTIONS', fields: { serve: 'limits.maxConnections' }, meaning: 'open sockets at most' },
  { name: 'MAX_CONNECTIONS_PER_ADDRESS', fields: { serve: 'limits.maxConnectionsPerAddress' }, default: 'a quarter of `MAX_CONNECTIONS`', meaning: "one client address's share of the sockets" },
  { name: 'RATE_LIMIT_RPS', fields: { serve: 'limits.rateLimit.requestsPerSecond' }, meaning: 'sustained requests per second per client address; `0` turns the rate limit off' },
  { name: 'RATE_LIMIT_BURST', fields: { serve: 'limits.rateLimit.burst' }, meaning: 'requests a client may send at once after being idle' },
  // ---- both
  { name: 'LOG_LEVEL', fields: { emulate: 'logLevel', serve: 'logLevel' }, meaning: 'pino level (`info`: one access-log line per request; `warn`: failures only)' },
  { name: 'CORS_ORIGINS', fields: { emulate: 'corsOrigins', serve: 'corsOrigins' }, meaning: 'browser origins allowed to call the registries (comma-separated, or `*`)' },
  { name: 'SHUTDOWN_DRAIN_MS', fields: { emulate: 'shutdownDrainMs', serve: 'shutdownDrainMs' }, meaning: 'on SIGTERM/SIGINT, longest wait for requests in flight' },
];
