/**
 * Admin surfaces, part of the plugin contract: what a plugin offers a host's operator — rows to
 * look at and actions to take on them — without the host importing the plugin. A plugin
 * publishes one with `server.publishAdmin('ipybox', surface)`; a host (mcp-proxy's web
 * console) reads `registry.adminSurfaces()` and renders whatever is there. A surface leaves with
 * the registration that published it (unload, or replaced by a reload).
 *
 * Everything here is plain data, so a host can render it without knowing the plugin: columns
 * of short values, and per-row actions named by id.
 *
 * @module
 */

/** One value of a row: shown as text (`null`: not known). */
export type AdminValue = string | number | boolean | null;

export interface AdminColumn {
  key: string;
  label: string;
  /** How to show a number: milliseconds as a duration, bytes as a size, or as it is. */
  unit?: 'ms' | 'bytes';
}

export interface AdminRow {
  /** Names the row in {@link AdminSection.act}; unique within the section at one time. */
  id: string;
  values: Record<string, AdminValue>;
  /** Ids of the section's actions that apply to this row now. */
  actions: string[];
}

export interface AdminAction {
  id: string;
  label: string;
  /** Changes or destroys state a person may want to think about (shown apart). */
  destructive?: boolean;
}

export interface AdminSection {
  /** Stable id, e.g. `approvals`. */
  id: string;
  title: string;
  columns: AdminColumn[];
  actions: AdminAction[];
  /** The rows now. */
  rows(): AdminRow[] | Promise<AdminRow[]>;
  /**
   * Takes `action` on row `rowId`; resolves with a short message for the operator, rejects with
   * an error saying what went wrong (an unknown or finished row, say).
   */
  act(rowId: string, action: string): Promise<string>;
}

export interface AdminSurface {
  title: string;
  sections: AdminSection[];
  /**
   * Called when a host starts serving the surface to people (e.g. the console registers as an
   * approval client); returns what to call when it stops. Optional.
   */
  open?(): () => void;
}

/** A published surface and the plugin it belongs to. */
export interface PublishedAdmin {
  plugin: string;
  /** The name given to `publishAdmin`, unique per plugin. */
  name: string;
  surface: AdminSurface;
}
