/**
 * What the model may call: `evaluate_moves(moves, summary)` and `done(summary)`, as native
 * tool definitions (OpenAI function calling) or as the fenced-JSON text protocol for models
 * without tool calling. Both paths end in the same `ToolCall` values; malformed calls become
 * `ToolCallError`s that are reported back to the model, never thrown.
 */
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';

export const TOOLS: ChatCompletionFunctionTool[] = [
  {
    type: 'function',
    function: {
      name: 'evaluate_moves',
      description: 'Apply move commands (one to three is best) to the current schedule of the region and measure it. Returns the metrics, ' +
        'warnings, whether the objective improved, and the updated tagged region; an invalid command aborts the whole call and the reason is returned.',
      parameters: {
        type: 'object',
        properties: {
          moves: { type: 'array', items: { type: 'string' }, description: "commands: 'move A after B', 'move A before B', 'swap A B'" },
          summary: { type: 'string', description: 'one line: the idea behind these moves' },
        },
        required: ['moves', 'summary'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'done',
      description: 'Finish: the best schedule found so far is kept.',
      parameters: {
        type: 'object',
        properties: { summary: { type: 'string', description: 'what was achieved' } },
        required: ['summary'],
        additionalProperties: false,
      },
    },
  },
];

export type ToolCall =
  | { name: 'evaluate_moves'; moves: string[]; summary: string; id?: string }
  | { name: 'done'; summary: string; id?: string };

export interface ToolCallError {
  name: string;
  error: string;
  id?: string;
}

export function isCallError(c: ToolCall | ToolCallError): c is ToolCallError {
  return 'error' in c;
}

/** Validate a call's name and arguments (already parsed JSON). */
export function toolCallFrom(name: string, args: unknown, id?: string): ToolCall | ToolCallError {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return { name, id, error: 'the arguments must be a JSON object' };
  const a = args as Record<string, unknown>;
  const summary = typeof a['summary'] === 'string' ? a['summary'] : '';
  if (name === 'done') return { name: 'done', summary, id };
  if (name !== 'evaluate_moves') return { name, id, error: `unknown tool '${name}' (tools: evaluate_moves, done)` };
  const moves = a['moves'];
  if (!Array.isArray(moves) || moves.some((m) => typeof m !== 'string')) {
    return { name, id, error: "'moves' must be an array of strings such as [\"move A after B\", \"swap C D\"]" };
  }
  if (moves.length === 0) return { name, id, error: "'moves' is empty: give one to three commands" };
  return { name: 'evaluate_moves', moves: moves as string[], summary, id };
}

/** A native tool call: its arguments are a JSON string that may be malformed. */
export function parseNativeCall(name: string, argumentsText: string, id?: string): ToolCall | ToolCallError {
  let args: unknown;
  try {
    args = argumentsText.trim() === '' ? {} : JSON.parse(argumentsText);
  } catch (e) {
    return { name, id, error: `the arguments are not valid JSON (${(e as Error).message}); send {"moves": [...], "summary": "..."}` };
  }
  return toolCallFrom(name, args, id);
}

/**
 * Text protocol: the fenced JSON blocks of a reply (```json ... ``` or ``` ... ```), each
 * `{"tool": name, ...arguments}` (or `{"tool": name, "arguments": {...}}`). Returns [] when the
 * reply holds no block that names a tool (the caller nudges).
 */
export function parseTextCalls(text: string): (ToolCall | ToolCallError)[] {
  const out: (ToolCall | ToolCallError)[] = [];
  for (const m of text.matchAll(/```[ \t]*(?:json)?[ \t]*\r?\n([\s\S]*?)```/gi)) {
    const body = m[1]!.trim();
    let v: unknown;
    try {
      v = JSON.parse(body);
    } catch (e) {
      if (/"tool"\s*:/.test(body)) out.push({ name: '?', error: `the JSON block is not valid JSON (${(e as Error).message})` });
      continue;
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) continue;
    const o = v as Record<string, unknown>;
    const name = typeof o['tool'] === 'string' ? o['tool'] : typeof o['name'] === 'string' ? o['name'] : undefined;
    if (name === undefined) continue;
    const args = typeof o['arguments'] === 'object' && o['arguments'] !== null ? o['arguments'] : o;
    out.push(toolCallFrom(name, args));
  }
  return out;
}

export const NUDGE_NATIVE = 'Your reply called no tool. Call evaluate_moves(moves, summary) with one to three commands, or done(summary) to finish.';
export const NUDGE_TEXT = 'Your reply held no fenced JSON block naming a tool. Reply with one block: ```json\n{"tool": "evaluate_moves", "moves": ["move A after B"], "summary": "..."}\n``` or {"tool": "done", "summary": "..."}.';

/** A tool result as the text protocol sends it back. */
export function textResult(name: string, result: unknown): string {
  return `Result of ${name}:\n\`\`\`json\n${JSON.stringify(result, null, 1)}\n\`\`\``;
}
