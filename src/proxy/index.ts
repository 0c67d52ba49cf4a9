/** Proxy mode: forwarding the ledger, scan and validator APIs to real upstreams. */
export {
  createProxyApp,
  stripHopByHop,
  upstreamTarget,
  DEFAULT_MOUNT_PATHS,
  DEFAULT_PROXY_TIMEOUT_MS,
  type CreateProxyAppOptions,
  type ProxiedApi,
  type ProxyLogger,
} from './forward.js';
