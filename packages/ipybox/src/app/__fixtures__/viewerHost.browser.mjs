// A minimal MCP Apps host for tests, run in Chromium (bundled with esbuild by the test): renders
// a ui:// resource in a sandboxed iframe under a deny-by-default CSP, as hosts do, and connects
// it with the ext-apps AppBridge. The app's tools/call and resources/read go to
// window.hostCallTool / window.hostReadResource, which the test exposes from Node, where a real
// SDK client sends them to the real server.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

/** The CSP a host puts on an app that declared no external domains. */
const CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'none'";

function withCsp(html) {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${CSP}">`;
  return html.replace(/<head>/i, `<head>${meta}`);
}

window.showApp = async (html, toolInput, toolResult) => {
  const iframe = document.createElement('iframe');
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.id = 'app';
  document.getElementById('chat').append(iframe);
  const bridge = new AppBridge(
    null,
    { name: 'mcpbox test host', version: '1.0.0' },
    { serverTools: {}, serverResources: {} },
  );
  bridge.oncalltool = (params) => window.hostCallTool(params);
  bridge.onreadresource = (params) => window.hostReadResource(params);
  bridge.onsizechange = ({ height }) => {
    if (height) iframe.style.height = `${Math.ceil(height)}px`;
  };
  const initialized = new Promise((resolve) => {
    bridge.oninitialized = resolve;
  });
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = withCsp(html);
  await initialized;
  await bridge.sendToolInput({ arguments: toolInput });
  await bridge.sendToolResult(toolResult);
};
