/**
 * A loopback chat-completions server for the agent tests (node:http on 127.0.0.1, port 0): each
 * request is answered by a script from the request body, its number, and the agent that sent it
 * (the X-Conductor-Agent header). Replies: tool calls (arguments as given, so malformed JSON can
 * be sent), plain text, an HTTP error status (429 with Retry-After), or a hang (never answered).
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  n: number;
  agent: number;
  headers: IncomingHttpHeaders;
  body: { model: string; messages: { role: string; content: string | null; tool_call_id?: string; tool_calls?: unknown[] }[]; tools?: { function: { name: string } }[]; [k: string]: unknown };
}

export type Action =
  | { tools: { name: string; args: string | object }[]; content?: string }
  | { text: string }
  | { status: number; retryAfterMs?: number; error?: string }
  | { hang: true };

export type Script = (req: SeenRequest) => Action;

export interface LoopbackServer {
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

export const USAGE = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, cost: 0.0015 };

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export async function startServer(script: Script): Promise<LoopbackServer> {
  const requests: SeenRequest[] = [];
  let ids = 0;
  const server: Server = createServer((req, res) => {
    let data = '';
    req.on('data', (c: Buffer) => { data += c.toString('utf8'); });
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) { send(res, 404, { error: { message: 'not found' } }); return; }
      const seen: SeenRequest = { n: requests.length, agent: Number(req.headers['x-conductor-agent'] ?? -1), headers: req.headers, body: JSON.parse(data) };
      requests.push(seen);
      const a = script(seen);
      if ('hang' in a) return; // never answered: the client times out
      if ('status' in a) {
        const h: Record<string, string> = {};
        if (a.retryAfterMs !== undefined) h['retry-after-ms'] = String(a.retryAfterMs);
        send(res, a.status, { error: { message: a.error ?? `scripted ${a.status}` } }, h);
        return;
      }
      const message = 'tools' in a
        ? {
          role: 'assistant', content: a.content ?? null,
          tool_calls: a.tools.map((t) => ({ id: `call_${++ids}`, type: 'function', function: { name: t.name, arguments: typeof t.args === 'string' ? t.args : JSON.stringify(t.args) } })),
        }
        : { role: 'assistant', content: a.text };
      send(res, 200, {
        id: `cmpl_${requests.length}`, object: 'chat.completion', created: 0, model: seen.body.model,
        choices: [{ index: 0, message, finish_reason: 'tools' in a ? 'tool_calls' : 'stop' }],
        usage: USAGE,
      });
    });
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((res) => { server.closeAllConnections(); server.close(() => res()); }),
  };
}

/** The messages of a request that answer tool calls or nudge (tool and user messages after the first two). */
export function feedback(req: SeenRequest): string[] {
  return req.body.messages.slice(2).filter((m) => m.role === 'tool' || m.role === 'user').map((m) => m.content ?? '');
}

/** Rounds of one agent's requests that reached the script (retries of a round included). */
export function ofAgent(reqs: readonly SeenRequest[], agent: number): SeenRequest[] {
  return reqs.filter((r) => r.agent === agent);
}
