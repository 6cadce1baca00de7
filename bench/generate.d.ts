/** Types for bench/generate.js (plain JS, run without a build step). */
export interface KObj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: any;
  [k: string]: unknown;
}
export interface Owner {
  ns: string;
  apex: string;
  mode: 'http01' | 'dns01';
}
export interface Meta {
  size: string;
  seed: number;
  tenants: number;
  namespaces: number;
  tenantGateways: number;
  httpRoutes: number;
  tlsRoutes: number;
  snapshotObjects: number;
}
export interface Generated {
  tenants: KObj[];
  snapshot: KObj[];
  owners: Owner[];
  values: Record<string, unknown>;
  valuesDns01: Record<string, unknown>;
  meta: Meta;
}
export const SIZES: Record<'S' | 'M' | 'L' | 'XL' | 'TS' | 'TL' | 'FN', number>;
export const DEFAULT_SEED: number;
export const ROOT_HOST: string;
export const CUSTOM_SUFFIX: string;
export function prng(seed: number): {
  next(): number;
  int(n: number): number;
  pick<T>(xs: T[]): T;
  chance(p: number): boolean;
};
export function generate(size?: string, seed?: number, opts?: { tops?: number; tenantsOnly?: boolean }): Generated;
export function writePlatform(
  dir: string,
  size?: string,
  seed?: number,
  opts?: { tops?: number },
): {
  dir: string;
  files: {
    values: string;
    valuesDns01: string;
    tenants: string;
    /** Undefined for a tenants-only size (FN). */
    snapshot?: string;
    snapshotJson?: string;
    resourceList: string;
    meta: string;
  };
  meta: Meta & { tenantsBytes: number; snapshotBytes: number; snapshotJsonBytes: number; resourceListBytes: number };
};
export function jsonList(objs: unknown[]): string;
export function dumpStream(objs: unknown[]): string;
export function tmpDir(prefix?: string): string;
export function platformValues(solver: string): Record<string, unknown>;
export const SCALE: { objects: number; routes: number };
export function writeScale(
  dir: string,
  opts?: { objects?: number; routes?: number },
): {
  files: { objects: string; routes: string };
  meta: { objects: number; routes: number; objectsBytes: number; routesBytes: number };
};
export function resourceList(tenants: KObj[], values: Record<string, unknown>): string;
