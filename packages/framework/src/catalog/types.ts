/**
 * Entries of the shared catalog. Each one knows its owning plugin and carries its listing
 * (`definition`, computed at registration) next to what the call path needs.
 *
 * @module
 */
import type {
  Prompt,
  Resource,
  ResourceTemplateType as ResourceTemplateDefinition,
  ResourceTemplate as SdkResourceTemplate,
  Tool,
  UriTemplate,
} from '@modelcontextprotocol/server';
import type {
  PromptReturn,
  ReadResourceHandler,
  ReadResourceTemplateHandler,
} from '../contract/plugin.ts';
import type { KeepsRunning, RequestExtra, ToolContext, ToolReturn } from '../contract/tool.ts';
import type { CompiledSchema } from './schema.ts';

/** The three lists a client can be told changed. */
export type CatalogKind = 'tools' | 'resources' | 'prompts';

export interface ToolEntry {
  readonly name: string;
  readonly plugin: string;
  /** What `tools/list` shows; rebuilt when the entry is updated. */
  definition: Tool;
  /** Undefined when the tool declared no input schema: the handler then gets only the context. */
  readonly input: CompiledSchema | undefined;
  readonly output: CompiledSchema | undefined;
  handler: (argsOrCtx: unknown, ctx?: ToolContext) => ToolReturn | Promise<ToolReturn>;
  enabled: boolean;
  /** Set when the tool keeps running while it asks (ToolConfig `keepsRunning`). */
  readonly keepsRunning?: KeepsRunning;
}

export interface ResourceEntry {
  readonly uri: string;
  readonly plugin: string;
  definition: Resource;
  read: ReadResourceHandler;
  enabled: boolean;
}

export interface ResourceTemplateEntry {
  readonly name: string;
  readonly plugin: string;
  /** The template text, the key collisions are checked on. */
  readonly uriTemplate: string;
  readonly matcher: UriTemplate;
  /** The SDK object, for its `list` and `complete` callbacks. */
  readonly template: SdkResourceTemplate;
  definition: ResourceTemplateDefinition;
  read: ReadResourceTemplateHandler;
  enabled: boolean;
}

/** Suggests values for one argument, as the SDK's `completable()` callbacks do. */
export type Completer = (
  value: string,
  context?: { arguments?: Record<string, string> },
) => string[] | Promise<string[]>;

export interface PromptEntry {
  readonly name: string;
  readonly plugin: string;
  definition: Prompt;
  readonly args: CompiledSchema | undefined;
  readonly completers: ReadonlyMap<string, Completer>;
  handler: (argsOrCtx: unknown, ctx?: RequestExtra) => PromptReturn | Promise<PromptReturn>;
  enabled: boolean;
}

/** Everything one plugin registers, committed to the catalog in one step. */
export interface CatalogBatch {
  tools: ToolEntry[];
  resources: ResourceEntry[];
  templates: ResourceTemplateEntry[];
  prompts: PromptEntry[];
}

/** A name already taken in the catalog, and by whom. */
export interface Collision {
  kind: 'tool' | 'resource' | 'resource template' | 'prompt';
  key: string;
  owner: string;
}

export type CatalogChangeListener = (kinds: ReadonlySet<CatalogKind>) => void;

/**
 * What a plugin's batch passes on its way into the catalog (the pin book's screen): the part
 * that may enter now; the rest is held by the screen, out of every listing and lookup, until it
 * is released (into `Catalog.release`).
 */
export interface CatalogScreen {
  screen(plugin: string, batch: CatalogBatch): CatalogBatch;
  /** The plugin left the catalog: what is held of it goes too. */
  forget(plugin: string): void;
  /** A tool held back, with the reason a caller is told. */
  heldTool(name: string): { entry: ToolEntry; reason: string } | undefined;
  heldPrompt(name: string): { entry: PromptEntry; reason: string } | undefined;
  /** The plugin holding a name that is held back (a name it keeps, as if listed). */
  heldOwner(kind: 'tool' | 'prompt', name: string): string | undefined;
}
