import { describe, expect, it } from 'vitest';
import { ManifestError, parseManifestAttributes, readDarManifest } from '../../../../src/emulator/dar/manifest.js';
import { buildManifest } from '../../../support/dar-builder.js';

const longPath = `my-package-1.0.0-${'a'.repeat(64)}/my-package-1.0.0-${'a'.repeat(64)}.dalf`;

describe('DAR manifest', () => {
  it('unfolds 72-byte continuation lines', () => {
    const text = buildManifest([
      ['Manifest-Version', '1.0'],
      ['Main-Dalf', longPath],
      ['Dalfs', `${longPath}, dep/b.dalf,dep/c.dalf`],
      ['Format', 'daml-lf'],
      ['Name', 'my-package-1.0.0'],
      ['Sdk-Version', '3.4.0'],
    ]);
    expect(text.split('\n').every((l) => Buffer.byteLength(l) <= 72)).toBe(true);
    expect(text).toContain('\n ');
    const m = readDarManifest(Buffer.from(text));
    expect(m.mainDalf).toBe(longPath);
    expect(m.dependencyDalfs).toEqual(['dep/b.dalf', 'dep/c.dalf']);
    expect(m.name).toBe('my-package-1.0.0');
    expect(m.sdkVersion).toBe('3.4.0');
  });

  it('accepts CRLF line ends and ignores sections after the first blank line', () => {
    const text = 'Main-Dalf: a.dalf\r\nDalfs: a.dalf\r\nformat: daml-lf\r\n\r\nName: section\r\nMain-Dalf: other.dalf\r\n';
    const m = readDarManifest(Buffer.from(text));
    expect(m.mainDalf).toBe('a.dalf');
    expect(m.dependencyDalfs).toEqual([]);
    expect(parseManifestAttributes(text)).toEqual({ 'Main-Dalf': 'a.dalf', Dalfs: 'a.dalf', format: 'daml-lf' });
  });

  it('requires Main-Dalf, Dalfs and Format: daml-lf with DarManifestReader messages', () => {
    expect(() => readDarManifest(Buffer.from('Dalfs: a\nFormat: daml-lf\n'))).toThrow(
      new ManifestError('Cannot find attribute: Main-Dalf'),
    );
    expect(() => readDarManifest(Buffer.from('Main-Dalf: a\nFormat: daml-lf\n'))).toThrow('Cannot find attribute: Dalfs');
    expect(() => readDarManifest(Buffer.from('Main-Dalf: a\nDalfs: a\n'))).toThrow('Cannot find attribute: Format');
    expect(() => readDarManifest(Buffer.from('Main-Dalf: a\nDalfs: a\nFormat: zip\n'))).toThrow('Unsupported format: zip');
  });
});
