/**
 * Serves a {@link SkillRegistry} on every session through the SDK's `SkillsExtension`: the
 * skills methods (`skills/list`, `skills/get`, `resources/directory/read`) and the capability go
 * on each session's server while any origin is registered; the `skill://` resource template
 * (reads and `resources/list`) sits in the shared catalog, so the catalog's change signal —
 * `notifications/resources/list_changed` to 2025 sessions and 2026 listeners alike — is the one
 * that tells clients the skills changed.
 *
 * @module
 */
import type { Server } from '@modelcontextprotocol/server';
import { SKILLS_EXTENSION_ID, SkillsExtension } from '@modelcontextprotocol/server/ext/skills';
import type { Catalog } from '../catalog/catalog.ts';
import { createTemplateEntry } from '../catalog/entries.ts';
import type { Logger } from '../contract/logger.ts';
import { attachToSession, captureExtension, type WrapHandler } from './capture.ts';
import type { SkillRegistry } from './registry.ts';

/** Owner of the `skill://` template in the catalog: no plugin can be named like this. */
export const SKILLS_OWNER = SKILLS_EXTENSION_ID;

export interface SkillsServing {
  /**
   * Serves the skills on a session's server, before it connects (nothing while none); `wrap`
   * is the session's handler wrapper, which gives each request its caller and view.
   */
  attach(server: Server, wrap?: WrapHandler): void;
}

export function serveSkills(options: {
  registry: SkillRegistry;
  catalog: Catalog;
  logger: Logger;
  /**
   * Serve the skills methods on every session, even while there are none: a server that
   * loads plugins at run time (mcp-proxy), whose sessions must meet skills that come later.
   */
  always?: boolean;
}): SkillsServing {
  const { registry, catalog, logger, always = false } = options;
  const extension = new SkillsExtension({
    source: registry.source,
    onWarning: (warning) => logger.warn(`skills: ${warning.path}: ${warning.message}`),
  });
  const captured = captureExtension(extension);
  const template = () =>
    createTemplateEntry(SKILLS_OWNER, captured.name, captured.template, {}, (uri, vars, ctx) =>
      captured.read(uri, vars, ctx),
    );
  let served = false;
  registry.onChange(() => {
    // The template comes and goes with the origins; either step announces itself.
    if (served === registry.empty) {
      served = !registry.empty;
      if (served)
        catalog.addBatch({ tools: [], resources: [], templates: [template()], prompts: [] });
      else catalog.removePlugin(SKILLS_OWNER);
      return;
    }
    catalog.touched('resources');
  });
  return {
    attach(server, wrap) {
      if (always || !registry.empty) attachToSession(extension, server, wrap);
    },
  };
}
