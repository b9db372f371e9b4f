/** Model-guided scheduling (optional: the built-in strategies never need a model). */
export { runAgentSchedule, chooseRegion, agentCacheKey, usageLine } from './run.js';
export type { AgentOptions, AgentRunResult } from './run.js';
export { createProvider, resolveApiKey, scrub, ProviderError, DEFAULT_BASE_URL } from './provider.js';
export type { ChatProvider, ChatReply, ProviderOptions, Usage } from './provider.js';
export { renderPrompt, targetFacts, occupancyBreakpoints, checkTemplate, DEFAULT_TEMPLATE, PLACEHOLDERS, VARIANTS } from './prompt.js';
export { TOOLS, parseNativeCall, parseTextCalls, toolCallFrom } from './protocol.js';
export type { ToolCall, ToolCallError } from './protocol.js';
export { Transcript, isTranscript, movesFromTranscript } from './transcript.js';
export type { TranscriptRecord } from './transcript.js';
