// Types for debianPackages.mjs (plain JavaScript: ensure-deps runs before tsx is installed).
export const SYSTEM_PYTHON: string;
export const DEBIAN_PACKAGES: (
  | { name: string; module: string }
  | { name: string; command: string }
)[];
export function findOnPath(command: string, path?: string): string | undefined;
export function missingModules(python: string, modules: string[]): string[];
export function missingPackages(options?: { python?: string; path?: string }): string[];
export function installLine(packages: string[]): string;
export function ensureDebianPackages(options?: {
  python?: string;
  path?: string;
  isRoot?: boolean;
  log?: (line: string) => void;
}): { ok: true; installed: string[] } | { ok: false; message: string };
