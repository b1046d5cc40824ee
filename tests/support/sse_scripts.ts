// Builders for scripted provider streams, byte-for-byte in each provider's wire format.

const frame = (event: string, data: unknown) =>
  `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const dataFrame = (data: unknown) =>
  `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;

/** Anthropic usage fields. */
export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_5m?: number;
  cache_1h?: number;
}

/** A tool call to script. */
export interface ScriptedCall {
  id: string;
  name: string;
  /** Arguments as JSON text (may be malformed on purpose). */
  json: string;
}

/** Anthropic Messages streams. */
export const anthropic = {
  /** A full reply: optional text, then tool calls, with usage; `split` cuts text and JSON into pieces. */
  reply(options: {
    text?: string;
    calls?: ScriptedCall[];
    thinking?: string;
    usage?: AnthropicUsage;
    model?: string;
    split?: number;
    stopReason?: string;
    id?: string;
  }): string[] {
    const u = options.usage ?? { input_tokens: 10, output_tokens: 5 };
    const startUsage: Record<string, unknown> = {
      input_tokens: u.input_tokens,
      output_tokens: 1,
      cache_read_input_tokens: u.cache_read_input_tokens ?? 0,
      cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0,
    };
    if (u.cache_5m !== undefined || u.cache_1h !== undefined) {
      startUsage.cache_creation = {
        ephemeral_5m_input_tokens: u.cache_5m ?? 0,
        ephemeral_1h_input_tokens: u.cache_1h ?? 0,
      };
    }
    const out = [
      frame("message_start", {
        type: "message_start",
        message: {
          id: options.id ?? "msg_01Test",
          type: "message",
          role: "assistant",
          model: options.model ?? "claude-sonnet-4-5-20250929",
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: startUsage,
        },
      }),
      frame("ping", { type: "ping" }),
    ];
    let index = 0;
    const pieces = (s: string) => chunk(s, options.split ?? 8);
    if (options.thinking) {
      out.push(
        frame("content_block_start", {
          type: "content_block_start",
          index,
          content_block: { type: "thinking", thinking: "", signature: "" },
        }),
      );
      for (const p of pieces(options.thinking)) {
        out.push(
          frame("content_block_delta", {
            type: "content_block_delta",
            index,
            delta: { type: "thinking_delta", thinking: p },
          }),
        );
      }
      out.push(
        frame("content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "signature_delta", signature: "sig-abc" },
        }),
      );
      out.push(frame("content_block_stop", { type: "content_block_stop", index }));
      index++;
    }
    if (options.text) {
      out.push(
        frame("content_block_start", {
          type: "content_block_start",
          index,
          content_block: { type: "text", text: "" },
        }),
      );
      for (const p of pieces(options.text)) {
        out.push(
          frame("content_block_delta", {
            type: "content_block_delta",
            index,
            delta: { type: "text_delta", text: p },
          }),
        );
      }
      out.push(frame("content_block_stop", { type: "content_block_stop", index }));
      index++;
    }
    for (const call of options.calls ?? []) {
      out.push(frame("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: call.id, name: call.name, input: {} },
      }));
      out.push(
        frame("content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: "" },
        }),
      );
      for (const p of pieces(call.json)) {
        out.push(
          frame("content_block_delta", {
            type: "content_block_delta",
            index,
            delta: { type: "input_json_delta", partial_json: p },
          }),
        );
      }
      out.push(frame("content_block_stop", { type: "content_block_stop", index }));
      index++;
    }
    out.push(frame("message_delta", {
      type: "message_delta",
      delta: {
        stop_reason: options.stopReason ?? (options.calls?.length ? "tool_use" : "end_turn"),
        stop_sequence: null,
      },
      usage: { output_tokens: u.output_tokens },
    }));
    out.push(frame("message_stop", { type: "message_stop" }));
    return out;
  },
  /** A mid-stream error event. */
  error(type: string, message: string): string {
    return frame("error", { type: "error", error: { type, message } });
  },
  /** An HTTP error body. */
  errorBody(type: string, message: string): string {
    return JSON.stringify({ type: "error", error: { type, message }, request_id: "req_test" });
  },
};

/** OpenAI Chat Completions streams. */
export const openai = {
  /** A full reply with optional text and tool calls; `style` mimics servers' tool-call habits. */
  reply(options: {
    text?: string;
    calls?: ScriptedCall[];
    reasoning?: string;
    usage?: {
      prompt_tokens: number;
      completion_tokens: number;
      cached_tokens?: number;
      reasoning_tokens?: number;
    } | null;
    model?: string;
    split?: number;
    style?: "openai" | "whole" | "no-index";
    done?: boolean;
    extra?: Record<string, unknown>;
  }): string[] {
    const base = {
      id: "chatcmpl-test",
      object: "chat.completion.chunk",
      created: 1_700_000_000,
      model: options.model ?? "gpt-4o-2024-08-06",
    };
    const delta = (
      d: Record<string, unknown>,
      finish: string | null = null,
      extra: Record<string, unknown> = {},
    ) =>
      dataFrame({
        ...base,
        choices: [{ index: 0, delta: d, logprobs: null, finish_reason: finish }],
        usage: null,
        ...extra,
      });
    const out = [delta({ role: "assistant", content: "" })];
    for (const p of chunk(options.reasoning ?? "", options.split ?? 8)) {
      out.push(delta({ reasoning_content: p }));
    }
    for (const p of chunk(options.text ?? "", options.split ?? 8)) {
      out.push(delta({ content: p }, null, { obfuscation: "x1" }));
    }
    const style = options.style ?? "openai";
    (options.calls ?? []).forEach((call, i) => {
      if (style === "whole" || style === "no-index") {
        const tc: Record<string, unknown> = {
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: call.json },
        };
        if (style === "whole") tc.index = i;
        out.push(delta({ role: "assistant", content: "", tool_calls: [tc] }));
        return;
      }
      out.push(
        delta({
          tool_calls: [{
            index: i,
            id: call.id,
            type: "function",
            function: { name: call.name, arguments: "" },
          }],
        }),
      );
      for (const p of chunk(call.json, options.split ?? 8)) {
        out.push(delta({ tool_calls: [{ index: i, function: { arguments: p } }] }));
      }
    });
    out.push(delta({}, options.calls?.length ? "tool_calls" : "stop", options.extra ?? {}));
    const u = options.usage === undefined
      ? { prompt_tokens: 20, completion_tokens: 10 }
      : options.usage;
    if (u) {
      out.push(dataFrame({
        ...base,
        choices: [],
        usage: {
          prompt_tokens: u.prompt_tokens,
          completion_tokens: u.completion_tokens,
          total_tokens: u.prompt_tokens + u.completion_tokens,
          prompt_tokens_details: { cached_tokens: u.cached_tokens ?? 0, audio_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: u.reasoning_tokens ?? 0, audio_tokens: 0 },
        },
      }));
    }
    if (options.done !== false) out.push(dataFrame("[DONE]"));
    return out;
  },
  /** A mid-stream error chunk. */
  error(message: string, code = "server_error"): string {
    return dataFrame({ error: { message, type: "server_error", code } });
  },
  /** An HTTP error body. */
  errorBody(message: string, type: string, code: string | null = null): string {
    return JSON.stringify({ error: { message, type, param: null, code } });
  },
};

function chunk(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
