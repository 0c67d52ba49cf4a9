/**
 * The explorer (the web page at the admin port's root) in a real browser: Debian's `chromium`
 * driven by playwright-core, against the emulated stack, with a transfer made through the
 * OFFICIAL wallet SDK (@canton-network/wallet-sdk, `token.transfer.create` + the SDK's own
 * submit): the page shows the seeded parties and instruments; the transfer appears in the
 * transaction list within a second without a reload (pushed on the admin API's event stream);
 * its events expand; the contract page opens from a contract id; the snapshot, restore, mint,
 * clock and reset buttons work; the browser logs no error. Screenshots of the main pages go to
 * test-results/explorer/ (a CI artefact).
 *
 * Runs wherever chromium is installed (CHROMIUM_PATH, default /usr/bin/chromium; `.ci/run`
 * installs it); in CI (CI=true) a missing browser is a failure, never a skip.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type RunningStack } from '../../src/stack.js';
import { createWalletSdk, type WalletSdk } from './support/wallet-sdk.js';

const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const missing = existsSync(CHROMIUM) ? undefined : `no chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;
if (missing && !IN_CI) console.warn(`[explorer] SKIPPED: ${missing}`);

const SHOTS = join(process.cwd(), 'test-results', 'explorer');

/** The flags of a quiet, reproducible headless run: no first-run UI, no background traffic. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

describe.skipIf(missing !== undefined && !IN_CI)('explorer in chromium', () => {
  let stack: RunningStack;
  let aliceSdk: WalletSdk;
  let alice: string;
  let bob: string;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    if (missing) throw new Error(`CI=true but ${missing}`);
    mkdirSync(SHOTS, { recursive: true });
    stack = await startStack({ config: { port: 0, logLevel: 'silent' }, registryPort: 0, scanPort: 0, validatorPort: 0 });
    const party = (hint: string) => stack.seeded!.parties.find((p) => p.hint === hint)!.party;
    alice = party('alice');
    bob = party('bob');
    aliceSdk = await createWalletSdk(stack.ledgerUrl, stack.registryUrl!, 'alice');
    profile = mkdtempSync(join(tmpdir(), 'explorer-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 900 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(`page error: ${e.message}`));
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await stack?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  /** A TT1 transfer alice → bob made the way a wallet makes it: registry factory + context, the SDK's submit. */
  async function transfer(amount: string): Promise<string> {
    const [command, disclosed] = await aliceSdk.token.transfer.create({
      sender: alice,
      recipient: bob,
      amount,
      instrumentId: 'TT1',
      registryUrl: new URL(stack.registryUrl!),
      memo: `explorer test ${amount}`,
    });
    const submitted = await aliceSdk.ledger.internal.submit({ commands: [command], actAs: [alice], disclosedContracts: disclosed });
    return (submitted as { updateId: string }).updateId;
  }

  const txRow = (updateId: string) => page.locator(`li.tx[data-update-id="${updateId}"]`);
  const message = () => page.getByRole('status');

  it('shows the seeded parties and instruments, and the live feed connects', async () => {
    await page.goto(stack.adminUrl + '/');
    await expect.poll(() => page.getByText('Live feed: live').count()).toBe(1);
    const world = page.getByRole('region', { name: 'World' });
    for (const name of ['token-admin', 'alice', 'bob', 'executor']) {
      await expect.poll(() => world.getByRole('cell', { name, exact: true }).count()).toBeGreaterThan(0);
    }
    const instruments = world.locator('table').nth(1);
    for (const id of ['TT1', 'TT2-USD', 'TT2-EUR', 'Amulet']) {
      await expect.poll(() => instruments.getByRole('cell', { name: id, exact: true }).count()).toBe(1);
    }
    // TT1's seeded supply (alice 1000, bob 500).
    expect(await instruments.getByRole('row').filter({ hasText: 'TT1' }).innerText()).toContain('1500.0000000000');
    await page.locator('li.tx').first().waitFor();
    // Accessible markup: one h1, a heading per section, every form field labelled.
    expect(await page.getByRole('heading', { level: 1 }).count()).toBe(1);
    for (const name of ['Between tests', 'World', /^Transactions/, /^Registry, scan and validator requests/]) {
      expect(await page.getByRole('heading', { level: 2, name }).count()).toBe(1);
    }
    const unlabelled = await page.locator('input, select').evaluateAll((fields) => fields.filter((f) => !('labels' in f) || !f.labels || f.labels.length === 0).length);
    expect(unlabelled).toBe(0);
    await page.screenshot({ path: join(SHOTS, 'world.png'), fullPage: false });
  });

  it('a wallet SDK transfer appears in the transaction list within a second, without a reload; its events expand', async () => {
    let navigations = 0;
    page.on('framenavigated', () => navigations++);
    const updateId = await transfer('12.5');
    const submittedAt = Date.now();
    await txRow(updateId).waitFor({ timeout: 1000 });
    expect(Date.now() - submittedAt).toBeLessThan(1000);
    expect(navigations).toBe(0);
    // newest first
    expect(await page.locator('li.tx').first().getAttribute('data-update-id')).toBe(updateId);
    const row = txRow(updateId);
    expect(await row.locator('summary').first().innerText()).toContain('TransferFactory_Transfer');

    // Expand the transaction (keyboard), then its root event.
    await row.locator('summary').first().focus();
    await page.keyboard.press('Enter');
    const rootEvent = row.locator('details.event').first();
    await rootEvent.waitFor();
    await rootEvent.locator('summary').first().click();
    await expect.poll(() => rootEvent.locator('dl.facts').first().innerText()).toContain('Choice argument');
    // The exercise's consequences: the input holding archived, bob's and alice's new holdings created.
    expect(await row.locator('details.event[data-kind="created"]').count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(SHOTS, 'transaction.png'), fullPage: false });
  });

  it('the contract page opens from a contract id', async () => {
    const row = page.locator('li.tx').first();
    const created = row.locator('details.event[data-kind="created"]').first();
    await created.locator('summary').first().click();
    const link = created.locator('dl.facts a.cid').first();
    const cid = await link.getAttribute('title');
    await link.click();
    await page.getByRole('heading', { name: 'Contract', level: 2 }).waitFor();
    const region = page.getByRole('region', { name: 'Contract' });
    await expect.poll(() => region.innerText()).toContain('Signatories');
    expect(await region.innerText()).toContain(cid);
    expect(await region.innerText()).toContain('Payload');
    expect(await region.innerText()).toMatch(/Holding|Token/);
    await page.screenshot({ path: join(SHOTS, 'contract.png'), fullPage: true });
    // and back
    await page.getByRole('link', { name: '← Back to the world' }).click();
    await page.getByRole('region', { name: /^Transactions/ }).waitFor();
  });

  it('the snapshot and restore buttons work', async () => {
    await page.getByRole('button', { name: 'Snapshot' }).click();
    await expect.poll(() => message().innerText()).toMatch(/^Saved snapshot-\d+/);
    const endAtSnapshot = stack.engine.ledgerEnd();

    const later = await transfer('1');
    await txRow(later).waitFor({ timeout: 1000 });
    expect(stack.engine.ledgerEnd()).toBeGreaterThan(endAtSnapshot);

    await page.getByRole('button', { name: 'Restore' }).click();
    await expect.poll(() => message().innerText()).toMatch(/^Restored snapshot-\d+/);
    expect(stack.engine.ledgerEnd()).toBe(endAtSnapshot);
    // The page follows the restored world: the later transfer is gone, the list ends at the snapshot.
    await expect.poll(() => txRow(later).count()).toBe(0);
    await expect.poll(() => page.locator('li.tx').first().getAttribute('data-offset')).toBe(String(endAtSnapshot));
    await page.screenshot({ path: join(SHOTS, 'restored.png'), fullPage: false });
  });

  it('the mint, clock and reset buttons work', async () => {
    const endBefore = stack.engine.ledgerEnd();
    const actions = page.getByRole('region', { name: 'Between tests' });
    await actions.getByLabel('Instrument').selectOption('TT1');
    await actions.getByLabel('Owner').selectOption(bob);
    await actions.getByLabel('Amount').fill('7');
    await actions.getByRole('button', { name: 'Mint' }).click();
    await expect.poll(() => message().innerText()).toMatch(/^Minted 7 TT1/);
    await expect.poll(() => page.locator('li.tx').first().getAttribute('data-offset')).toBe(String(endBefore + 1));

    const before = stack.clock.nowMicros();
    await actions.getByLabel('Seconds').fill('86400');
    await actions.getByRole('button', { name: 'Advance the clock' }).click();
    await expect.poll(() => message().innerText()).toMatch(/^Ledger time is now/);
    expect(stack.clock.nowMicros() - before).toBeGreaterThanOrEqual(86_400_000_000n);

    await actions.getByRole('button', { name: 'Reset' }).click();
    await expect.poll(() => message().innerText()).toMatch(/^Reset to the seeded world/);
    const initialEnd = stack.engine.ledgerEnd();
    expect(initialEnd).toBeLessThan(endBefore);
    await expect.poll(() => page.locator('li.tx').first().getAttribute('data-offset')).toBe(String(initialEnd));
  });

  it('the registry requests the wallet made are listed', async () => {
    const requests = page.getByRole('region', { name: /^Registry, scan and validator requests/ });
    await expect.poll(() => requests.innerText()).toContain('/registry/transfer-instruction/v1/transfer-factory');
  });

  it('logged no console error', () => {
    expect(consoleErrors).toEqual([]);
  });
});
