/** Wire schemas of the package service (3.5 spec: `ListVettedPackagesRequest` and its response). */
import { z } from 'zod';

export const PackageMetadataFilterSchema = z.object({
  packageIds: z.array(z.string()).default([]),
  packageNamePrefixes: z.array(z.string()).default([]),
});

export const TopologyStateFilterSchema = z.object({
  participantIds: z.array(z.string()).default([]),
  synchronizerIds: z.array(z.string()).default([]),
});

export const ListVettedPackagesRequestSchema = z.object({
  packageMetadataFilter: PackageMetadataFilterSchema.optional(),
  topologyStateFilter: TopologyStateFilterSchema.optional(),
  pageToken: z.string().default(''),
  pageSize: z.number().int().default(0),
});
export type ListVettedPackagesRequest = z.infer<typeof ListVettedPackagesRequestSchema>;

export const VettedPackageSchema = z.object({
  packageId: z.string(),
  validFromInclusive: z.string().optional(),
  validUntilExclusive: z.string().optional(),
  packageName: z.string().optional(),
  packageVersion: z.string().optional(),
});

export const VettedPackagesSchema = z.object({
  packages: z.array(VettedPackageSchema),
  participantId: z.string(),
  synchronizerId: z.string(),
  topologySerial: z.number().int(),
});

export const ListVettedPackagesResponseSchema = z.object({
  vettedPackages: z.array(VettedPackagesSchema).default([]),
  nextPageToken: z.string().default(''),
});
export type ListVettedPackagesResponse = z.infer<typeof ListVettedPackagesResponseSchema>;

export const ListPackagesResponseSchema = z.object({ packageIds: z.array(z.string()) });

export const GetPackageStatusResponseSchema = z.object({
  packageStatus: z.enum(['PACKAGE_STATUS_UNSPECIFIED', 'PACKAGE_STATUS_REGISTERED']),
});
