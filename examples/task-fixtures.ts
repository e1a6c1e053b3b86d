// The tasks part of the conformance fixture: the tools the MCP conformance suite's `tasks-*` scenarios call, with
// exactly the behaviour they check, served in both eras (2026-07-28 through the tasks extension, 2025-11-25 through
// `params.task`). Registered by examples/everything.ts, which installs the extension.

import { setTimeout as delay } from 'node:timers/promises';
import { type Context, elicitInput, inputRequired, ProtocolError, type Server } from '../core.ts';

function text(value: string) {
  return { content: [{ type: 'text' as const, text: value }] };
}

/** The accepted content of an elicitation answer. */
function acceptedContent(answer: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  return answer?.action === 'accept' && typeof answer.content === 'object' && answer.content !== null
    ? (answer.content as Record<string, unknown>)
    : undefined;
}

/** A form elicitation asking for the named fields. */
function form(message: string, properties: Record<string, unknown>) {
  return { mode: 'form', message, requestedSchema: { type: 'object', properties } };
}

/** Waits `ms`, ending early (rejecting) when the call or its task is cancelled. */
function work(ms: number, ctx: Context): Promise<void> {
  return delay(ms, undefined, { signal: ctx.signal });
}

export function registerTaskFixtures(server: Server): void {
  server.tool(
    'greet',
    {
      description: 'Greets by name at once (never a task)',
      inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    },
    ({ name }: { name: string }) => text(`Hello, ${name}!`),
  );
  server.tool(
    'slow_compute',
    {
      description: 'Works for `seconds`, then reports; a task when the client can take one',
      taskSupport: 'optional',
      inputSchema: {
        type: 'object',
        properties: { seconds: { type: 'number', minimum: 0, maximum: 600 }, label: { type: 'string' } },
        required: ['seconds'],
      },
    },
    async ({ seconds, label }: { seconds: number; label?: string }, ctx) => {
      await ctx.task?.setStatusMessage(`computing for ${seconds} s`);
      await work(seconds * 1000, ctx);
      return text(`Computed ${label ?? 'result'} after ${seconds} s`);
    },
  );
  server.tool(
    'failing_job',
    { description: 'Runs about a second as a task, then fails as a tool (isError)', taskSupport: 'required' },
    async (_args, ctx) => {
      await work(1000, ctx);
      return { ...text('The job failed'), isError: true };
    },
  );
  server.tool(
    'protocol_error_job',
    { description: 'Runs briefly as a task, then fails with a JSON-RPC error', taskSupport: 'optional' },
    async (_args, ctx) => {
      await work(100, ctx);
      throw new ProtocolError(-32603, 'The job failed with a protocol error');
    },
  );
  server.tool(
    'confirm_delete',
    {
      description: 'Asks the client to confirm, then deletes (pretends to)',
      taskSupport: 'optional',
      inputSchema: { type: 'object', properties: { filename: { type: 'string' } } },
    },
    async ({ filename }: { filename?: string }, ctx) => {
      await work(50, ctx);
      const answer = await ctx.elicit(form(`Delete ${filename ?? 'the file'}?`, { confirm: { type: 'boolean' } }));
      return acceptedContent(answer)?.confirm === true ? text(`Deleted ${filename ?? 'the file'}`) : text('Kept');
    },
  );
  server.tool(
    'multi_input',
    { description: 'Asks for two inputs at once, then reports both', taskSupport: 'optional' },
    async (_args, ctx) => {
      const first = acceptedContent(ctx.inputResponses?.first);
      const second = acceptedContent(ctx.inputResponses?.second);
      if (first === undefined || second === undefined) {
        await work(50, ctx);
        return inputRequired({
          first: elicitInput(form('First input?', { name: { type: 'string' }, confirm: { type: 'boolean' } })),
          second: elicitInput(form('Second input?', { name: { type: 'string' }, confirm: { type: 'boolean' } })),
        });
      }
      return text(`Got ${String(first.name)} and ${String(second.name)}`);
    },
  );
  server.tool(
    'test_tool_with_task',
    { description: 'Asks for a name in the request, then greets as a task', taskSupport: 'required' },
    async (_args, ctx) => {
      const name = acceptedContent(ctx.inputResponses?.user_name)?.name;
      // Asked before any wait, so it is answered in the request (an input round), before a task exists.
      if (typeof name !== 'string')
        return inputRequired({ user_name: elicitInput(form('What is your name?', { name: { type: 'string' } })) });
      await work(100, ctx); // the work: the call becomes a task here
      return text(`Hello, ${name}, from a task`);
    },
  );
}
