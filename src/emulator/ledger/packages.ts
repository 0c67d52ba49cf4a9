/** Uploaded Daml packages (DARs). (Being fleshed out: DAR reader, upload, listing.) */
export class PackageStore {
  private readonly names = new Map<string, string>();
  has(packageId: string): boolean {
    return this.names.has(packageId);
  }
  nameOf(packageId: string): string | undefined {
    return this.names.get(packageId);
  }
  idsOf(packageName: string): string[] {
    return [...this.names].filter(([, n]) => n === packageName).map(([id]) => id);
  }
}
