/**
 * Builds catalog entries from registration calls: schemas compiled and listings computed once,
 * here, so that listing and calling do no conversion work.
 *
 * @module
 */
import type {
  Prompt,
  ResourceTemplate as SdkResourceTemplate,
  Tool,
} from '@modelcontextprotocol/server';
import type {
  PromptArgsShape,
  PromptConfig,
  ReadResourceHandler,
  ReadResourceTemplateHandler,
  ResourceMetadata,
} from '../contract/plugin.ts';
import type { SchemaLike } from '../contract/schema.ts';
import type { ToolConfig } from '../contract/tool.ts';
import { withPrivilegedMark } from './privileged.ts';
import { compileSchema, NO_INPUT_SCHEMA } from './schema.ts';
import type {
  Completer,
  PromptEntry,
  ResourceEntry,
  ResourceTemplateEntry,
  ToolEntry,
} from './types.ts';
import { completerOf, describeField, isOptionalField, objectFromShape } from './zodCompat.ts';

/**
 * The listing of a tool: every key that was given and is not undefined — the known ones (title,
 * description, annotations, `_meta`) and any other (`execution`, `icons`, fields of later
 * revisions), so a mirrored upstream tool is listed exactly as the upstream sent it — with the
 * compiled schemas in place of the declared ones, and `privileged` as its `_meta` mark
 * (`privileged.ts`).
 */
export function toolDefinition(
  name: string,
  config: Omit<ToolConfig<SchemaLike | undefined>, 'inputSchema' | 'outputSchema'>,
  inputJson: Record<string, unknown>,
  outputJson: Record<string, unknown> | undefined,
): Tool {
  const {
    inputSchema: _input,
    outputSchema: _output,
    keepsRunning: _keepsRunning,
    privileged,
    ...given
  } = config as Record<string, unknown>;
  const def: Record<string, unknown> = { name };
  for (const [key, value] of Object.entries(given)) if (value !== undefined) def[key] = value;
  if (privileged === true) def._meta = withPrivilegedMark(def._meta as Record<string, unknown>);
  def.inputSchema = inputJson;
  if (outputJson !== undefined) def.outputSchema = outputJson;
  return def as Tool;
}

export function createToolEntry(
  plugin: string,
  name: string,
  config: ToolConfig<SchemaLike | undefined>,
  handler: ToolEntry['handler'],
): ToolEntry {
  const input =
    config.inputSchema === undefined ? undefined : compileSchema(config.inputSchema, 'input');
  const output =
    config.outputSchema === undefined ? undefined : compileSchema(config.outputSchema, 'output');
  return {
    name,
    plugin,
    definition: toolDefinition(name, config, input?.json ?? NO_INPUT_SCHEMA, output?.json),
    input,
    output,
    handler,
    enabled: true,
    keepsRunning:
      config.keepsRunning === true
        ? {}
        : config.keepsRunning
          ? { ...config.keepsRunning }
          : undefined,
  };
}

export function createResourceEntry(
  plugin: string,
  name: string,
  uri: string,
  metadata: ResourceMetadata,
  read: ReadResourceHandler,
): ResourceEntry {
  return { uri, plugin, definition: { uri, name, ...metadata }, read, enabled: true };
}

/** Duck-typed so that a `ResourceTemplate` from another copy of the SDK is recognised too. */
export function isResourceTemplate(value: unknown): value is SdkResourceTemplate {
  return (
    value !== null &&
    typeof value === 'object' &&
    'uriTemplate' in value &&
    typeof (value as { completeCallback?: unknown }).completeCallback === 'function'
  );
}

export function createTemplateEntry(
  plugin: string,
  name: string,
  template: SdkResourceTemplate,
  metadata: ResourceMetadata,
  read: ReadResourceTemplateHandler,
): ResourceTemplateEntry {
  const uriTemplate = template.uriTemplate.toString();
  return {
    name,
    plugin,
    uriTemplate,
    matcher: template.uriTemplate,
    template,
    definition: { name, uriTemplate, ...metadata },
    read,
    enabled: true,
  };
}

/**
 * The listing of a prompt: every key given (unknown ones too, as for tools) and its arguments —
 * as given (a mirrored prompt keeps the upstream's list), else read from the zod shape.
 */
export function promptDefinition(
  name: string,
  config: Omit<PromptConfig<PromptArgsShape | undefined>, 'argsSchema'>,
  shape: PromptArgsShape | undefined,
): Prompt {
  const { argsSchema: _args, ...given } = config as Record<string, unknown>;
  const def: Record<string, unknown> = { name };
  for (const [key, value] of Object.entries(given)) if (value !== undefined) def[key] = value;
  if (shape && def.arguments === undefined) {
    def.arguments = Object.entries(shape).map(([arg, field]) => {
      const out: Record<string, unknown> = { name: arg };
      const description = describeField(field);
      if (description !== undefined) out.description = description;
      out.required = !isOptionalField(field);
      return out;
    });
  }
  return def as Prompt;
}

export function createPromptEntry(
  plugin: string,
  name: string,
  config: PromptConfig<PromptArgsShape | undefined>,
  handler: PromptEntry['handler'],
): PromptEntry {
  const shape = config.argsSchema;
  const completers = new Map<string, Completer>();
  if (shape) {
    for (const [arg, field] of Object.entries(shape)) {
      const complete = completerOf(field);
      if (complete) completers.set(arg, complete as Completer);
    }
  }
  return {
    name,
    plugin,
    definition: promptDefinition(name, config, shape),
    args: shape ? compileSchema(objectFromShape(shape), 'input') : undefined,
    completers,
    handler,
    enabled: true,
  };
}
