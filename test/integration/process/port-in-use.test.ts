/**
 * A port already in use is one clear error naming it: `startStack` rejects with PortInUseError,
 * and `emulate` prints that one line (no stack trace) and exits 1. Under the localnet profile the
 * line says what it most likely means ("is LocalNet running?"). The profile's other ports are set
 * to free ones here, so this file binds no fixed port.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PortInUseError } from '../../../src/http/listen.js';
import { startStack } from '../../../src/stack.js';
import { freePort, startMain } from '../../support/processes.js';

describe('a port already in use', () => {
  let taken: net.Server;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(port, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => taken.close(() => resolve()));
  });

  it('startStack rejects with one error naming it (and the localnet profile says what it likely means)', async () => {
    const plain = startStack({ config: { port, logLevel: 'silent' }, registryPort: 0, scanPort: 0, validatorPort: 0, adminPort: 0 });
    await expect(plain).rejects.toThrow(new PortInUseError(port, `port ${port} is in use`));
    // The scan port this time: not the first server started, so those before it are closed again.
    const localnet = startStack({ profile: 'localnet', config: { port: 0, participant2Port: 0, validatorPort: 0, scanPort: port, logLevel: 'silent' }, adminPort: 0 });
    await expect(localnet).rejects.toThrow(`port ${port} is in use: is LocalNet running?`);
  });

  it('emulate --profile localnet prints that one line and exits 1', async () => {
    const p = startMain(['emulate', '--profile', 'localnet'], { PORT: String(port), PARTICIPANT2_PORT: '0', VALIDATOR_PORT: '0', SCAN_PORT: '0', ADMIN_PORT: '0', LOG_LEVEL: 'silent' });
    expect(await p.exited(30_000)).toBe(1);
    expect(p.output()).toBe(`port ${port} is in use: is LocalNet running?\n`);
  });
});
