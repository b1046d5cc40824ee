import assert from "node:assert/strict";
import { serverContextWindow } from "../../../core/providers/server_context.ts";
import { LoopbackServer } from "../../support/loopback_server.ts";

const json = (value: unknown) => ({
  body: JSON.stringify(value),
  headers: { "content-type": "application/json" },
});

/** llama.cpp's /props, trimmed to what matters. */
const llamaProps = (nCtx: number) => ({
  default_generation_settings: { id: 0, n_ctx: nCtx, params: { n_predict: -1 } },
  total_slots: 4,
  model_path: "/models/qwen.gguf",
  build_info: "b7000-abc",
});

const cases: {
  name: string;
  model?: string;
  script: (server: LoopbackServer) => void;
  tokens: number | null;
}[] = [
  {
    name: "llama.cpp: /props says the per-slot context",
    script: (s) =>
      s.props(llamaProps(8192)).models([{
        id: "/models/qwen.gguf",
        meta: { n_ctx_train: 131072 },
      }]),
    tokens: 8192,
  },
  {
    name: "llama.cpp without /props: meta.n_ctx over meta.n_ctx_train",
    script: (s) =>
      s.models([{ id: "/models/qwen.gguf", meta: { n_ctx: 16384, n_ctx_train: 131072 } }]),
    tokens: 16384,
  },
  {
    name: "llama.cpp without /props or meta.n_ctx: the training context",
    script: (s) =>
      s.models([{ id: "/models/qwen.gguf", meta: { n_vocab: 151936, n_ctx_train: 32768 } }]),
    tokens: 32768,
  },
  {
    name: "vLLM: max_model_len of the named model",
    model: "Qwen/Qwen3-8B",
    script: (s) =>
      s.models([
        { id: "Qwen/Qwen3-8B", owned_by: "vllm", max_model_len: 40960 },
        { id: "my-lora", owned_by: "vllm", max_model_len: 4096, parent: "Qwen/Qwen3-8B" },
      ]),
    tokens: 40960,
  },
  {
    name: "LM Studio: the loaded context length",
    model: "qwen2.5-coder-7b-instruct",
    script: (s) =>
      s.models(["qwen2.5-coder-7b-instruct", "llama-3.2-1b-instruct"]).get(
        "/api/v0/models",
        json({
          object: "list",
          data: [
            {
              id: "qwen2.5-coder-7b-instruct",
              state: "loaded",
              max_context_length: 32768,
              loaded_context_length: 16384,
            },
            { id: "llama-3.2-1b-instruct", state: "not-loaded", max_context_length: 131072 },
          ],
        }),
      ),
    tokens: 16384,
  },
  {
    name: "LM Studio: a model not loaded yet has only its maximum",
    model: "llama-3.2-1b-instruct",
    script: (s) =>
      s.models(["qwen2.5-coder-7b-instruct", "llama-3.2-1b-instruct"]).get(
        "/api/v0/models",
        json({
          object: "list",
          data: [
            { id: "qwen2.5-coder-7b-instruct", state: "loaded", loaded_context_length: 16384 },
            { id: "llama-3.2-1b-instruct", state: "not-loaded", max_context_length: 131072 },
          ],
        }),
      ),
    tokens: 131072,
  },
  {
    name: "a size the server runs with beats a model's maximum from another source",
    script: (s) =>
      s.props(llamaProps(4096)).get(
        "/api/v0/models",
        json({ data: [{ id: "m", max_context_length: 131072 }] }),
      ),
    tokens: 4096,
  },
  {
    name: "another model's entry is not ours",
    model: "wanted",
    script: (s) => s.models([{ id: "a", max_model_len: 1 }, { id: "b", max_model_len: 2 }]),
    tokens: null,
  },
  {
    name: "an alias names the model (llama.cpp router)",
    model: "qwen",
    script: (s) =>
      s.models([
        { id: "ggml-org/Qwen3-8B-GGUF:Q4_K_M", aliases: ["qwen"], meta: { n_ctx: 32768 } },
        {
          id: "other",
        },
      ]),
    tokens: 32768,
  },
  {
    name: "a server that says nothing (Ollama's /v1/models)",
    script: (s) => s.models(["llama3.2"]),
    tokens: null,
  },
  {
    name: "nonsense is ignored: not JSON, zero, negative, fractions",
    script: (s) =>
      s.get("/props", { body: "<html>not json</html>" })
        .models([{ id: "m", max_model_len: 0, meta: { n_ctx: -1, n_ctx_train: 1.5 } }]),
    tokens: null,
  },
  {
    name: "an error status is no answer",
    script: (s) => s.get("/props", { status: 503, ...json(llamaProps(8192)) }),
    tokens: null,
  },
];

Deno.test("serverContextWindow() reads the context size where each local server says it", async (t) => {
  for (const c of cases) {
    await t.step(c.name, async () => {
      await using server = await LoopbackServer.start();
      c.script(server);
      const tokens = await serverContextWindow(fetch, {
        baseUrl: server.openaiUrl,
        model: c.model ?? "m",
        timeoutMs: 2000,
      });
      assert.equal(tokens, c.tokens);
    });
  }
});

Deno.test("serverContextWindow() asks /props at the server root, naming the model without loading it", async () => {
  await using server = await LoopbackServer.start();
  server.props(llamaProps(8192));
  await serverContextWindow(fetch, {
    baseUrl: `${server.openaiUrl}/`,
    model: "org/model:Q4",
    timeoutMs: 2000,
  });
  assert.ok(
    server.gets.includes("/props?model=org%2Fmodel%3AQ4&autoload=false"),
    server.gets.join(),
  );
  assert.ok(server.gets.includes("/v1/models"));
});

Deno.test("serverContextWindow() never takes longer than its timeout and never throws", async (t) => {
  await t.step("a server that holds its answer back", async () => {
    await using server = await LoopbackServer.start();
    server.get("/props", { ...json(llamaProps(8192)), delayMs: 5000 });
    const started = performance.now();
    const tokens = await serverContextWindow(fetch, {
      baseUrl: server.openaiUrl,
      model: "m",
      timeoutMs: 150,
    });
    assert.equal(tokens, null);
    assert.ok(performance.now() - started < 1000, "gave up at the timeout");
  });
  await t.step("a fetch that ignores its abort signal", async () => {
    const stuck: typeof fetch = () => new Promise<Response>(() => {});
    const started = performance.now();
    assert.equal(
      await serverContextWindow(stuck, { baseUrl: "http://x/v1", model: "m", timeoutMs: 50 }),
      null,
    );
    assert.ok(performance.now() - started < 1000);
  });
  await t.step("a fetch that throws at once, and nothing listening", async () => {
    const broken: typeof fetch = () => {
      throw new TypeError("no network");
    };
    assert.equal(
      await serverContextWindow(broken, { baseUrl: "http://x/v1", model: "m", timeoutMs: 500 }),
      null,
    );
    const server = await LoopbackServer.start();
    const url = server.openaiUrl;
    await server.close();
    assert.equal(
      await serverContextWindow(fetch, { baseUrl: url, model: "m", timeoutMs: 500 }),
      null,
    );
  });
});
