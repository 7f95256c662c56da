/**
 * An in-process ToolChatModel for harness tests: answers from a script of
 * turns (fixed, or computed from the messages sent), records every request.
 */
import type { ChatTurn, ChatTurnOptions, ToolChatModel, WireMessage } from '../../src/llm/toolChat.js';

/** One scripted turn: a reply, a function of the request, or an error to throw. */
export type ScriptedTurn = Partial<ChatTurn> | ((messages: readonly WireMessage[], opts: ChatTurnOptions | undefined) => Partial<ChatTurn>) | { throw: Error };

/** A tool call turn: `call('bash', { command: 'ls' }, 'bash', {...})`. */
export function calls(...pairs: [string, Record<string, unknown> | string][]): Partial<ChatTurn> {
  return {
    content: '',
    finishReason: 'tool_calls',
    toolCalls: pairs.map(([name, args], i) => ({ id: `c${Math.random().toString(36).slice(2, 8)}_${i}`, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) })),
  };
}

/** A final answer (no tool call). */
export const final = (content = 'Done.'): Partial<ChatTurn> => ({ content, toolCalls: [], finishReason: 'stop' });

/** A model answering from `script`; past its end it answers `final('script exhausted')`. */
export function toolModel(script: readonly ScriptedTurn[]): ToolChatModel & { requests: { messages: WireMessage[]; opts: ChatTurnOptions | undefined }[] } {
  const requests: { messages: WireMessage[]; opts: ChatTurnOptions | undefined }[] = [];
  let i = 0;
  return {
    name: 'tool-model',
    requests,
    async complete() {
      throw new Error('toolModel: complete() is not scripted');
    },
    async chat(messages, opts) {
      requests.push({ messages: JSON.parse(JSON.stringify(messages)) as WireMessage[], opts });
      if (opts?.signal?.aborted) throw Object.assign(new Error('aborted'), { code: 'ABORT' });
      const s = i < script.length ? script[i++]! : final('script exhausted');
      if ('throw' in s) throw s.throw;
      const t = typeof s === 'function' ? s(messages, opts) : s;
      return { content: '', toolCalls: [], finishReason: 'stop', usage: { promptTokens: 100, completionTokens: 10 }, ...t };
    },
  };
}
