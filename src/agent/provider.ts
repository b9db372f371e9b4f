/**
 * The model behind the loop: any server that speaks OpenAI's chat-completions protocol
 * (OpenRouter by default; OpenAI, vLLM, llama.cpp's server, Ollama ...), through the official
 * `openai` client. The client retries 429, 5xx, connection errors and timeouts with exponential
 * backoff (honouring Retry-After); `maxRetries` and `timeout` are options. Every HTTP attempt is
 * counted and reported to `onHttp` (status and time, never headers).
 *
 * The key comes from the environment only and is never printed, logged or written: error
 * messages are scrubbed of it, and the client's own logging is off.
 */
import type OpenAI from 'openai';
import type { ChatCompletionMessage, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { ConductorError } from '../errors.js';

export const DEFAULT_BASE_URL = 'https://openrouter.ai/api/v1';

export interface ProviderOptions {
  model: string;
  baseUrl?: string;
  /** Name of the environment variable holding the key (default: see resolveApiKey). */
  apiKeyEnv?: string;
  temperature?: number;
  /** 'low' | 'medium' | 'high' ... sent where the server supports it. */
  reasoningEffort?: string;
  /** Per-request timeout, ms (default 120 000). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 4). */
  maxRetries?: number;
  /** Environment to read the key from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Called after every HTTP attempt. */
  onHttp?: (e: { attempt: number; status: number | 'error'; ms: number; error?: string }) => void;
}

export interface Usage {
  prompt: number;
  completion: number;
  total: number;
  /** Cost in the provider's currency when it reports one (OpenRouter: usage.cost, USD). */
  cost?: number;
}

export interface ChatReply {
  message: ChatCompletionMessage;
  finishReason: string | null;
  usage: Usage;
  ms: number;
}

export interface ChatProvider {
  readonly model: string;
  readonly baseUrl: string;
  /** One chat completion; `agent` goes along as the X-Conductor-Agent header. */
  complete(messages: ChatCompletionMessageParam[], tools: ChatCompletionTool[] | undefined, agent: number): Promise<ChatReply>;
}

/** Thrown for a missing key or a server that cannot be reached or refuses (exit 2). */
export class ProviderError extends ConductorError {}

const isOpenRouter = (url: string): boolean => /(^|\.)openrouter\.ai$/i.test(safeHost(url));

function safeHost(url: string): string {
  try { return new URL(url).hostname; } catch { return ''; }
}

/**
 * The key and the variable it came from: `--api-key-env V` reads only V; otherwise
 * OPENROUTER_API_KEY then OPENAI_API_KEY for OpenRouter, the other order for any other server.
 */
export function resolveApiKey(baseUrl: string, apiKeyEnv: string | undefined, env: NodeJS.ProcessEnv = process.env): { key: string; variable: string } {
  const names = apiKeyEnv !== undefined ? [apiKeyEnv]
    : isOpenRouter(baseUrl) ? ['OPENROUTER_API_KEY', 'OPENAI_API_KEY'] : ['OPENAI_API_KEY', 'OPENROUTER_API_KEY'];
  for (const n of names) {
    const v = env[n];
    if (v !== undefined && v.trim() !== '') return { key: v.trim(), variable: n };
  }
  throw new ProviderError(`no API key: set ${names.join(' or ')} in the environment` +
    (apiKeyEnv === undefined ? ' (or name another variable with --api-key-env; a local server that needs no key accepts any value)' : ''));
}

/** Replace every occurrence of the secret in a text. */
export function scrub(text: string, secret: string): string {
  return secret.length >= 4 ? text.split(secret).join('[redacted]') : text;
}

export function createProvider(opts: ProviderOptions): ChatProvider {
  const baseUrl = (opts.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  try { new URL(baseUrl); } catch { throw new ProviderError(`--base-url: not a URL: '${baseUrl}'`); }
  const { key } = resolveApiKey(baseUrl, opts.apiKeyEnv, opts.env);
  const openRouter = isOpenRouter(baseUrl);
  let attempt = 0;
  const countingFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const n = ++attempt;
    const t0 = performance.now();
    try {
      const res = await fetch(input, init);
      opts.onHttp?.({ attempt: n, status: res.status, ms: Math.round(performance.now() - t0) });
      return res;
    } catch (e) {
      opts.onHttp?.({ attempt: n, status: 'error', ms: Math.round(performance.now() - t0), error: scrub(String((e as Error).message ?? e), key) });
      throw e;
    }
  };
  // the client's module (about 150 files) is loaded at the first request, not with the command
  let client: Promise<{ sdk: typeof import('openai'); client: OpenAI }> | undefined;
  const clientOf = () => (client ??= import('openai').then((sdk) => ({
    sdk,
    client: new sdk.OpenAI({
      apiKey: key,
      baseURL: baseUrl,
      timeout: opts.timeoutMs ?? 120_000,
      maxRetries: opts.maxRetries ?? 4,
      fetch: countingFetch as typeof fetch,
      logLevel: 'off',
      defaultHeaders: openRouter ? { 'X-Title': 'Conductor' } : undefined,
    }),
  })));
  return {
    model: opts.model,
    baseUrl,
    async complete(messages, tools, agent) {
      const body: Record<string, unknown> = { model: opts.model, messages };
      if (tools) { body['tools'] = tools; body['tool_choice'] = 'auto'; }
      if (opts.temperature !== undefined) body['temperature'] = opts.temperature;
      if (opts.reasoningEffort !== undefined) {
        if (openRouter) body['reasoning'] = { effort: opts.reasoningEffort };
        else body['reasoning_effort'] = opts.reasoningEffort;
      }
      if (openRouter) body['usage'] = { include: true };
      const { sdk, client: api } = await clientOf();
      const t0 = performance.now();
      let res;
      try {
        res = await api.chat.completions.create(body as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
          { headers: { 'X-Conductor-Agent': String(agent) } });
      } catch (e) {
        throw providerError(e, baseUrl, key, sdk);
      }
      const ms = Math.round(performance.now() - t0);
      const choice = res.choices?.[0];
      if (!choice?.message) throw new ProviderError(`${baseUrl}: the reply holds no message (model ${opts.model})`);
      const u = res.usage as (OpenAI.CompletionUsage & { cost?: unknown }) | undefined;
      const usage: Usage = { prompt: u?.prompt_tokens ?? 0, completion: u?.completion_tokens ?? 0, total: u?.total_tokens ?? 0 };
      if (typeof u?.cost === 'number') usage.cost = u.cost;
      return { message: choice.message, finishReason: choice.finish_reason ?? null, usage, ms };
    },
  };
}

function providerError(e: unknown, baseUrl: string, key: string, sdk: typeof import('openai')): ProviderError {
  const { APIConnectionError, APIConnectionTimeoutError, APIError } = sdk;
  if (e instanceof APIConnectionTimeoutError) return new ProviderError(`${baseUrl}: the model server did not answer in time (after retries; --timeout, --max-retries)`);
  if (e instanceof APIConnectionError) {
    const cause = (e as { cause?: { message?: string; code?: string } }).cause;
    return new ProviderError(`cannot reach the model server at ${baseUrl}: ${scrub(cause?.code ?? cause?.message ?? e.message, key)}`);
  }
  if (e instanceof APIError) {
    const what = e.status === 401 || e.status === 403 ? 'the key was refused' : e.status === 404 ? 'not found (check --base-url and --model)' : 'request failed';
    return new ProviderError(`${baseUrl}: ${what} (HTTP ${e.status}): ${scrub(e.message, key)}`);
  }
  return new ProviderError(`${baseUrl}: ${scrub(String((e as Error)?.message ?? e), key)}`);
}
