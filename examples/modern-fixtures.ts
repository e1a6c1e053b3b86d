// The 2026-07-28-only part of the conformance fixture (the tools and the input_required prompt that the MCP
// conformance suite's 2026-07-28 server scenarios call):
// capability checks, per-request logging, listen triggers, and the input_required round trips. Registered by
// examples/everything.ts; every item here is restricted to the modern era.

import {
  type Context,
  elicitInput,
  type InputRequest,
  inputRequired,
  listRootsInput,
  missingCapability,
  type Server,
  sampleInput,
} from '../core.ts';

const NO_ARGUMENTS = { type: 'object', properties: {} };
const modern = { era: 'modern', inputSchema: NO_ARGUMENTS } as const;

function text(value: string) {
  return { content: [{ type: 'text' as const, text: value }] };
}

function askText(message: string, field: string) {
  return elicitInput({
    message,
    requestedSchema: { type: 'object', properties: { [field]: { type: 'string' } }, required: [field] },
  });
}

/** The accepted content of an elicitation answer, when the client gave one under `key`. */
function accepted(ctx: Context, key: string): Record<string, unknown> | undefined {
  const answer = ctx.inputResponses?.[key];
  return answer?.action === 'accept' && typeof answer.content === 'object' && answer.content !== null
    ? (answer.content as Record<string, unknown>)
    : undefined;
}

function sampledText(ctx: Context, key: string): string | undefined {
  const content = ctx.inputResponses?.[key]?.content as { text?: unknown } | undefined;
  return typeof content?.text === 'string' ? content.text : undefined;
}

