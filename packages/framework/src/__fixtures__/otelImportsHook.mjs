// Module hook (registered by recordOtelImports.mjs): appends every resolved @opentelemetry
// module URL to the file named at registration, so a test sees whether a process loaded any.
import { appendFileSync } from 'node:fs';

let file;

export function initialize(data) {
  file = data?.file;
}

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (file && result.url.includes('/@opentelemetry/')) appendFileSync(file, `${result.url}\n`);
  return result;
}
