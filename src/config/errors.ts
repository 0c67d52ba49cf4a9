/** A configuration that cannot be used; the CLI prints its message and exits. */
export class ConfigError extends Error {}
