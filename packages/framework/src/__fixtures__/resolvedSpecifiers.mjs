// Module hooks (node:module `register`) that report each specifier this process resolves, e.g.
// `express`, to the port given at registration, in order: for tests of what loads when.
let port;

export function initialize(data) {
  port = data.port;
}

export async function resolve(specifier, context, next) {
  port.postMessage(specifier);
  return next(specifier, context);
}