export function registerModernFixtures(server: Server): void {
  server.tool('test_missing_capability', { ...modern, description: 'Needs the sampling capability' }, (_args, ctx) => {
    if (typeof ctx.clientCapabilities.sampling !== 'object') throw missingCapability({ sampling: {} });
    return text('Success');
  });
  server.tool('test_streaming_elicitation', { ...modern, description: 'Completes without server requests' }, () =>
    text('Streaming complete'),
  );
  server.tool(
    'test_logging_tool',
    { ...modern, description: 'Logs only when the request set a logLevel' },
    (_args, ctx) => {
      ctx.log('info', 'Logging tool evaluated');
      return text('Logging evaluated');
    },
  );
  server.tool('test_trigger_tool_change', { ...modern, description: 'Publishes a tools list change' }, () => {
    server.notifyListChanged('tools');
    return text('Mutation triggered');
  });
  server.tool('test_trigger_prompt_change', { ...modern, description: 'Publishes a prompts list change' }, () => {
    server.notifyListChanged('prompts');
    return text('Mutation triggered');
  });
  server.tool('test_input_required_result_elicitation', { ...modern, description: 'Asks for a name' }, (_args, ctx) => {
    const name = accepted(ctx, 'user_name')?.name;
    if (typeof name !== 'string') return inputRequired({ user_name: askText('What is your name?', 'name') });
    return text(`Hello, ${name}!`);
  });
  server.tool(
    'test_input_required_result_sampling',
    { ...modern, description: 'Asks the client to sample' },
    (_args, ctx) => {
      const sampled = sampledText(ctx, 'capital_question');
      if (sampled === undefined) {
        return inputRequired({
          capital_question: sampleInput({
            messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
            maxTokens: 100,
          }),
        });
      }
      return text(`Sampled: ${sampled}`);
    },
  );
  server.tool('test_input_required_result_list_roots', { ...modern, description: 'Asks for roots' }, (_args, ctx) => {
    const roots = ctx.inputResponses?.client_roots?.roots;
    if (!Array.isArray(roots)) return inputRequired({ client_roots: listRootsInput() });
    return text(`Found ${roots.length} root(s)`);
  });
  server.tool(
    'test_input_required_result_request_state',
    { ...modern, description: 'Round-trips state' },
    (_args, ctx) => {
      const confirm = ctx.inputResponses?.confirm;
      const state = ctx.requestState as { step?: string } | undefined;
      if (confirm === undefined || state?.step !== 'confirm') {
        return inputRequired(
          {
            confirm: elicitInput({
              message: 'Please confirm',
              requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
            }),
          },
          { step: 'confirm' },
        );
      }
      return text(`Confirmed with state-ok (action=${String(confirm.action)})`);
    },
  );
  server.tool(
    'test_input_required_result_multiple_inputs',
    { ...modern, description: 'Asks three things at once' },
    (_args, ctx) => {
      const responses = ctx.inputResponses;
      if (
        responses?.user_name === undefined ||
        responses.greeting === undefined ||
        responses.client_roots === undefined
      ) {
        return inputRequired(
          {
            user_name: askText('What is your name?', 'name'),
            greeting: sampleInput({
              messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }],
              maxTokens: 50,
            }),
            client_roots: listRootsInput(),
          },
          { step: 'all-inputs' },
        );
      }
      return text(
        `Received ${Object.keys(responses).length} inputs: ${String(accepted(ctx, 'user_name')?.name)}, ${String(sampledText(ctx, 'greeting'))}`,
      );
    },
  );
  server.tool(
    'test_input_required_result_multi_round',
    { ...modern, description: 'Asks in two rounds' },
    (_args, ctx) => {
      const state = ctx.requestState as { round?: number; name?: unknown } | undefined;
      if (state?.round === 2 && typeof accepted(ctx, 'step2')?.color === 'string') {
        return text(`${String(state.name)} likes ${String(accepted(ctx, 'step2')?.color)}`);
      }
      const name = accepted(ctx, 'step1')?.name;
      if (state?.round === 1 && typeof name === 'string') {
        return inputRequired({ step2: askText('Step 2: What is your favorite color?', 'color') }, { round: 2, name });
      }
      return inputRequired({ step1: askText('Step 1: What is your name?', 'name') }, { round: 1 });
    },
  );
  server.tool(
    'test_input_required_result_tampered_state',
    { ...modern, description: 'Refuses altered state' },
    (_args, ctx) => {
      if (ctx.requestState === undefined) {
        return inputRequired(
          {
            confirm: elicitInput({
              message: 'Please confirm',
              requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
            }),
          },
          { step: 'confirm' },
        );
      }
      return text('State verified');
    },
  );
  server.tool(
    'test_input_required_result_capabilities',
    { ...modern, description: 'Asks only what the client can answer' },
    (_args, ctx) => {
      if (ctx.inputResponses !== undefined)
        return text(`Completed with ${Object.keys(ctx.inputResponses).length} input(s)`);
      const requests: Record<string, InputRequest> = {};
      if (typeof ctx.clientCapabilities.sampling === 'object') {
        requests.summary = sampleInput({
          messages: [{ role: 'user', content: { type: 'text', text: 'Summarize' } }],
          maxTokens: 50,
        });
      }
      if (typeof ctx.clientCapabilities.elicitation === 'object') requests.confirm = askText('Please confirm', 'ok');
      if (Object.keys(requests).length === 0) throw missingCapability({ sampling: {} });
      return inputRequired(requests);
    },
  );
  // http-custom-header-server-validation: a string argument mirrored into the Mcp-Param-Region header
  // (MCP 2026-07-28, Basic > Transports > Streamable HTTP > Request Metadata > Custom Headers from Tool Parameters).
  server.tool(
    'test_header_param',
    {
      era: 'modern',
      description: 'Echoes an argument that the client mirrors into the Mcp-Param-Region header',
      inputSchema: {
        type: 'object',
        properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
        required: ['region'],
      },
    },
    (args: { region: string }) => text(`Region: ${args.region}`),
  );
  server.prompt(
    'test_input_required_result_prompt',
    { era: 'modern', description: 'Asks for context first' },
    (_args, ctx) => {
      const context = accepted(ctx, 'user_context')?.context;
      if (typeof context !== 'string') {
        return inputRequired({ user_context: askText('What context should the prompt use?', 'context') });
      }
      return { messages: [{ role: 'user', content: { type: 'text', text: `Prompt with context: ${context}` } }] };
    },
  );
}
